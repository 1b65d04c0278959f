// SPDX-License-Identifier: MIT
// A restart that lost every key is not "all clear": the real window (a real
// server, stopped and started again with no persistence) says so in its
// banner, with the keys before and after, until the operator dismisses it;
// what was shown is read again and the locks it held show as gone, their
// alerts ending as vanished, never resolved. So do a semaphore and a queue
// emptied to no key at all, until the operator dismisses what is gone, and
// a FLUSHALL, which no keyspace event announces.
#include "testconsole.h"
#include "testshots.h"

#include <alerts/alertengine.h>
#include <alertspage.h>
#include <objecttablemodel.h>
#include <patterns/objecthealth.h>

#include <QAction>
#include <QPushButton>
#include <QSet>
#include <QTableWidget>
#include <QTemporaryDir>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;
using gatehouse::test::TestConsoleOptions;

class tst_WorldBanner : public QObject
{
    Q_OBJECT

    // The banner (Overview) and the Timeline page at both sizes, light and
    // dark, into $GATEHOUSE_TEST_SHOTS/<what>-<page>-<size>-<look>.png.
    static void saveShots(TestConsole &c, const QString &what)
    {
        QList<std::pair<QString, int>> pages;
        for (const QString &page : {QStringLiteral("Overview"), QStringLiteral("Timeline")})
            pages.append({page.toLower(), int(c.window->pageNames().indexOf(page))});
        gatehouse::test::saveShots(*c.window, what, pages);
        c.window->showPage(0);
    }

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void restartWithoutPersistence()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        {
            auto client = gatehouse::test::connectedClient(server);
            QVERIFY(client);
            for (int i = 0; i < 5; ++i)
                call(*client, {"SET", "sim:lock:" + QByteArray::number(i),
                               "holder-" + QByteArray::number(i * 7919), "PX", "600000"});
            for (int i = 0; i < 20; ++i)
                call(*client, {"SET", "page:" + QByteArray::number(i), "cached"});
        }
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        const auto heldLocks = [&] {
            int held = 0;
            if (const auto s = c.window->snapshot()) {
                for (const ObjectState &o : s->objects)
                    held += o.object->key.startsWith("sim:lock:") && !o.gone && !o.stale ? 1 : 0;
            }
            return held;
        };
        QTRY_COMPARE_WITH_TIMEOUT(heldLocks(), 5, 10000);
        QCOMPARE(c.window->bannerText(), QString());

        server.stop(); // no persistence: everything is gone
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(c.window->bannerText().contains(QLatin1String("restarted")),
                                 15000);
        const QString text = c.window->bannerText();
        QVERIFY2(text.contains(QStringLiteral("25 keys → 0")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("not persisted")), qPrintable(text));
        // The locks it held are not shown as held once read again.
        QTRY_COMPARE_WITH_TIMEOUT(heldLocks(), 0, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(c.window->bannerText().contains(QLatin1String("read again")),
                                 5000);
        if (gatehouse::test::shotsWanted())
            saveShots(c, QStringLiteral("restart"));
        // Dismissed: gone, and not back with the next snapshot.
        QPushButton *dismiss = nullptr;
        for (QPushButton *b : c.window->findChildren<QPushButton *>()) {
            if (b->text() == QLatin1String("Dismiss") && b->isVisible())
                dismiss = b;
        }
        QVERIFY(dismiss);
        dismiss->click();
        QCOMPARE(c.window->bannerText(), QString());
        QTest::qWait(600);
        QCOMPARE(c.window->bannerText(), QString());
    }

    // FLUSHALL publishes no keyspace event, and with events live nothing
    // unwritten is read again: the window said nothing while the locks it
    // showed held were gone. Now the banner says what happened, with the
    // counts, and every lock reads gone once read again.
    void flushSaysSoAndShowsGone()
    {
        RedisServer server([] {
            RedisServer::Options o;
            o.config << QStringLiteral("notify-keyspace-events KEA");
            return o;
        }());
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        for (int i = 0; i < 5; ++i)
            call(*client, {"SET", "sim:lock:" + QByteArray::number(i),
                           "holder-" + QByteArray::number(i * 7919), "PX", "600000"});
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        const auto locks = [&](bool gone) {
            int n = 0;
            if (const auto s = c.window->snapshot()) {
                for (const ObjectState &o : s->objects)
                    n += o.object->key.startsWith("sim:lock:") && o.gone == gone && !o.stale ? 1
                                                                                             : 0;
            }
            return n;
        };
        QTRY_COMPARE_WITH_TIMEOUT(locks(false), 5, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(c.window->snapshot() && c.window->snapshot()->server.eventsLive,
                                 10000);
        QCOMPARE(c.window->bannerText(), QString());
        call(*client, {"FLUSHALL"});
        QTRY_VERIFY2_WITH_TIMEOUT(c.window->bannerText().contains(
                                      QStringLiteral("Keyspace emptied or swapped: 5 → 0 keys")),
                                  qPrintable(c.window->bannerText()), 5000);
        QVERIFY2(c.window->bannerText().contains(QLatin1String("FLUSHALL ran on")),
                 qPrintable(c.window->bannerText()));
        QTRY_COMPARE_WITH_TIMEOUT(locks(true), 5, 5000);
        QCOMPARE(locks(false), 0);
        QTRY_VERIFY_WITH_TIMEOUT(c.window->bannerText().contains(QLatin1String("read again")),
                                 5000);
        if (gatehouse::test::shotsWanted())
            saveShots(c, QStringLiteral("flush"));
    }

    // The same restart seen from the alerts and every section: the alert of
    // each lock that was firing ends as vanished, never resolved, and the
    // hand-written queue goes gone like the locks (not "ok" with no key).
    void restartEndsAlertsAsVanished()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        {
            auto client = gatehouse::test::connectedClient(server);
            QVERIFY(client);
            for (int i = 0; i < 3; ++i)
                call(*client, {"SET", "sim:lock:" + QByteArray::number(i),
                               "holder-" + QByteArray::number(i), "PX", "600000"});
            call(*client, {"LPUSH", "sim:jobs:mail", "job-1", "job-2"});
            call(*client, {"LPUSH", "sim:jobs:mail:processing", "job-0"});
        }
        QTemporaryDir dir;
        QString error;
        const auto rule
            = AlertRule::parseExpression(QStringLiteral("pttlMs > 0 on lock as lock-held"), &error);
        QVERIFY2(rule, qPrintable(error));
        TestConsoleOptions o;
        o.alerts = QList<AlertRule>{*rule};
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")), o);
        const AlertEngine &alerts = *c.deployment->alerts();
        c.window->setAlerts(Profile());
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        QTRY_COMPARE_WITH_TIMEOUT(alerts.firingCount(), 3, 10000);
        const auto present = [&](const QByteArray &key) {
            if (const auto s = c.window->snapshot()) {
                for (const ObjectState &o : s->objects) {
                    if (o.object->key == key)
                        return o.reading.atMs > 0 && !o.gone && !o.stale;
                }
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(present("sim:jobs:mail"), 10000);

        server.stop(); // no persistence: everything is gone
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(c.window->bannerText().contains(QLatin1String("restarted")),
                                 15000);
        QTRY_COMPARE_WITH_TIMEOUT(alerts.firingCount(), 0, 10000);
        // The Alerts page: three "vanished" ends, one per lock; none resolved.
        QTableWidget *recent = c.window->alertsPage()->recentTable();
        QStringList ends;
        QSet<QString> objects;
        for (int r = 0; r < recent->rowCount(); ++r) {
            const QString state = recent->item(r, 1)->text();
            if (state == QLatin1String("firing"))
                continue;
            ends << state;
            objects.insert(recent->item(r, 3)->text());
        }
        QCOMPARE(ends, QStringList(3, QStringLiteral("vanished")));
        QCOMPARE(objects.size(), 3);
        // Every section the same: the queue is gone like the locks.
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const auto s = c.window->snapshot();
                int gone = 0;
                for (const ObjectState &o : s ? s->objects : ObjectList()) {
                    if (o.object->key.startsWith("sim:") && !o.gone)
                        return false;
                    gone += o.object->key.startsWith("sim:") ? 1 : 0;
                }
                return gone == 4;
            }(),
            10000);
        // And its row says so, as the locks' do.
        for (const auto &[section, key] :
             {std::pair{QStringLiteral("queue"), QByteArray("sim:jobs:mail")},
              std::pair{QStringLiteral("lock"), QByteArray("sim:lock:0")}}) {
            ObjectTableModel *model = c.window->model(section);
            const int row = model ? model->rowOf(key) : -1;
            QVERIFY2(row >= 0, key.constData());
            const ObjectState *state = model->stateAt(row);
            const QString words = objectHealth(*state, state->reading.atMs + 1500).words;
            QVERIFY2(words.startsWith(QLatin1String("gone")), qPrintable(key + ": " + words));
        }
    }

    // A semaphore whose last holder left and a queue drained to nothing have
    // no key left (Redis removes an empty sorted set or list): a fresh
    // console would list neither, so the window does not keep them as "ok".
    // Their rows say gone, with when, until a key is back.
    void emptiedStructuresShowAsGone()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        const auto nowMs = [&] {
            const auto t = call(*client, {"TIME"}).elements();
            return QByteArray::number(t.at(0).bytes().toLongLong() * 1000
                                      + t.at(1).bytes().toLongLong() / 1000);
        };
        call(*client, {"ZADD", "sim:sem:pool", nowMs(), "worker-1"});
        call(*client, {"RPUSH", "sim:jobs:mail", "job-1"});
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        const auto status = [&](const QString &section, const QByteArray &key) {
            ObjectTableModel *model = c.window->model(section);
            const int row = model ? model->rowOf(key) : -1;
            if (row < 0)
                return QStringLiteral("(no row)");
            const ObjectState *s = model->stateAt(row);
            return s->reading.atMs > 0 ? objectHealth(*s, s->reading.atMs + 1500).words
                                       : QStringLiteral("(not read)");
        };
        QTRY_COMPARE_WITH_TIMEOUT(status(QStringLiteral("semaphore"), "sim:sem:pool"),
                                  QStringLiteral("ok"), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(status(QStringLiteral("queue"), "sim:jobs:mail"),
                                  QStringLiteral("ok"), 10000);

        call(*client, {"ZREM", "sim:sem:pool", "worker-1"}); // the last holder leaves
        call(*client, {"LPOP", "sim:jobs:mail"});            // the last job is taken
        QTRY_VERIFY_WITH_TIMEOUT(
            status(QStringLiteral("semaphore"), "sim:sem:pool").startsWith(QLatin1String("gone")),
            5000);
        QTRY_VERIFY_WITH_TIMEOUT(
            status(QStringLiteral("queue"), "sim:jobs:mail").startsWith(QLatin1String("gone")),
            5000);
        // "gone 1.5 s ago": when, from the first reading that found no key.
        QVERIFY2(status(QStringLiteral("queue"), "sim:jobs:mail").contains(QLatin1String("ago")),
                 qPrintable(status(QStringLiteral("queue"), "sim:jobs:mail")));

        // A new holder: the same row is a semaphore in use again.
        call(*client, {"ZADD", "sim:sem:pool", nowMs(), "worker-2"});
        QTRY_COMPARE_WITH_TIMEOUT(status(QStringLiteral("semaphore"), "sim:sem:pool"),
                                  QStringLiteral("ok"), 5000);
        QCOMPARE(c.window->model(QStringLiteral("semaphore"))->rowCount(), 1);
    }

    // Objects that vanished at once are announced and stay as gone until the
    // operator dismisses them (File > Dismiss gone objects); what still
    // exists stays, and a key written again is found again.
    void dismissedGoneObjectsLeave()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        call(*client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
        for (int i = 0; i < 6; ++i)
            call(*client, {"SET", "sim:lock:" + QByteArray::number(i), "holder", "PX", "600000"});
        call(*client, {"SET", "sim:lock:kept", "holder", "PX", "600000"});
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        const auto locks = [&](bool gone) {
            int n = 0;
            if (const auto s = c.window->snapshot()) {
                for (const ObjectState &o : s->objects)
                    n += o.object->key.startsWith("sim:lock:") && o.gone == gone ? 1 : 0;
            }
            return n;
        };
        QTRY_COMPARE_WITH_TIMEOUT(locks(false), 7, 10000);

        for (int i = 0; i < 6; ++i)
            call(*client, {"DEL", "sim:lock:" + QByteArray::number(i)});
        QTRY_COMPARE_WITH_TIMEOUT(locks(true), 6, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(c.window->bannerText().contains(QLatin1String("vanished")), 5000);
        QVERIFY2(c.window->bannerText().contains(QLatin1String("Dismiss gone objects")),
                 qPrintable(c.window->bannerText()));
        QCOMPARE(c.window->model(QStringLiteral("lock"))->rowCount(), 7);

        auto *dismiss = c.window->findChild<QAction *>(QStringLiteral("dismissGone"));
        QVERIFY(dismiss);
        dismiss->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(locks(true), 0, 5000);
        QCOMPARE(locks(false), 1);
        QTRY_COMPARE_WITH_TIMEOUT(c.window->model(QStringLiteral("lock"))->rowCount(), 1, 2000);
        QVERIFY(c.window->model(QStringLiteral("lock"))->rowOf("sim:lock:kept") >= 0);
        QTest::qWait(1000); // five ticks: nothing dismissed comes back by itself
        QCOMPARE(locks(true) + locks(false), 1);

        call(*client, {"SET", "sim:lock:3", "new-holder", "PX", "600000"});
        QTRY_COMPARE_WITH_TIMEOUT(locks(false), 2, 5000);
        QVERIFY(c.window->model(QStringLiteral("lock"))->rowOf("sim:lock:3") >= 0);
    }
};

QTEST_MAIN(tst_WorldBanner)
#include "tst_worldbanner.moc"
