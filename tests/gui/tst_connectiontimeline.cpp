// SPDX-License-Identifier: MIT
// An outage as an operator lives it, in the real window on a real server
// stopped and started again with no persistence: the Timeline page lists the
// connection lost, back, the restart and when the readings were whole again;
// the history file keeps them and `gatehouse-cli timeline` prints them; while
// the server is away a lock's "held for" stops at its last reading and says
// so, and the Overview's countdowns read unknown, never ticking on.
#include "testconsole.h"
#include "testshots.h"

#include <alerts/alertengine.h>
#include <alerts/builtinalerts.h>
#include <chartpanel.h>
#include <history/historystore.h>
#include <objecttablemodel.h>
#include <overviewpage.h>
#include <overviewtiles.h>
#include <panels/lock/locktimelinepanel.h>
#include <sectionpage.h>
#include <theme.h>
#include <timelinepage.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QPixmap>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTableWidget>
#include <QTemporaryDir>

#include <qcustomplot.h>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

// The seconds a tile's "lost in N s" gives; -1 for any other text.
int secondsLeft(const QString &countdown)
{
    static const QRegularExpression re(QStringLiteral("^lost in (\\d+) s$"));
    const QRegularExpressionMatch m = re.match(countdown);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

QStringList events(const TimelinePage *page)
{
    QStringList out;
    for (const ConnectionTimeline::Entry &e : page->timeline().entries())
        out << e.event;
    return out;
}

} // namespace

class tst_ConnectionTimeline : public QObject
{
    Q_OBJECT

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void outageAndRestart()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        {
            auto client = gatehouse::test::connectedClient(server);
            QVERIFY(client);
            for (int i = 0; i < 5; ++i)
                call(*client, {"SET", "sim:lock:" + QByteArray::number(i),
                               "holder-" + QByteArray::number(i * 7919), "PX", "600000"});
        }
        QTemporaryDir dir;
        TestConsole::Options options;
        options.historyFile = HistoryStore::fileFor(server.endpoint(), dir.path());
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")), options);
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        auto *page = c.window->findChild<TimelinePage *>();
        QVERIFY(page);
        QVERIFY(c.window->pageNames().contains(QStringLiteral("Timeline")));
        QTRY_VERIFY_WITH_TIMEOUT(events(page).contains(QStringLiteral("connected")), 10000);

        // A lock selected: its holder, held for so far.
        const QString section = QStringLiteral("lock");
        QVERIFY(c.select(section, "sim:lock:1"));
        auto *panel = c.window->sectionPage(section)->findChild<LockTimelinePanel *>();
        QVERIFY(panel);
        auto *holders = panel->findChild<QTableWidget *>(QStringLiteral("lockHolders"));
        QVERIFY(holders);
        QTRY_COMPARE_WITH_TIMEOUT(holders->rowCount(), 1, 10000);
        QVERIFY(!holders->item(0, 4)->text().contains(QLatin1String("no reading since")));

        server.stop();
        QTRY_VERIFY_WITH_TIMEOUT(events(page).contains(QStringLiteral("connectionLost")), 15000);
        // Offline: the holder's "held for" stops at the last reading and says so.
        QTRY_VERIFY_WITH_TIMEOUT(
            holders->item(0, 4)->text().contains(QLatin1String("no reading since")), 5000);
        const QString frozen = holders->item(0, 4)->text();
        QTest::qWait(2500);
        QCOMPARE(holders->item(0, 4)->text(), frozen);
        // The Overview: a countdown would read unknown (none here), and the
        // stuck tile never counts down from an old reading.
        c.window->showPage(0);
        auto *tiles = c.window->findChild<OverviewTiles *>();
        QVERIFY(tiles);
        QCOMPARE(tiles->tile(QStringLiteral("tileStuck"))->countdownText(), QString());

        QVERIFY2(server.start(), qPrintable(server.errorString())); // no persistence
        QTRY_VERIFY_WITH_TIMEOUT(events(page).contains(QStringLiteral("reconnected")), 15000);
        QTRY_VERIFY_WITH_TIMEOUT(events(page).contains(QStringLiteral("serverRestarted")), 15000);
        QTRY_VERIFY_WITH_TIMEOUT(events(page).contains(QStringLiteral("readingsWhole")), 15000);
        const QStringList seen = events(page);
        QVERIFY2(seen.indexOf(QStringLiteral("connectionLost"))
                         < seen.indexOf(QStringLiteral("reconnected"))
                     && seen.indexOf(QStringLiteral("serverRestarted"))
                            < seen.indexOf(QStringLiteral("readingsWhole")),
                 qPrintable(seen.join(QLatin1String(", "))));
        // The page lists them newest first, the restart's sentence in full.
        QTableWidget *table = page->table();
        QCOMPARE(table->rowCount(), int(page->timeline().entries().size()));
        QString restart;
        for (int r = 0; r < table->rowCount(); ++r) {
            if (table->item(r, 1)->text() == QLatin1String("Server restarted"))
                restart = table->item(r, 3)->text();
        }
        QVERIFY2(restart.contains(QLatin1String("5 keys before, 0 now")), qPrintable(restart));
        QCOMPARE(table->item(table->rowCount() - 1, 1)->text(), QStringLiteral("Connected"));
        // Newest first by time, not by when the console noticed each.
        for (int r = 1; r < table->rowCount(); ++r)
            QVERIFY2(table->item(r - 1, 0)->text() >= table->item(r, 0)->text(),
                     qPrintable(table->item(r - 1, 1)->text() + QLatin1String(" above ")
                                + table->item(r, 1)->text()));
        c.window->showPage(int(c.window->pageNames().indexOf(QStringLiteral("Timeline"))));
        if (qEnvironmentVariableIsSet("GATEHOUSE_TEST_SHOTS"))
            c.window->grab().save(qEnvironmentVariable("GATEHOUSE_TEST_SHOTS")
                                  + QStringLiteral("/timeline.png"));

        // Kept in the history file: gatehouse-cli prints the same timeline.
        gatehouse::test::CliRun run;
        QTRY_VERIFY_WITH_TIMEOUT(
            (run = gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                           {QStringLiteral("--url"), server.url(),
                                            QStringLiteral("--history-dir"), dir.path(),
                                            QStringLiteral("timeline"), QStringLiteral("--json")}))
                .out.contains(QLatin1String("readingsWhole")),
            10000);
        QCOMPARE(run.exitCode, 0);
        const QJsonArray list = QJsonDocument::fromJson(run.out.toUtf8())
                                    .object()[QStringLiteral("timeline")]
                                    .toArray();
        QStringList fromFile;
        for (const QJsonValue &v : list)
            fromFile << v[QStringLiteral("event")].toString();
        for (const QString &e : {QStringLiteral("connected"), QStringLiteral("connectionLost"),
                                 QStringLiteral("reconnected"), QStringLiteral("serverRestarted")})
            QVERIFY2(fromFile.contains(e), qPrintable(fromFile.join(QLatin1String(", "))));
        const gatehouse::test::CliRun text = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            {QStringLiteral("--url"), server.url(), QStringLiteral("--history-dir"), dir.path(),
             QStringLiteral("timeline")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(QLatin1String("Server restarted: The server at")),
                 qPrintable(text.out));
    }

    // A real Sidekiq worker killed -9 in the middle of a job: once its
    // heartbeat is old enough to call it dead, the Overview's Stuck tile
    // counts down in red to when its work hash expires (the work lost for
    // good), with the server's clock; the built-in alert fires with no rule
    // configured; with the server gone the countdown reads unknown.
    void sidekiqCountdown()
    {
        const QString ruby = QStringLiteral("/usr/bin/ruby");
        const QString sidekiqBin = QStringLiteral("/usr/bin/sidekiq");
        const QString app = LibrariesDir + QStringLiteral("/sidekiq_app.rb");
        QVERIFY2(QFile::exists(ruby) && QFile::exists(sidekiqBin),
                 "/usr/bin/ruby or /usr/bin/sidekiq is missing: run .ci/install-deps "
                 "(Debian ruby-sidekiq)");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        call(*client, {"SET", "hang", "1"});
        QProcess push;
        push.start(ruby, {app, server.url(), QStringLiteral("push"), QStringLiteral("HangJob"),
                          QStringLiteral("stuck-1")});
        QVERIFY(push.waitForFinished(60000));
        QCOMPARE(push.exitCode(), 0);
        QProcess worker;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("REDIS_URL"), server.url());
        worker.setProcessEnvironment(env);
        worker.setStandardOutputFile(server.dir() + QStringLiteral("/sidekiq.log"));
        worker.setStandardErrorFile(server.dir() + QStringLiteral("/sidekiq.log"));
        worker.start(sidekiqBin,
                     {QStringLiteral("-r"), app, QStringLiteral("-c"), QStringLiteral("1")});
        QVERIFY(worker.waitForStarted(10000));
        const auto stopWorker = qScopeGuard([&] {
            worker.kill();
            worker.waitForFinished(10000);
        });
        // Its heartbeat records the job it runs (Sidekiq 6: "<identity>:workers").
        const auto recorded = [&] {
            const QByteArray identity = call(*client, {"SRANDMEMBER", "processes"}).bytes();
            return !identity.isEmpty()
                   && call(*client, {"HLEN", identity + ":workers"}).toInteger() == 1
                   && call(*client, {"HGET", identity, "busy"}).bytes() == "1";
        };
        QTRY_VERIFY_WITH_TIMEOUT(recorded(), 60000);
        worker.kill();
        QVERIFY(worker.waitForFinished(10000));

        QTemporaryDir dir;
        QFile profile(dir.filePath(QStringLiteral("autodetect.json")));
        QVERIFY(profile.open(QIODevice::WriteOnly));
        profile.write(R"({"name": "autodetected", "autodetect": true, "rules": []})");
        profile.close();
        TestConsole::Options options;
        options.profile = profile.fileName();
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")), options);
        AlertEngine alerts;
        alerts.setRules(builtInAlertRules()); // nothing configured
        connect(c.monitor(), &Monitor::snapshotReady, &alerts, &AlertEngine::evaluate);
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        c.window->showPage(0);
        auto *tiles = c.window->findChild<OverviewTiles *>();
        QVERIFY(tiles);
        // Dead once its last beat is 20 s old; its hash expires 60 s after it.
        QTRY_VERIFY_WITH_TIMEOUT(
            secondsLeft(tiles->tile(QStringLiteral("tileStuck"))->countdownText()) > 0, 45000);
        const int first = secondsLeft(tiles->tile(QStringLiteral("tileStuck"))->countdownText());
        QVERIFY2(first <= 41,
                 qPrintable(tiles->tile(QStringLiteral("tileStuck"))->countdownText()));
        QVERIFY(tiles->tile(QStringLiteral("tileStuck"))->count() >= 1);
        QTRY_VERIFY_WITH_TIMEOUT(
            secondsLeft(tiles->tile(QStringLiteral("tileStuck"))->countdownText()) <= first - 2,
            5000);
        QTRY_COMPARE_WITH_TIMEOUT(alerts.firingCount(), 1, 5000);
        QCOMPARE(alerts.firing().first().rule.name, QStringLiteral("sidekiq-work-lost"));
        QCOMPARE(alerts.firing().first().rule.severity, AlertRule::Severity::Critical);
        // Its sentence names the deployment and the figure as the window does.
        const QString sentence = alerts.firing().first().sentence();
        QVERIFY2(sentence.startsWith(
                     QLatin1String("FIRING queue Sidekiq: Dead process's work lost in ")),
                 qPrintable(sentence));
        // The same deadline in the deployment's row, its Status cell critical
        // (red) ...
        ObjectTableModel *queues = c.window->model(QStringLiteral("queue"));
        QVERIFY(queues);
        QVERIFY(queues->rowOf("queues") >= 0);
        int statusColumn = -1;
        for (int column = 0; column < queues->columnCount(); ++column) {
            if (queues->headerData(column, Qt::Horizontal).toString() == QLatin1String("Status"))
                statusColumn = column;
        }
        QVERIFY(statusColumn >= 0);
        const auto status = [&] {
            return queues->index(queues->rowOf("queues"), statusColumn);
        };
        QTRY_VERIFY_WITH_TIMEOUT(status().data().toString().contains(QStringLiteral(" · lost in ")),
                                 5000);
        QCOMPARE(status().data(ObjectTableModel::SeverityRole).toInt(), int(Severity::Critical));
        // ... and in red in the Overview's attention line.
        auto *attention = c.window->findChild<QListWidget *>(QStringLiteral("attention"));
        QVERIFY(attention);
        const auto urgentLine = [&]() -> QListWidgetItem * {
            for (int i = 0; i < attention->count(); ++i) {
                if (attention->item(i)->text().contains(QLatin1String("lost for good in")))
                    return attention->item(i);
            }
            return nullptr;
        };
        QTRY_VERIFY_WITH_TIMEOUT(urgentLine(), 5000);
        QCOMPARE(urgentLine()->foreground().color(), theme::limit(attention->palette()));
        // ... and the stuck job's own row under the table, in the critical
        // badge's colours, saying when it is lost.
        QVERIFY(c.select(QStringLiteral("queue"), "queues"));
        auto *items = c.window->findChild<QTableWidget *>(QStringLiteral("queueItems"));
        QVERIFY(items);
        const auto stuckCell = [&]() -> QTableWidgetItem * {
            for (int r = 0; r < items->rowCount(); ++r) {
                for (int col = 0; col < items->columnCount(); ++col) {
                    if (items->item(r, col)
                        && items->item(r, col)->text().contains(QLatin1String("; lost in ")))
                        return items->item(r, col);
                }
            }
            return nullptr;
        };
        QTRY_VERIFY_WITH_TIMEOUT(stuckCell(), 5000);
        const theme::Badge critical = theme::badge(Severity::Critical, items->palette());
        QCOMPARE(stuckCell()->background().color(), critical.fill);
        QCOMPARE(stuckCell()->foreground().color(), critical.text);
        QCOMPARE(items->item(stuckCell()->row(), 0)->background().color(), critical.fill);
        // Under the stuck-job table at 1280x800 the charts keep their height
        // (the pane scrolls): none drawn over another, none cut.
        c.window->resize(1920, 1080);
        QTest::qWait(300);
        c.window->resize(1280, 800);
        const auto chartsApart = [&] {
            QList<QRect> shown;
            for (QCustomPlot *plot :
                 c.window->chart(QStringLiteral("queue"))->findChildren<QCustomPlot *>()) {
                if (!plot->isVisible())
                    continue;
                const QRect r = plot->geometry();
                if (r.height() < plot->minimumHeight()
                    || r.bottom() >= plot->parentWidget()->height())
                    return false;
                for (const QRect &other : std::as_const(shown)) {
                    if (other.intersects(r))
                        return false;
                }
                shown.append(r);
            }
            return shown.size() >= 2;
        };
        QTRY_VERIFY_WITH_TIMEOUT(chartsApart(), 5000);
        if (gatehouse::test::shotsWanted()) {
            QTest::qWait(1500); // the charts of the row just selected filled
            gatehouse::test::saveShots(*c.window, QStringLiteral("countdown"),
                                       {{QStringLiteral("queues"), c.window->currentPage()},
                                        {QStringLiteral("overview"), 0}});
        }
        c.window->showPage(0);

        server.stop();
        QTRY_COMPARE_WITH_TIMEOUT(tiles->tile(QStringLiteral("tileStuck"))->countdownText(),
                                  QStringLiteral("lost in: unknown (no reading now)"), 15000);
        QTest::qWait(1500);
        QCOMPARE(tiles->tile(QStringLiteral("tileStuck"))->countdownText(),
                 QStringLiteral("lost in: unknown (no reading now)"));
        // The attention line too: the last reading, said so, and no deadline
        // drawn from it while the server does not answer.
        const auto attentionLines = [&] {
            QStringList lines;
            for (int i = 0; i < attention->count(); ++i)
                lines << attention->item(i)->text();
            return lines.join(QLatin1String(" | "));
        };
        QTRY_VERIFY2_WITH_TIMEOUT(
            urgentLine() && urgentLine()->text().contains(QLatin1String(" ago (not known since)")),
            qPrintable(attentionLines()), 15000);
        QVERIFY2(urgentLine()->text().contains(QLatin1String(", as last read ")),
                 qPrintable(urgentLine()->text()));
        QVERIFY(urgentLine()->foreground().color() != theme::limit(attention->palette()));
        // The age of that reading grows while the server is silent (a frozen
        // server's line read "as last read 1 ms ago" for 20 s).
        const auto lastReadS = [&] {
            static const QRegularExpression age(
                QStringLiteral(", as last read (\\d+(?:\\.\\d+)?) s ago"));
            const QRegularExpressionMatch m
                = urgentLine() ? age.match(urgentLine()->text()) : QRegularExpressionMatch();
            return m.hasMatch() ? m.captured(1).toDouble() : -1.0;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(lastReadS() >= 3.0, qPrintable(attentionLines()), 10000);
    }
};

QTEST_MAIN(tst_ConnectionTimeline)
#include "tst_connectiontimeline.moc"
