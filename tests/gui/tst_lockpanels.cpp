// SPDX-License-Identifier: MIT
// The Locks page against a real redis-server, offscreen: a lock's holder
// timeline shows a release and the new holder after a real client re-takes
// it, and an expiry, records each holder once, and reads earlier runs from the
// history file; the page's filter (Ctrl+F) narrows the table; its panes fit
// their rows.
#include <actions/actionengine.h>
#include <chartpanel.h>
#include <history/historystore.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <panels/lock/locktimelinepanel.h>
#include <patterns/lock/lockdata.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QDateTime>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <climits>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
namespace {

struct Console : gatehouse::test::TestConsole
{
    Console(const RedisServer &server, const QString &auditPath,
            const QString &historyFile = QString())
        // New tokens are found by the next scan: a rescan every second.
        : TestConsole(server, auditPath, [&] {
            Options o;
            o.historyFile = historyFile;
            o.rescanMs = 1000;
            o.size = QSize(1400, 900);
            return o;
        }())
    {}
};

} // namespace

class tst_LockPanels : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_redis;
    QTemporaryDir m_dir;

    QString audit() const { return m_dir.filePath(QStringLiteral("audit.jsonl")); }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_redis = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_redis);
    }

    void cleanupTestCase()
    {
        m_redis.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void init() { QCOMPARE(call(*m_redis, {"FLUSHALL"}).bytes(), QByteArray("OK")); }

    void lockTimelineFollowsHolders()
    {
        // A real client's lock (SET NX PX with a random token, as lock_acquire).
        QCOMPARE(
            call(*m_redis, {"SET", "sim:lock:orders", "holder-A", "NX", "PX", "60000"}).bytes(),
            QByteArray("OK"));
        QCOMPARE(
            call(*m_redis, {"SET", "sim:lock:billing", "holder-X", "NX", "PX", "60000"}).bytes(),
            QByteArray("OK"));
        // A legacy lock whose holder crashed: its value says it expired a
        // minute ago, and the key is still there.
        const qint64 lapsedAt = QDateTime::currentMSecsSinceEpoch() - 60000;
        QCOMPARE(call(*m_redis, {"SET", "sim:lock.legacy:0", QByteArray::number(lapsedAt)}).bytes(),
                 QByteArray("OK"));
        Console c(m_server, audit());
        const QString section = QStringLiteral("lock");
        SectionPage *page = c.window->sectionPage(section);
        auto *panel = page->findChild<LockTimelinePanel *>();
        QVERIFY(panel);
        auto *holders = panel->findChild<QTableWidget *>(QStringLiteral("lockHolders"));
        QVERIFY(holders);
        QVERIFY(c.select(section, "sim:lock:orders"));
        QTRY_COMPARE_WITH_TIMEOUT(holders->rowCount(), 1, 10000);
        QCOMPARE(holders->item(0, 0)->text(), QStringLiteral("holder-A"));
        QCOMPARE(holders->item(0, 2)->text(), QStringLiteral("holds it"));
        QVERIFY(holders->item(0, 1)->text().startsWith(QStringLiteral("≤ ")));

        // Released by its holder (compare and delete), then re-taken by another.
        const QByteArray release
            = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) "
              "end return 0";
        QCOMPARE(call(*m_redis, {"EVAL", release, "1", "sim:lock:orders", "holder-A"}).toInteger(),
                 1);
        QTest::qWait(600); // a few of the monitor's readings see it free
        QCOMPARE(
            call(*m_redis, {"SET", "sim:lock:orders", "holder-B", "NX", "PX", "60000"}).bytes(),
            QByteArray("OK"));
        QVERIFY(c.select(section, "sim:lock:orders"));
        QTRY_COMPARE_WITH_TIMEOUT(panel->holders("sim:lock:orders").size(), 2, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(holders->rowCount(), 2, 5000);
        // Newest first: B holds it; A released well before its TTL ran out.
        QCOMPARE(holders->item(0, 0)->text(), QStringLiteral("holder-B"));
        QCOMPARE(holders->item(0, 2)->text(), QStringLiteral("holds it"));
        QCOMPARE(holders->item(1, 0)->text(), QStringLiteral("holder-A"));
        QCOMPARE(holders->item(1, 3)->text(), QStringLiteral("released"));
        QVERIFY(holders->item(1, 4)->text() != QStringLiteral("–"));
        const auto a = panel->holders("sim:lock:orders").first();
        QVERIFY(a.endedMs >= a.acquiredMs);
        QCOMPARE(a.end, QStringLiteral("released"));

        // A holder whose TTL runs out: expired, not released.
        QCOMPARE(call(*m_redis, {"PEXPIRE", "sim:lock:orders", "2000"}).toInteger(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(panel->holders("sim:lock:orders").last().endedMs >= 0, 10000);
        QCOMPARE(panel->holders("sim:lock:orders").last().end, QStringLiteral("expired"));

        // The crashed holder: expired when its value said, not holding it.
        QVERIFY(c.select(section, "sim:lock.legacy:0"));
        QTRY_COMPARE_WITH_TIMEOUT(panel->holders("sim:lock.legacy:0").size(), 1, 10000);
        QCOMPARE(panel->holders("sim:lock.legacy:0").first().end, QStringLiteral("expired"));
        QCOMPARE(panel->holders("sim:lock.legacy:0").first().endedMs, lapsedAt);
        QTRY_COMPARE(holders->rowCount(), 1);
        QCOMPARE(holders->item(0, 3)->text(), QStringLiteral("expired"));
        // First seen after its expiry: what is known, not "held for ≥ 0 ms".
        const QString heldFor = holders->item(0, 4)->text();
        QVERIFY2(heldFor.contains(QLatin1String("expired before the console saw it")),
                 qPrintable(heldFor));
        QVERIFY2(!heldFor.contains(QLatin1String("0 ms")), qPrintable(heldFor));
        QVERIFY2(holders->item(0, 1)->text().startsWith(QLatin1String("before ")),
                 qPrintable(holders->item(0, 1)->text()));
        QVERIFY2(holders->item(0, 4)->toolTip().contains(QLatin1String("next client must break")),
                 qPrintable(holders->item(0, 4)->toolTip()));

        // Ctrl+F on the Locks page: its filter, and the table narrows to it.
        c.window->showPage(c.window->pageOf(section));
        auto *filter = page->findChild<QLineEdit *>(QStringLiteral("lockFilter"));
        QVERIFY(filter);
        c.window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(c.window.get()));
        QTest::keyClick(c.window.get(), Qt::Key_F, Qt::ControlModifier);
        QTRY_VERIFY(filter->hasFocus());
        QTest::keyClicks(filter, QStringLiteral("billing"));
        QTableView *view = c.window->table(section);
        QTRY_COMPARE(view->model()->rowCount(), 1);
        QCOMPARE(view->model()->index(0, 0).data(ObjectTableModel::KeyRole).toByteArray(),
                 QByteArray("sim:lock:billing"));
    }

    // More locks than the timeline follows (MaxLocks): the oldest are
    // forgotten and followed again when read again. A holder is recorded in
    // the history file once, not at every reading of a lock the timeline had
    // forgotten (with 10,000 locks that was an event a reading, 36,000 in
    // three minutes); a new holder of a forgotten lock is still recorded.
    void lockTimelineRecordsEachHolderOnce()
    {
        const QString file = m_dir.filePath(QStringLiteral("holders-once.sqlite"));
        auto store = std::make_shared<HistoryStore>(file, HistoryStore::Options());
        store->open();
        ObjectPanel::Context context;
        context.kinds = {PatternKind("lock")};
        LockTimelinePanel panel(context);
        panel.setHistory(store, file);
        const int locks = LockTimelinePanel::MaxLocks + 1000;
        const auto snapshot = [&](qint64 atMs, int newHolder) {
            auto s = std::make_shared<Snapshot>();
            s->server.timeMs = atMs;
            s->objects.reserve(locks);
            for (int i = 0; i < locks; ++i) {
                ObjectState o;
                o.object.edit().kind = PatternKind("lock");
                o.object.edit().key = "bench:lock:" + QByteArray::number(i);
                LockData::in(o.reading).token
                    = (i == newHolder ? "n3w" : "t0ken") + QByteArray::number(i);
                o.reading.pttlMs = 3600000;
                o.reading.atMs = atMs;
                s->objects.append(o); // a new state: every lock read again
            }
            return std::shared_ptr<const Snapshot>(std::move(s));
        };
        const qint64 t0 = QDateTime::currentMSecsSinceEpoch();
        for (int round = 0; round < 4; ++round)
            panel.setSnapshot(snapshot(t0 + round * 1000, -1));
        // Lock 3 was forgotten long ago (the oldest go first); another holder
        // takes it.
        panel.setSnapshot(snapshot(t0 + 4000, 3));
        store->flush();
        QString error;
        const auto events
            = HistoryStore::readEvents(file, t0 - 1000, t0 + 10000, QByteArray(), 100000, &error);
        QVERIFY2(events, qPrintable(error));
        QHash<QByteArray, QStringList> byKey;
        for (const HistoryEvent &e : *events)
            byKey[e.key].append(e.kind + QLatin1Char(' ') + e.text);
        QCOMPARE(byKey.size(), locks);
        int once = 0;
        for (auto it = byKey.cbegin(); it != byKey.cend(); ++it) {
            if (it.key() == "bench:lock:3")
                continue;
            QVERIFY2(it->size() == 1,
                     qPrintable(QStringLiteral("%1: %2").arg(QString::fromUtf8(it.key()),
                                                             it->join(QLatin1String(", ")))));
            ++once;
        }
        QCOMPARE(once, locks - 1);
        // Lock 3: its first holder, then the new one, recorded as holding it
        // when read (the timeline had forgotten the lock: it did not see it
        // taken).
        const QStringList three = byKey.value("bench:lock:3");
        QCOMPARE(three, QStringList({QStringLiteral("lock.held ")
                                         + QString::fromLatin1(QByteArray("t0ken3").toBase64()),
                                     QStringLiteral("lock.held ")
                                         + QString::fromLatin1(QByteArray("n3w3").toBase64())}));
    }

    void lockTimelineReadsEarlierRuns()
    {
        // A first run watches A release the lock and B take it; it records
        // both in the history file.
        const QString history = m_dir.filePath(QStringLiteral("history.sqlite"));
        QCOMPARE(
            call(*m_redis, {"SET", "sim:lock:orders", "holder-A", "NX", "PX", "60000"}).bytes(),
            QByteArray("OK"));
        qint64 takenByB = -1;
        {
            Console c(m_server, audit(), history);
            auto *panel
                = c.window->sectionPage(QStringLiteral("lock"))->findChild<LockTimelinePanel *>();
            QVERIFY(panel);
            QVERIFY(c.select(QStringLiteral("lock"), "sim:lock:orders"));
            QTRY_COMPARE_WITH_TIMEOUT(panel->holders("sim:lock:orders").size(), 1, 10000);
            QCOMPARE(call(*m_redis, {"DEL", "sim:lock:orders"}).toInteger(), 1);
            QTRY_VERIFY_WITH_TIMEOUT(panel->holders("sim:lock:orders").first().endedMs >= 0, 10000);
            QCOMPARE(
                call(*m_redis, {"SET", "sim:lock:orders", "holder-B", "NX", "PX", "60000"}).bytes(),
                QByteArray("OK"));
            QTRY_COMPARE_WITH_TIMEOUT(panel->holders("sim:lock:orders").size(), 2, 10000);
            takenByB = panel->holders("sim:lock:orders").last().acquiredMs;
            QVERIFY(!panel->holders("sim:lock:orders").last().acquiredAtLeast);
        } // the window closes: the history file has everything written

        // A second run finds B holding it: from the file it knows since when,
        // and that A held it before and released it.
        Console c(m_server, audit(), history);
        auto *panel
            = c.window->sectionPage(QStringLiteral("lock"))->findChild<LockTimelinePanel *>();
        QVERIFY(c.select(QStringLiteral("lock"), "sim:lock:orders"));
        QTRY_VERIFY_WITH_TIMEOUT(
            !panel->isReadingHistory() && panel->holders("sim:lock:orders").size() == 2, 10000);
        const auto holders = panel->holders("sim:lock:orders");
        QCOMPARE(holders.at(0).token, QByteArray("holder-A"));
        QVERIFY(holders.at(0).fromHistory);
        QCOMPARE(holders.at(0).end, QStringLiteral("released"));
        QCOMPARE(holders.at(1).token, QByteArray("holder-B"));
        QCOMPARE(holders.at(1).endedMs, qint64(-1));
        QCOMPARE(holders.at(1).acquiredMs, takenByB);
        QVERIFY(!holders.at(1).acquiredAtLeast);
        auto *table = panel->findChild<QTableWidget *>(QStringLiteral("lockHolders"));
        QTRY_COMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(1, 3)->text(), QStringLiteral("released"));
    }

    // Issue 19, the Locks page at 1280x800: a plain lock has no holder or
    // waiter to list, so no table for them; its holders' history is as high
    // as its one row (not a third of the page) and the table of locks leaves
    // no empty band: the charts get the room. A Redisson lock with a holder
    // lists it.
    void lockPanesFitTheirRows()
    {
        QCOMPARE(
            call(*m_redis, {"SET", "sim:lock:orders", "holder-A", "NX", "PX", "60000"}).bytes(),
            QByteArray("OK"));
        const QByteArray holder = "8743c9c0-0795-4907-87fd-6c719a6b4586:1";
        QCOMPARE(call(*m_redis, {"HSET", "sim:rlock:orders", holder, "1"}).toInteger(), 1);
        QCOMPARE(call(*m_redis, {"PEXPIRE", "sim:rlock:orders", "600000"}).toInteger(), 1);
        // The demo's rules and a Redisson lock's.
        QFile demo(QStringLiteral(":/profiles/demo.json"));
        QVERIFY(demo.open(QIODevice::ReadOnly));
        QJsonObject profile = QJsonDocument::fromJson(demo.readAll()).object();
        QJsonArray rules = profile.value(QStringLiteral("rules")).toArray();
        rules.append(QJsonObject{{QStringLiteral("pattern"), QStringLiteral("redisson-lock")},
                                 {QStringLiteral("match"), QStringLiteral("sim:rlock:*")}});
        profile.insert(QStringLiteral("rules"), rules);
        QFile file(m_dir.filePath(QStringLiteral("locks.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(profile).toJson());
        file.close();
        gatehouse::test::TestConsole::Options o;
        o.size = QSize(1280, 800);
        o.profile = file.fileName();
        gatehouse::test::TestConsole c(m_server, audit(), o);
        const QString section = QStringLiteral("lock");
        SectionPage *page = c.window->sectionPage(section);
        auto *items = page->findChild<QTableWidget *>(QStringLiteral("lockItems"));
        auto *panel = page->findChild<LockTimelinePanel *>();
        QVERIFY(items && panel);
        auto *holders = panel->findChild<QTableWidget *>(QStringLiteral("lockHolders"));
        QVERIFY(holders);

        QVERIFY(c.select(section, "sim:lock:orders"));
        QTRY_COMPARE_WITH_TIMEOUT(holders->rowCount(), 1, 10000);
        QTest::qWait(300); // the page's layout settles
        QCOMPARE(c.window->size(), QSize(1280, 800));
        QVERIFY(!items->isVisible());
        QVERIFY(panel->isVisible());
        // The history shows its row whole, and is no more than a few rows high.
        const int rowHeight = holders->verticalHeader()->defaultSectionSize();
        QVERIFY2(holders->viewport()->height() >= rowHeight,
                 qPrintable(QString::number(holders->viewport()->height())));
        QVERIFY2(holders->viewport()->height() <= 3 * rowHeight,
                 qPrintable(QStringLiteral("%1 px for one holder (a row is %2 px)")
                                .arg(holders->viewport()->height())
                                .arg(rowHeight)));
        QVERIFY2(panel->height() < page->height() / 5,
                 qPrintable(QStringLiteral("the holders' pane %1 px of %2")
                                .arg(panel->height())
                                .arg(page->height())));
        // The locks' table: its rows and at most one empty row's worth more.
        QTableView *view = c.window->table(section);
        const int needed
            = view->horizontalHeader()->height()
              + view->model()->rowCount() * view->verticalHeader()->defaultSectionSize()
              + 2 * view->frameWidth();
        QVERIFY2(view->height() <= needed + view->verticalHeader()->defaultSectionSize(),
                 qPrintable(QStringLiteral("the table %1 px for %2 rows (%3 px)")
                                .arg(view->height())
                                .arg(view->model()->rowCount())
                                .arg(needed)));
        QVERIFY2(page->chart()->height() >= page->height() / 2,
                 qPrintable(QStringLiteral("the charts %1 px of %2")
                                .arg(page->chart()->height())
                                .arg(page->height())));

        // A Redisson lock held: its holder listed, the table there for it.
        QVERIFY(c.select(section, "sim:rlock:orders"));
        QTRY_VERIFY_WITH_TIMEOUT(items->isVisible() && items->rowCount() == 1, 10000);
        QCOMPARE(items->item(0, 0)->text(), QString::fromLatin1(holder));
        QTest::qWait(300);
        QVERIFY2(items->viewport()->height() >= items->verticalHeader()->defaultSectionSize(),
                 qPrintable(QString::number(items->viewport()->height())));
        // Back to the plain lock: gone again.
        QVERIFY(c.select(section, "sim:lock:orders"));
        QTRY_VERIFY(!items->isVisible());
        if (const QString dir = qEnvironmentVariable("GATEHOUSE_SHOTS"); !dir.isEmpty())
            c.window->grab().save(dir + QStringLiteral("/locks-plain-1280x800.png"));
    }
};

QTEST_MAIN(tst_LockPanels)
#include "tst_lockpanels.moc"
