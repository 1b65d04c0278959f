// SPDX-License-Identifier: MIT
// Two deployments side by side: two real redis-servers, a console window
// each (real client, monitor and window), and All Deployments fed by both
// monitors as the application feeds it. Each row counts what its own
// window's Overview tiles count; one server's outage greys its row (its
// last figures, said to be of then) while the other's keeps moving; back,
// it is read again. A double click opens the deployment's worst object.
#include "redisserver.h"
#include "testconsole.h"

#include <deploymentsoverview.h>
#include <englishplurals.h>
#include <overviewpage.h>
#include <overviewtiles.h>

#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;

class tst_DeploymentsGui : public QObject
{
    Q_OBJECT

private:
    RedisServer m_eu;
    RedisServer m_us;
    QTemporaryDir m_dir;
    QString m_profile;

    static const QString &stuck()
    {
        static const QString title = QStringLiteral("Stuck jobs");
        return title;
    }
    static const QString &limited()
    {
        static const QString title = QStringLiteral("Limiters ≥ 80 %");
        return title;
    }

    // eu: a reliable queue with two jobs claimed ten minutes ago (stuck after
    // 30 s); us: a limiter at 18 of 20.
    bool plant(RedisServer &server, bool queue)
    {
        auto client = test::connectedClient(server);
        if (!client)
            return false;
        const qint64 now = call(*client, {"TIME"}).at(0).toInteger() * 1000;
        QList<QList<QByteArray>> commands;
        if (queue) {
            commands << QList<QByteArray>{"RPUSH", "jobs:mail", "m1", "m2"}
                     << QList<QByteArray>{"RPUSH", "jobs:mail:processing", "p1", "p2"}
                     << QList<QByteArray>{"ZADD",
                                          "jobs:mail:claims",
                                          QByteArray::number(now - 600000),
                                          "p1",
                                          QByteArray::number(now - 590000),
                                          "p2"};
        } else {
            for (int i = 0; i < 18; ++i) {
                const QByteArray t = QByteArray::number(now - 20000 + i * 100);
                commands << QList<QByteArray>{"ZADD", "rl:api", t, t + "-" + QByteArray::number(i)};
            }
        }
        for (const auto &c : commands) {
            if (call(*client, c).isError())
                return false;
        }
        return true;
    }

private slots:
    void initTestCase()
    {
        QCoreApplication::installTranslator(new EnglishPlurals(this));
        QVERIFY2(m_eu.start(), qPrintable(m_eu.errorString()));
        QVERIFY2(m_us.start(), qPrintable(m_us.errorString()));
        QVERIFY(m_dir.isValid());
        QVERIFY(plant(m_eu, true));
        QVERIFY(plant(m_us, false));
        m_profile = m_dir.filePath(QStringLiteral("profile.json"));
        QFile profile(m_profile);
        QVERIFY(profile.open(QIODevice::WriteOnly));
        profile.write(R"({"name": "two-deployments", "rules": [
            {"pattern": "sliding-window", "match": "rl:*", "limit": 20, "window": 60, "windowUnit": "s"},
            {"pattern": "reliable-queue", "match": "jobs:*", "processingKey": "{key}:processing",
             "claimsKey": "{key}:claims", "stuckAfter": 30000}]})");
    }

    void cleanupTestCase()
    {
        m_eu.stop();
        m_us.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void sideBySide()
    {
        TestConsole::Options euOptions;
        euOptions.profile = m_profile;
        euOptions.environment = Environment::named(QStringLiteral("production"));
        TestConsole eu(m_eu, m_dir.filePath(QStringLiteral("eu-audit.log")), euOptions);
        TestConsole::Options usOptions;
        usOptions.profile = m_profile;
        usOptions.environment = Environment::named(QStringLiteral("staging"));
        TestConsole us(m_us, m_dir.filePath(QStringLiteral("us-audit.log")), usOptions);

        DeploymentsOverview overview;
        overview.resize(1100, 260);
        const int euId
            = overview.addDeployment(m_eu.endpoint().displayUrl(), euOptions.environment);
        const int usId
            = overview.addDeployment(m_us.endpoint().displayUrl(), usOptions.environment);
        connect(eu.monitor(), &Monitor::snapshotReady, &overview,
                [&](const Snapshot &s) { overview.setSnapshot(euId, s); });
        connect(us.monitor(), &Monitor::snapshotReady, &overview,
                [&](const Snapshot &s) { overview.setSnapshot(usId, s); });
        // Every window offers it: View > All Deployments (Ctrl+Shift+D), and
        // File > Open Another Deployment (Ctrl+Shift+O) asks for one more.
        for (TestConsole *c : {&eu, &us}) {
            auto *all = c->window->findChild<QAction *>(QStringLiteral("allDeployments"));
            QVERIFY(all);
            QCOMPARE(all->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+D")));
            QSignalSpy asked(c->window.get(), &MainWindow::allDeploymentsRequested);
            all->trigger();
            QCOMPARE(asked.size(), 1);
            auto *another
                = c->window->findChild<QAction *>(QStringLiteral("openAnotherDeployment"));
            QVERIFY(another);
            QCOMPARE(another->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+O")));
            QSignalSpy more(c->window.get(), &MainWindow::connectAnotherRequested);
            another->trigger();
            QCOMPARE(more.size(), 1);
        }
        overview.show();
        QCOMPARE(overview.deploymentCount(), 2);

        // Each row counts what its own window's tiles count, and nothing of
        // the other deployment's.
        const auto tileCount = [](const TestConsole &c, const char *name) {
            return c.window->findChild<OverviewPage *>()
                ->tiles()
                ->tile(QLatin1String(name))
                ->count();
        };
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return overview.cellText(euId, stuck()) == QLatin1String("2")
                                && overview.cellText(usId, limited()) == QLatin1String("1")
                                && tileCount(eu, "tileStuck") == 2
                                && tileCount(us, "tileLimited") == 1;
                     },
                     20000),
                 qPrintable(overview.cellText(euId, stuck()) + QLatin1Char('/')
                            + overview.cellText(usId, limited())));
        QCOMPARE(overview.cellText(euId, limited()), QStringLiteral("0"));
        QCOMPARE(overview.cellText(usId, stuck()), QStringLiteral("0"));
        QCOMPARE(overview.cellText(euId, QStringLiteral("Connection")), QStringLiteral("Live"));
        QCOMPARE(overview.cellText(usId, QStringLiteral("Connection")), QStringLiteral("Live"));
        QVERIFY(overview.cellText(euId, QStringLiteral("Deployment")).startsWith("PRODUCTION "));
        QVERIFY(!overview.isStale(euId) && !overview.isStale(usId));

        // A double click on eu's stuck jobs asks for eu's window on the queue.
        QSignalSpy open(&overview, &DeploymentsOverview::openRequested);
        QTableWidget *table = overview.table();
        const int stuckColumn = [&] {
            for (int c = 0; c < table->columnCount(); ++c) {
                if (table->horizontalHeaderItem(c)->text() == stuck())
                    return c;
            }
            return -1;
        }();
        QVERIFY(stuckColumn > 0);
        const QRect cell = table->visualRect(table->model()->index(0, stuckColumn));
        // As a user double-clicks: a press first (the view acts on the
        // index it was pressed on).
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.first().at(0).toInt(), euId);
        QCOMPARE(open.first().at(1).toString(), QStringLiteral("queue"));
        QCOMPARE(open.first().at(2).toByteArray(), QByteArray("jobs:mail"));

        QTest::qWait(300);
        QVERIFY(overview.grab().save(
            QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/deployments-overview.png")));

        // us goes down: its row keeps its last figures, greyed and said to
        // be of then; eu's row keeps moving (a third stuck job).
        m_us.kill();
        QVERIFY2(QTest::qWaitFor([&] { return overview.isStale(usId); }, 15000),
                 qPrintable(overview.cellText(usId, QStringLiteral("Connection"))));
        // Between attempts and during one alike: lost, with the time of its figures.
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return overview.cellText(usId, QStringLiteral("Connection"))
                             .startsWith(QLatin1String("Connection lost: figures of "));
                     },
                     5000),
                 qPrintable(overview.cellText(usId, QStringLiteral("Connection"))));
        QCOMPARE(overview.cellText(usId, limited()), QStringLiteral("1"));
        const int usRow = 1;
        const int limitedColumn = [&] {
            for (int c = 0; c < table->columnCount(); ++c) {
                if (table->horizontalHeaderItem(c)->text() == limited())
                    return c;
            }
            return -1;
        }();
        QVERIFY(table->item(usRow, limitedColumn)->font().italic());
        QVERIFY(
            table->item(usRow, limitedColumn)->toolTip().contains(QLatin1String("not current")));
        auto client = test::connectedClient(m_eu);
        QVERIFY(client);
        const qint64 now = call(*client, {"TIME"}).at(0).toInteger() * 1000;
        QVERIFY(!call(*client, {"RPUSH", "jobs:mail:processing", "p3"}).isError());
        QVERIFY(!call(*client, {"ZADD", "jobs:mail:claims", QByteArray::number(now - 120000), "p3"})
                     .isError());
        QVERIFY2(QTest::qWaitFor(
                     [&] { return overview.cellText(euId, stuck()) == QLatin1String("3"); }, 15000),
                 qPrintable(overview.cellText(euId, stuck())));
        QVERIFY(!overview.isStale(euId));
        QVERIFY(overview.findChild<QLabel *>(QStringLiteral("deploymentsSummary"))
                    ->text()
                    .contains(QLatin1String("1 not current")));
        QVERIFY(overview.grab().save(
            QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/deployments-overview-outage.png")));

        // Back, empty (no persistence): read again, the limiter no longer there.
        QVERIFY2(m_us.start(), qPrintable(m_us.errorString()));
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return !overview.isStale(usId)
                                && overview.cellText(usId, limited()) == QLatin1String("0");
                     },
                     30000),
                 qPrintable(overview.cellText(usId, QStringLiteral("Connection")) + QLatin1Char('/')
                            + overview.cellText(usId, limited())));
    }

    // What the Connection cell says in each state of the connection, the
    // figures being those of the last reading (its local time shown).
    void connectionInWords_data()
    {
        QTest::addColumn<ConnectionState>("state");
        QTest::addColumn<QString>("words");
        QTest::addColumn<bool>("stale");
        QTest::newRow("ready") << ConnectionState::Ready << QStringLiteral("Live") << false;
        QTest::newRow("between attempts") << ConnectionState::Reconnecting
                                          << QStringLiteral("Connection lost: figures of ") << true;
        QTest::newRow("during an attempt")
            << ConnectionState::Connecting << QStringLiteral("Connection lost: figures of ")
            << true;
        QTest::newRow("disconnected")
            << ConnectionState::Disconnected << QStringLiteral("Disconnected: figures of ") << true;
        QTest::newRow("given up") << ConnectionState::Failed
                                  << QStringLiteral("Not connected: figures of ") << true;
    }
    void connectionInWords()
    {
        QFETCH(ConnectionState, state);
        QFETCH(QString, words);
        QFETCH(bool, stale);
        DeploymentsOverview overview;
        const int id = overview.addDeployment(QStringLiteral("redis://10.0.0.5:6379"), {});
        QCOMPARE(overview.cellText(id, QStringLiteral("Connection")), QStringLiteral("Connecting"));
        Snapshot s;
        s.server.timeMs = 1'700'000'000'000;
        NodeStatus node;
        node.address = QStringLiteral("10.0.0.5:6379");
        node.connection.state = state;
        s.server.nodes = {node};
        overview.setSnapshot(id, s);
        overview.refresh();
        QVERIFY2(overview.cellText(id, QStringLiteral("Connection")).startsWith(words),
                 qPrintable(overview.cellText(id, QStringLiteral("Connection"))));
        QCOMPARE(overview.isStale(id), stale);
    }
};

QTEST_MAIN(tst_DeploymentsGui)
#include "tst_deploymentsgui.moc"
