// SPDX-License-Identifier: MIT
// The Semaphores and Limiters pages on real redis-semaphore (npm
// redis-semaphore 5, tests/libraries/semaphore-app.js) and Python limits
// (Debian python3-limits, tests/libraries/limits_app.py) state, found with no
// profile: each under its library, with the figures the library's own
// state gives; a stale holder released from the holders list, and a window
// reset, each through its confirmation, and then seen by the library itself.
#include <mainwindow.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "limiterapps.h"
#include "loopback.h"
#include "redisserver.h"
#include "testconsole.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include <signal.h>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;

namespace {

// The text of key's row in a section's table, in the column headed header.
QString cell(const MainWindow &window, const QString &section, const QByteArray &key,
             const QString &header)
{
    ObjectTableModel *model = window.model(section);
    const int row = model->rowOf(key);
    for (int c = 0; row >= 0 && c < model->columnCount(); ++c) {
        if (model->headerData(c, Qt::Horizontal).toString() == header)
            return model->index(row, c).data().toString();
    }
    return QStringLiteral("<no row or no column \"%1\">").arg(header);
}

// Clicks an action button of the page shown, accepts its confirmation and
// waits for the outcome sentence.
QString runAction(MainWindow &window, const char *buttonName)
{
    auto *button = window.findChild<QPushButton *>(QLatin1String(buttonName));
    if (!button)
        return QStringLiteral("<no button %1>").arg(QLatin1String(buttonName));
    if (!QTest::qWaitFor([&] { return button->isEnabled(); }, 10000))
        return QStringLiteral("<%1 stayed disabled: %2>")
            .arg(QLatin1String(buttonName), button->toolTip());
    QString outcome;
    const QMetaObject::Connection conn = QObject::connect(
        &window, &MainWindow::actionFinished, &window, [&](const QString &m) { outcome = m; });
    QObject owner;
    gatehouse::test::acceptNextConfirmation(&owner);
    button->click();
    (void)QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 10000);
    QObject::disconnect(conn);
    return outcome;
}

// Why a chart shown is not drawn across its whole width; empty when each is.
// A chart with no series yet (a new object) was drawn a few pixels wide.
QString chartsNotFull(const MainWindow &window)
{
    QStringList narrow;
    for (QCustomPlot *plot : window.findChildren<QCustomPlot *>()) {
        if (plot->isVisible() && plot->axisRect()->outerRect().width() < plot->width() * 9 / 10)
            narrow << QStringLiteral("a chart %1 px wide drawn %2 px wide")
                          .arg(plot->width())
                          .arg(plot->axisRect()->outerRect().width());
    }
    return narrow.join(QStringLiteral("; "));
}

} // namespace

class tst_SemaphoreLimitsGui : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        const QString missing = gatehouse::test::limiterLibrariesMissing();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
    }

    // A Semaphore holder killed with SIGKILL (no release, no refresh) turns
    // stale past its lock timeout, beside a MultiSemaphore holder of 2
    // permits acquired later and paused (SIGSTOP: a slow process whose
    // refresh, which would prune the stale one, is not yet due). The page
    // shows both under redis-semaphore; Release holder… on the stale one
    // removes it and only it, and the library's own tryAcquire, refused
    // before, then gets the permit it frees.
    void redisSemaphoreStaleHolderReleased()
    {
        const qint64 timeoutMs = 10000; // both holders' lockTimeout
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        const gatehouse::test::SemaphoreApp app{server.url()};
        const auto holding = [&](const QString &permits) {
            // hold KEY LIMIT PERMITS(0: a Semaphore) LOCK_TIMEOUT_MS
            return QStringList{QStringLiteral("hold"), QStringLiteral("jobs"), QStringLiteral("3"),
                               permits, QString::number(timeoutMs)};
        };
        const auto tryAcquire = [&] {
            // A long timeout of its own: its acquire prunes no holder.
            return app.run({QStringLiteral("try"), QStringLiteral("jobs"), QStringLiteral("3"),
                            QStringLiteral("600000")});
        };
        const auto serverNowMs = [&] {
            const RedisValue t = call(*redis, {"TIME"});
            return t.at(0).bytes().toLongLong() * 1000 + t.at(1).bytes().toLongLong() / 1000;
        };
        gatehouse::test::SemaphoreHolder killed;
        QVERIFY(killed.start(app, holding(QStringLiteral("0"))));
        const QByteArray stale = killed.identifier;
        killed.process->kill(); // SIGKILL: no release, no more refreshes
        killed.process->waitForFinished(10000);
        const qint64 acquiredAt
            = call(*redis, {"ZSCORE", "semaphore:jobs", stale}).bytes().toLongLong();
        QVERIFY(acquiredAt > 0);
        QVERIFY(QTest::qWaitFor([&] { return serverNowMs() - acquiredAt > timeoutMs * 7 / 10; },
                                30000));
        gatehouse::test::SemaphoreHolder live;
        const auto stopLive = qScopeGuard([&] {
            if (!live.process)
                return;
            ::kill(pid_t(live.process->processId()), SIGCONT);
            gatehouse::test::stopProcess(*live.process);
        });
        QVERIFY(live.start(app, holding(QStringLiteral("2"))));
        const QByteArray alive = live.identifier;
        QCOMPARE(::kill(pid_t(live.process->processId()), SIGSTOP), 0);
        QVERIFY(
            QTest::qWaitFor([&] { return serverNowMs() - acquiredAt > timeoutMs + 200; }, 30000));
        QVERIFY(!call(*redis, {"ZSCORE", "semaphore:jobs", stale}).isNil());
        QCOMPARE(tryAcquire(), QStringLiteral("full")); // 1 stale + 2 permits of 3

        TestConsole::Options options;
        options.autodetect = true;
        TestConsole c(server, m_dir.filePath(QStringLiteral("semaphore.jsonl")), options);
        c.window->resize(1400, 900);
        const QString section = QStringLiteral("semaphore");
        QVERIFY(c.select(section, "semaphore:jobs"));
        const ObjectState *s
            = c.window->model(section)->stateAt(c.window->model(section)->rowOf("semaphore:jobs"));
        QCOMPARE(s->object->kind.id(), QStringLiteral("redis-semaphore"));
        QTRY_COMPARE(cell(*c.window, section, "semaphore:jobs", QStringLiteral("Expired")),
                     QStringLiteral("1"));
        QCOMPARE(cell(*c.window, section, "semaphore:jobs", QStringLiteral("Library")),
                 QStringLiteral("redis-semaphore"));

        // The holders: the stale one, and the live one's 2 permits.
        auto *items = c.window->findChild<QTableWidget *>(QStringLiteral("semaphoreItems"));
        QVERIFY(items);
        QTRY_VERIFY(items->rowCount() >= 2);
        int staleRow = -1;
        int liveRow = -1;
        for (int r = 0; r < items->rowCount(); ++r) {
            if (items->item(r, 0)->text() == QString::fromUtf8(stale))
                staleRow = r;
            else if (items->item(r, 0)->text().startsWith(QString::fromUtf8(alive)))
                liveRow = r;
        }
        QVERIFY2(staleRow >= 0 && liveRow >= 0, qPrintable(QString::fromUtf8(stale + " " + alive)));
        QCOMPARE(items->item(staleRow, 4)->text(), QStringLiteral("stale"));
        QCOMPARE(items->item(liveRow, 4)->text(), QStringLiteral("holding"));
        QCOMPARE(items->item(liveRow, 1)->text(), QStringLiteral("2"));
        QTest::qWait(300); // the charts' queued replot
        QCOMPARE(chartsNotFull(*c.window), QString());
        QVERIFY(c.window->grab().save(
            QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/semaphores-redis-semaphore.png")));

        items->selectRow(staleRow);
        const QString outcome = runAction(*c.window, "releaseHolderButton");
        QVERIFY2(outcome.contains(QLatin1String("Released holder")), qPrintable(outcome));
        QVERIFY(call(*redis, {"ZSCORE", "semaphore:jobs", stale}).isNil());
        QCOMPARE(call(*redis, {"ZCARD", "semaphore:jobs"}).toInteger(), 2); // alive's 2 permits
        // The row follows: no stale holder left.
        QTRY_COMPARE(cell(*c.window, section, "semaphore:jobs", QStringLiteral("Expired")),
                     QStringLiteral("0"));
        // The library agrees: the one permit freed is acquired at once.
        QCOMPARE(tryAcquire(), QStringLiteral("acquired"));
        c.monitor()->stop();
    }

    // limits' fixed and moving windows: each under its strategy with the
    // count the library's own stats give; Reset… on the full moving window
    // clears it, and the library's stats then say every hit is free again.
    void pythonLimitsWindowsAndReset()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const gatehouse::test::LimitsApp app{server.url()};
        const auto limits = [&](const QString &command, const QStringList &args) {
            return app.run(command, args);
        };
        const QStringList fixed{QStringLiteral("fixed"), QStringLiteral("10/minute"),
                                QStringLiteral("api"), QStringLiteral("alice")};
        const QStringList moving{QStringLiteral("moving"), QStringLiteral("5/minute"),
                                 QStringLiteral("api"), QStringLiteral("bob")};
        QCOMPARE(limits(QStringLiteral("hit"),
                        {fixed.at(0), fixed.at(1), QStringLiteral("4"), fixed.at(2), fixed.at(3)}),
                 QStringLiteral("4"));
        QCOMPARE(limits(QStringLiteral("hit"), {moving.at(0), moving.at(1), QStringLiteral("7"),
                                                moving.at(2), moving.at(3)}),
                 QStringLiteral("5")); // two refused: the window is full
        const auto stats = [&](const QStringList &args) {
            return QJsonDocument::fromJson(limits(QStringLiteral("stats"), args).toUtf8()).object();
        };
        const QJsonObject fixedStats = stats(fixed);
        const QJsonObject movingStats = stats(moving);
        const QByteArray fixedKey = fixedStats[QStringLiteral("key")].toString().toUtf8();
        const QByteArray movingKey = movingStats[QStringLiteral("key")].toString().toUtf8();
        QVERIFY(!fixedKey.isEmpty() && !movingKey.isEmpty());

        TestConsole::Options options;
        options.autodetect = true;
        TestConsole c(server, m_dir.filePath(QStringLiteral("limits.jsonl")), options);
        c.window->resize(1400, 900);
        const QString section = QStringLiteral("limiter");
        QVERIFY(c.select(section, fixedKey));
        QVERIFY(c.select(section, movingKey));
        const auto used = [](const QJsonObject &st) {
            return QStringLiteral("%1 / %2")
                .arg(st[QStringLiteral("limit")].toInt() - st[QStringLiteral("remaining")].toInt())
                .arg(st[QStringLiteral("limit")].toInt());
        };
        QTRY_COMPARE(cell(*c.window, section, fixedKey, QStringLiteral("In window / limit")),
                     used(fixedStats));
        QTRY_COMPARE(cell(*c.window, section, movingKey, QStringLiteral("In window / limit")),
                     used(movingStats));
        QCOMPARE(used(movingStats), QStringLiteral("5 / 5"));
        QCOMPARE(cell(*c.window, section, fixedKey, QStringLiteral("Library")),
                 QStringLiteral("limits: fixed window"));
        QCOMPARE(cell(*c.window, section, movingKey, QStringLiteral("Library")),
                 QStringLiteral("limits: moving window"));

        QVERIFY(c.select(section, movingKey));
        QTest::qWait(300); // the charts' queued replot
        QCOMPARE(chartsNotFull(*c.window), QString());
        QVERIFY(c.window->grab().save(
            QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/limiters-python-limits.png")));
        const QString outcome = runAction(*c.window, "resetLimiterButton");
        QVERIFY2(!outcome.isEmpty() && !outcome.startsWith(QLatin1Char('<')), qPrintable(outcome));
        const QJsonObject after = stats(moving);
        QCOMPARE(after[QStringLiteral("remaining")].toInt(),
                 after[QStringLiteral("limit")].toInt());
        // The other window is untouched.
        QCOMPARE(stats(fixed)[QStringLiteral("remaining")].toInt(),
                 fixedStats[QStringLiteral("remaining")].toInt());
        QTRY_COMPARE(cell(*c.window, section, movingKey, QStringLiteral("In window / limit")),
                     QStringLiteral("0 / 5"));
        c.monitor()->stop();
    }
};

QTEST_MAIN(tst_SemaphoreLimitsGui)
#include "tst_semaphorelimitsgui.moc"
