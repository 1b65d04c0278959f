// SPDX-License-Identifier: MIT
// One watched deployment as the console makes it (Deployment with the first
// connection retried, on a thread of its own, with actions, history and the
// demo's traffic) and as the CLI makes it (the first handshake failing fast),
// on real servers.

#include "redisserver.h"

#include <actions/actionengine.h>
#include <alerts/alertengine.h>
#include <deployment/deployment.h>
#include <history/historystore.h>
#include <monitor/connectiontimeline.h>
#include <monitor/profile.h>
#include <redis/redisclient.h>

#include <QDateTime>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

using namespace gatehouse;
using namespace gatehouse::test;

namespace {

// The connection of a snapshot's first node, as the console shows it.
ConnectionState stateOf(const Snapshot &s)
{
    return s.server.nodes.isEmpty() ? ConnectionState::Disconnected
                                    : s.server.nodes.first().connection.state;
}

// The clients connected to server other than the one asking.
int otherClients(RedisClient &client)
{
    const QByteArray list = call(client, {"CLIENT", "LIST"}).bytes();
    return int(list.count('\n')) - 1;
}

// A thread for a deployment, stopped when the test ends (the deployment,
// declared after it, goes first).
struct RunningThread : QThread
{
    RunningThread() { start(); }
    ~RunningThread() override
    {
        quit();
        wait();
    }
};

Monitor::Options demoMonitor()
{
    Monitor::Options options;
    QString error;
    options.profile = Profile::load(QStringLiteral("demo"), &error);
    options.intervalMs = 200;
    return options;
}

// A deployment as the console makes it: the demo's monitor on thread, the
// first connection retried.
Deployment::Options consoleShaped(const RedisServer &server, QThread *thread)
{
    Deployment::Options options;
    options.endpoint = server.endpoint();
    options.monitor = demoMonitor();
    options.retryFirstConnection = true;
    options.thread = thread;
    return options;
}

} // namespace

class tst_Deployment : public QObject
{
    Q_OBJECT

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    // The console's: the window has a monitor before the server answers,
    // says it is not connected, and shows the server's objects once it does;
    // every tick goes into the history file with the connection's timeline;
    // closing the window lets both connections go.
    void consoleWaitsForItsServer()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        server.stop(); // its port is known; nothing listens there yet

        RunningThread thread;
        QTemporaryDir dir;
        Deployment::Options options = consoleShaped(server, &thread);
        options.historyFile = dir.filePath(QStringLiteral("history.sqlite"));
        options.actions = true;
        options.readOnly = true;
        auto deployment = std::make_unique<Deployment>(options);
        QVERIFY(deployment->monitor());
        QCOMPARE(deployment->monitor()->thread(), &thread);
        QVERIFY(deployment->actions());
        QVERIFY(deployment->actions()->isReadOnly());
        QCOMPARE(deployment->actionsClient()->thread(), QThread::currentThread());
        QVERIFY(deployment->history());

        Snapshot last;
        connect(deployment.get(), &Deployment::snapshotReady, this,
                [&last](const Snapshot &s) { last = s; });
        QSignalSpy started(deployment.get(), &Deployment::started);
        QSignalSpy failed(deployment.get(), &Deployment::failed);
        deployment->start();
        // Not there: said, and retried rather than given up.
        QTRY_VERIFY_WITH_TIMEOUT(last.sequence > 0, 5000);
        QVERIFY(stateOf(last) != ConnectionState::Ready);
        QTest::qWait(1500);
        QCOMPARE(started.count(), 0);
        QCOMPARE(failed.count(), 0);

        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = connectedClient(server);
        QVERIFY(client);
        for (int i = 0; i < 3; ++i)
            call(*client, {"SET", "sim:lock:" + QByteArray::number(i),
                           "holder-" + QByteArray::number(i * 7919), "PX", "600000"});
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 15000);
        QTRY_COMPARE_WITH_TIMEOUT(last.objects.size(), 3, 10000);
        QCOMPARE(stateOf(last), ConnectionState::Ready);
        QVERIFY(deployment->isDiscovered());
        QCOMPARE(failed.count(), 0);
        // The monitor's and the actions' connections.
        QTRY_COMPARE_WITH_TIMEOUT(otherClients(*client), 2, 5000);

        // Written on the history's thread: the lock's figures and the
        // connection's first entry, read back as `gatehouse-cli timeline` does.
        const QString file = deployment->history()->path();
        QVERIFY(QTest::qWaitFor(
            [&] {
                deployment->history()->flush();
                QString error;
                const auto range = HistoryStore::read(file, "sim:lock:1", 0,
                                                      QDateTime::currentMSecsSinceEpoch(), &error);
                return range && !range->times.isEmpty();
            },
            10000));
        QString error;
        const auto events = HistoryStore::readEvents(
            file, 0, QDateTime::currentMSecsSinceEpoch() + 1000, QByteArray(), 100, &error);
        QVERIFY2(events, qPrintable(error));
        bool connected = false;
        for (const HistoryEvent &e : *events) {
            const auto entry = ConnectionTimeline::Entry::fromHistory(e.atMs, e.kind, e.text);
            connected = connected || (entry && entry->event == QLatin1String("connected"));
        }
        QVERIFY(connected);

        // Closed from this thread while its own runs: both connections go.
        deployment.reset();
        QTRY_COMPARE_WITH_TIMEOUT(otherClients(*client), 0, 5000);
    }

    // The CLI's: a server that is not there is a sentence at once, and no
    // monitor is made.
    void cliFailsFast()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        server.stop();
        Deployment::Options options;
        options.endpoint = server.endpoint();
        options.monitor = demoMonitor();
        Deployment deployment(options);
        QSignalSpy failed(&deployment, &Deployment::failed);
        QSignalSpy started(&deployment, &Deployment::started);
        deployment.start();
        QVERIFY(failed.wait(10000));
        const QString why = failed.first().first().toString();
        QVERIFY2(why.contains(QString::number(server.port())), qPrintable(why));
        QCOMPARE(started.count(), 0);
        QVERIFY(!deployment.monitor());
        QVERIFY(!deployment.actions());
    }

    // The console's alerts: the deployment evaluates its rules on the ticks
    // of a monitor on another thread, reports each transition on the thread
    // that made it (where the window shows it), and writes it into the
    // history file beside the figures.
    void alertsOnTheCreatingThread()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = connectedClient(server);
        QVERIFY(client);
        call(*client, {"SET", "sim:lock:a", "holder-1", "PX", "600000"});
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("history.sqlite"));
        QString error;
        const auto rule
            = AlertRule::parseExpression(QStringLiteral("pttlMs > 0 on lock as held"), &error);
        QVERIFY2(rule, qPrintable(error));
        RunningThread thread;
        Deployment::Options options = consoleShaped(server, &thread);
        options.historyFile = file;
        options.alerts = QList<AlertRule>{*rule};
        auto deployment = std::make_unique<Deployment>(options);
        AlertEngine *alerts = deployment->alerts();
        QVERIFY(alerts);
        QCOMPARE(alerts->thread(), QThread::currentThread());
        QList<AlertEvent> seen;
        bool onThisThread = true;
        connect(alerts, &AlertEngine::transition, this, [&](const AlertEvent &e) {
            seen << e;
            onThisThread = onThisThread && QThread::currentThread() == this->thread();
        });
        deployment->start();
        QTRY_COMPARE_WITH_TIMEOUT(alerts->firingCount(), 1, 10000);
        QCOMPARE(seen.size(), 1);
        QVERIFY(onThisThread);
        QCOMPARE(seen.first().state, AlertEvent::State::Fired);
        QCOMPARE(seen.first().key, QByteArray("sim:lock:a"));
        // Released: the rule resolves on the next reading.
        call(*client, {"PERSIST", "sim:lock:a"});
        QTRY_COMPARE_WITH_TIMEOUT(alerts->firingCount(), 0, 10000);
        QCOMPARE(seen.size(), 2);
        deployment.reset(); // the history file is closed, every event in it
        const auto events = HistoryStore::readEvents(file, 0, std::numeric_limits<qint64>::max(),
                                                     "sim:lock:a", 100, &error);
        QVERIFY2(events, qPrintable(error));
        QStringList kinds;
        for (const HistoryEvent &e : *events)
            kinds << e.kind;
        QVERIFY2(kinds.contains(QStringLiteral("alert.firing"))
                     && kinds.contains(QStringLiteral("alert.resolved")),
                 qPrintable(kinds.join(QLatin1String(", "))));
    }

    // The demo's traffic runs on the deployment's thread and writes only
    // the simulator's keys.
    void demoTrafficOnItsThread()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = connectedClient(server);
        QVERIFY(client);
        RunningThread thread;
        Deployment::Options options = consoleShaped(server, &thread);
        Simulator::Options sim;
        sim.seconds = 0;
        options.demoTraffic = sim;
        // No keyspace events here: what the traffic makes is found by a scan.
        options.monitor.rescanMs = 1000;
        auto deployment = std::make_unique<Deployment>(options);
        QVERIFY(!deployment->history());
        Snapshot last;
        connect(deployment.get(), &Deployment::snapshotReady, this,
                [&last](const Snapshot &s) { last = s; });
        deployment->start();
        QTRY_VERIFY_WITH_TIMEOUT(call(*client, {"DBSIZE"}).toInteger() > 10, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(last.objects.size() > 10, 15000);
        const RedisValue keys = call(*client, {"SCAN", "0", "COUNT", "1000"});
        for (const RedisValue &key : keys.at(1).elements())
            QVERIFY2(key.bytes().startsWith("sim:") || key.bytes().startsWith("{sim:"),
                     key.bytes().constData());
        deployment.reset(); // the traffic stops before this returns
        const qint64 keysAfter = call(*client, {"DBSIZE"}).toInteger();
        QTest::qWait(1000);
        QCOMPARE(otherClients(*client), 0);
        QVERIFY(call(*client, {"DBSIZE"}).toInteger() <= keysAfter); // only expiries now
    }
};

QTEST_GUILESS_MAIN(tst_Deployment)
#include "tst_deployment.moc"
