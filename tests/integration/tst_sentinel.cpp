// SPDX-License-Identifier: MIT
// A real Sentinel deployment (a master, a replica, three sentinels): the
// console reaches the master from the sentinels' addresses (the first one
// down too), describes the master and its replica, and follows a SENTINEL
// FAILOVER and a kill -9 of the master while `watch` runs: it keeps running,
// marks readings stale in the gap, has every planted lock back once on the
// new master, and acts there; an action in the gap says it did not run, a
// command whose reply the crash lost says it may or may not have run. Bad
// Sentinel URLs, and a data server's URL at a sentinel, get sentences.
#include <monitor/monitor.h>
#include <redis/redisclient.h>
#include <redis/sentinelwatch.h>

#include "redissentinel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;

namespace {

constexpr int s_locks = 20;
const QByteArray s_token = "a1b2c3d4e5f60718";

QJsonObject lastObject(const QByteArray &lines)
{
    return QJsonDocument::fromJson(lines.trimmed().split('\n').last()).object();
}

// Planted lock keys in a snapshot: how many entries, and how many distinct.
QSet<QString> plantedLocks(const QJsonObject &snapshot, int *count, int *stale)
{
    QSet<QString> keys;
    *count = 0;
    *stale = 0;
    for (const QJsonValue &v : snapshot.value(QLatin1String("locks")).toArray()) {
        const QJsonObject lock = v.toObject();
        const QString key = lock.value(QLatin1String("key")).toString();
        if (!key.startsWith(QLatin1String("sim:lock:planted:")))
            continue;
        ++*count;
        keys.insert(key);
        if (lock.value(QLatin1String("stale")).toBool())
            ++*stale;
    }
    return keys;
}

QString masterOf(const QJsonObject &snapshot)
{
    const QJsonArray nodes = snapshot.value(QLatin1String("server"))
                                 .toObject()
                                 .value(QLatin1String("nodes"))
                                 .toArray();
    for (const QJsonValue &v : nodes) {
        if (v.toObject().value(QLatin1String("role")).toString() == QLatin1String("master"))
            return v.toObject().value(QLatin1String("address")).toString();
    }
    return QString();
}

} // namespace

class tst_Sentinel : public QObject
{
    Q_OBJECT

private:
    RedisSentinel m_sentinel{1};
    std::unique_ptr<RedisClient> m_client; // through the sentinels: the test's own writes

    CliRun cli(const QStringList &args, int timeoutMs = 60000)
    {
        return gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            QStringList{QStringLiteral("--url"), m_sentinel.url()} + args, {}, timeoutMs);
    }

    RedisEndpoint sentinelEndpoint()
    {
        QString error;
        auto ep = RedisEndpoint::fromUrl(m_sentinel.url(), &error);
        if (!ep)
            qWarning("%s", qPrintable(error));
        return ep.value_or(RedisEndpoint());
    }

    // Waits for the test's client to be on the master the sentinels name.
    bool clientOnMaster(int master)
    {
        return gatehouse::test::waitUntil(
            [&] {
                const RedisValue role = call(*m_client, {"ROLE"}, 2000);
                return role.isArray() && role.at(0).bytes() == "master"
                       && call(*m_client, {"CONFIG", "GET", "port"}, 2000)
                                  .elements()
                                  .value(1)
                                  .bytes()
                              == QByteArray::number(m_sentinel.node(master).port());
            },
            20000);
    }

    void plantLocks()
    {
        for (int i = 0; i < s_locks; ++i) {
            const RedisValue r
                = call(*m_client, {"SET", "sim:lock:planted:" + QByteArray::number(i), s_token,
                                   "PX", "600000"});
            QVERIFY2(!r.isError(), qPrintable(r.toDebugString()));
        }
        // On the replica before any failover: nothing planted may be lost.
        QCOMPARE(call(*m_client, {"WAIT", "1", "5000"}).toInteger(), 1);
    }

    // Runs watch across `event` (which returns the new master's index) and
    // checks: watch keeps running, follows the master, and ends with every
    // planted lock once and fresh. *sawStale: a reading in the gap was stale.
    void watchAcross(const std::function<int()> &event, bool *sawStale)
    {
        QProcess watch;
        watch.start(QStringLiteral(GATEHOUSE_CLI),
                    {QStringLiteral("--url"), m_sentinel.url(), QStringLiteral("watch"),
                     QStringLiteral("--json"), QStringLiteral("--profile"), QStringLiteral("demo"),
                     QStringLiteral("--interval"), QStringLiteral("200")});
        QVERIFY(watch.waitForStarted(10000));
        QByteArray lines;
        const auto readLines = [&] {
            lines += watch.readAllStandardOutput();
            return lines.count('\n');
        };
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         if (readLines() < 2)
                             return false;
                         int count = 0, stale = 0;
                         plantedLocks(lastObject(lines), &count, &stale);
                         return count == s_locks;
                     },
                     30000),
                 qPrintable(QString::fromUtf8(lines.right(2000) + watch.readAllStandardError())));
        QCOMPARE(lastObject(lines)
                     .value(QLatin1String("server"))
                     .toObject()
                     .value(QLatin1String("mode")),
                 QJsonValue(QStringLiteral("sentinel")));
        const qsizetype before = lines.size();
        const int master = event();
        QVERIFY2(master >= 0, qPrintable(m_sentinel.errorString()));
        const QString newAddress = m_sentinel.nodeAddress(master);
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         readLines();
                         const QJsonObject last = lastObject(lines);
                         int count = 0, stale = 0;
                         plantedLocks(last, &count, &stale);
                         return masterOf(last) == newAddress
                                && last.value(QLatin1String("server"))
                                           .toObject()
                                           .value(QLatin1String("connection"))
                                           .toString()
                                       == QLatin1String("ready")
                                && count == s_locks && stale == 0;
                     },
                     30000),
                 qPrintable(QString::fromUtf8(lines.right(3000) + watch.readAllStandardError())));
        QCOMPARE(watch.state(), QProcess::Running);
        watch.terminate();
        watch.waitForFinished(10000);
        // Every line after the event: planted locks never twice; stale ones seen.
        *sawStale = false;
        for (const QByteArray &line : lines.mid(before).trimmed().split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o.isEmpty())
                continue;
            int count = 0, stale = 0;
            const QSet<QString> keys = plantedLocks(o, &count, &stale);
            QCOMPARE(keys.size(), count);
            const QString state = o.value(QLatin1String("server"))
                                      .toObject()
                                      .value(QLatin1String("connection"))
                                      .toString();
            if (stale > 0 || state != QLatin1String("ready"))
                *sawStale = true;
        }
        int count = 0, stale = 0;
        QCOMPARE(plantedLocks(lastObject(lines), &count, &stale).size(), s_locks);
    }

private slots:
    void initTestCase()
    {
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(m_sentinel.start(), qPrintable(m_sentinel.errorString()));
        qInfo("master, replica and three sentinels up in %lld ms", clock.elapsed());
        m_client = gatehouse::test::connectedClient(sentinelEndpoint());
        QVERIFY(m_client);
        QVERIFY(m_client->topology().isSentinel());
        plantLocks();
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_sentinel.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // The first sentinel listed is down: the next one answers, and ping
    // prints the master and its replica.
    void firstSentinelDown()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 dead = probe.serverPort();
        probe.close();
        const QString url = QStringLiteral("redis-sentinel://127.0.0.1:%1,%2,%3#%4")
                                .arg(dead)
                                .arg(m_sentinel.sentinelAddress(1), m_sentinel.sentinelAddress(2),
                                     m_sentinel.masterName());
        const CliRun run = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI), {QStringLiteral("--url"), url, QStringLiteral("ping")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        const int master = m_sentinel.currentMaster();
        QVERIFY(
            run.out.contains(QStringLiteral("mode: sentinel (master \"%1\" at %2, 1 replicas")
                                 .arg(m_sentinel.masterName(), m_sentinel.nodeAddress(master))));
        QVERIFY2(run.out.contains(m_sentinel.nodeAddress(1 - master) + QStringLiteral("  replica")),
                 qPrintable(run.out));
    }

    // snapshot --json: server.mode "sentinel", the master and its replica.
    void snapshotJson()
    {
        const CliRun run = cli({QStringLiteral("snapshot"), QStringLiteral("--json"),
                                QStringLiteral("--profile"), QStringLiteral("demo")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject o = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const QJsonObject server = o.value(QLatin1String("server")).toObject();
        QCOMPARE(server.value(QLatin1String("mode")).toString(), QStringLiteral("sentinel"));
        const QJsonArray nodes = server.value(QLatin1String("nodes")).toArray();
        QCOMPARE(nodes.size(), 2);
        const int master = m_sentinel.currentMaster();
        QCOMPARE(nodes.at(0).toObject().value(QLatin1String("address")).toString(),
                 m_sentinel.nodeAddress(master));
        QCOMPARE(nodes.at(0).toObject().value(QLatin1String("role")).toString(),
                 QStringLiteral("master"));
        QCOMPARE(nodes.at(1).toObject().value(QLatin1String("address")).toString(),
                 m_sentinel.nodeAddress(1 - master));
        QCOMPARE(nodes.at(1).toObject().value(QLatin1String("role")).toString(),
                 QStringLiteral("replica"));
        int count = 0, stale = 0;
        QCOMPARE(plantedLocks(o, &count, &stale).size(), s_locks);
        QCOMPARE(count, s_locks);
        // Every object names the master holding it; the master says what a
        // failover would lose, naming its replica.
        for (const QJsonValue &v : o.value(QLatin1String("locks")).toArray()) {
            const QJsonObject held = v.toObject().value(QLatin1String("node")).toObject();
            QCOMPARE(held.value(QLatin1String("address")).toString(),
                     m_sentinel.nodeAddress(master));
            QCOMPARE(held.value(QLatin1String("role")).toString(), QStringLiteral("master"));
        }
        const QJsonObject d = nodes.at(0).toObject().value(QLatin1String("durability")).toObject();
        QCOMPARE(d.value(QLatin1String("replicas")).toArray().size(), 1);
        QVERIFY2(d.value(QLatin1String("sentence"))
                     .toString()
                     .startsWith(
                         QStringLiteral("replica %1 is ").arg(m_sentinel.nodeAddress(1 - master))),
                 qPrintable(d.value(QLatin1String("sentence")).toString()));
    }

    void badUrls_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("sentence");
        QTest::newRow("no master name")
            << QStringList{QStringLiteral("--url"),
                           QStringLiteral("redis-sentinel://127.0.0.1:26379")}
            << QStringLiteral("names no master: add #NAME");
        QTest::newRow("no address")
            << QStringList{QStringLiteral("--url"), QStringLiteral("redis-sentinel://#mymaster")}
            << QStringLiteral("no sentinel address is given");
        QTest::newRow("bad port") << QStringList{QStringLiteral("--url"),
                                                 QStringLiteral(
                                                     "redis-sentinel://127.0.0.1:99999#m")}
                                  << QStringLiteral("\"127.0.0.1:99999\" has no valid port");
        QTest::newRow("empty name")
            << QStringList{QStringLiteral("--url"), QStringLiteral("redis-sentinel://h:1#")}
            << QStringLiteral("the master's name after # is empty");
        QTest::newRow("master flag without sentinel")
            << QStringList{QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:6379"),
                           QStringLiteral("--sentinel-master"), QStringLiteral("m")}
            << QStringLiteral("need a Sentinel URL");
    }

    void badUrls()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, sentence);
        const CliRun run = gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                                   args + QStringList{QStringLiteral("ping")});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(sentence), qPrintable(run.err));
    }

    // A data server's URL at a sentinel's port: a Sentinel answers PING,
    // CLIENT and INFO as a server does, and ping said "mode: standalone",
    // exit 0, while every read or action failed later with "unknown command".
    // Now every command stops at once, exit 1, with the URL that reaches
    // the master; the console's monitor says the same and reads nothing.
    void dataUrlAtSentinel_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("ping") << QStringList{QStringLiteral("ping")};
        QTest::newRow("snapshot") << QStringList{QStringLiteral("snapshot"),
                                                 QStringLiteral("--json")};
        QTest::newRow("lock release") << QStringList{
            QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("lock:s:1"),
            QStringLiteral("--token"), QStringLiteral("t")};
    }

    void dataUrlAtSentinel()
    {
        QFETCH(QStringList, args);
        const QString at = m_sentinel.sentinelAddress(0);
        const QString expected
            = QStringLiteral("%1 is a Redis Sentinel, not a data server: it holds no keys. Connect "
                             "through it with redis-sentinel://%1#%2.")
                  .arg(at, m_sentinel.masterName());
        const CliRun run = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            QStringList{QStringLiteral("--url"), QStringLiteral("redis://") + at} + args);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(expected), qPrintable(run.err + run.out));
        QVERIFY2(!run.out.contains(QLatin1String("standalone")), qPrintable(run.out));
    }

    void monitorAtSentinel()
    {
        RedisEndpoint ep;
        ep.host = QStringLiteral("127.0.0.1");
        ep.port = quint16(m_sentinel.sentinelAddress(0).section(QLatin1Char(':'), 1).toUInt());
        RedisClient client(ep);
        client.open();
        QVERIFY(gatehouse::test::waitReady(client));
        Monitor monitor(&client, Monitor::Options());
        QSignalSpy failed(&monitor, &Monitor::failed);
        monitor.start();
        QVERIFY(failed.wait(5000));
        QVERIFY2(failed.at(0).at(0).toString().contains(
                     QStringLiteral("redis-sentinel://%1#%2")
                         .arg(m_sentinel.sentinelAddress(0), m_sentinel.masterName())),
                 qPrintable(failed.at(0).at(0).toString()));
        QVERIFY(monitor.snapshot().objects.isEmpty());
        // Said once, and nothing more is read (a tick would fail again).
        QTest::qWait(1500);
        QCOMPARE(failed.size(), 1);
    }

    // Real sentinels that monitor no master of that name: a sentence naming
    // each sentinel and what to check, and a non-zero exit.
    void unknownMaster()
    {
        QString url = m_sentinel.url();
        url.replace(QLatin1Char('#') + m_sentinel.masterName(), QStringLiteral("#nosuchmaster"));
        const CliRun run = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI), {QStringLiteral("--url"), url, QStringLiteral("ping")});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(QStringLiteral("No sentinel gave the address of master "
                                                 "\"nosuchmaster\"")),
                 qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("monitors no master of that name")),
                 qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("--sentinel-master")), qPrintable(run.err));
    }

    // No sentinel answers at all: one sentence naming what each said, its
    // clauses joined cleanly (no ".;"), and a non-zero exit.
    void noSentinelAnswers()
    {
        // Two ports nobody listens on: taken from the OS, then let go.
        QStringList addresses;
        for (int i = 0; i < 2; ++i) {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            addresses << QStringLiteral("127.0.0.1:%1").arg(probe.serverPort());
        }
        const QString url
            = QStringLiteral("redis-sentinel://%1#mymaster").arg(addresses.join(QLatin1Char(',')));
        const CliRun run = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI), {QStringLiteral("--url"), url, QStringLiteral("ping")});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(QStringLiteral("No sentinel gave the address of master "
                                                 "\"mymaster\"")),
                 qPrintable(run.err));
        QVERIFY2(!run.err.contains(QStringLiteral(".;")) && !run.err.contains(QStringLiteral("..")),
                 qPrintable(run.err));
        QVERIFY2(run.err.count(QStringLiteral("; ")) >= 1, qPrintable(run.err));
    }

    // SENTINEL FAILOVER under watch: the new master is followed, every lock
    // is back once; then an action runs on the new master.
    void watchThroughFailover()
    {
        bool sawStale = false;
        watchAcross([this] { return m_sentinel.failover(); }, &sawStale);
        if (QTest::currentTestFailed())
            return;
        const int master = m_sentinel.currentMaster();
        QVERIFY(clientOnMaster(master));
        const CliRun run = cli({QStringLiteral("lock"), QStringLiteral("release"),
                                QStringLiteral("sim:lock:planted:0"), QStringLiteral("--token"),
                                QString::fromUtf8(s_token)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(*m_client, {"EXISTS", "sim:lock:planted:0"}).toInteger(), 0);
        QCOMPARE(m_sentinel.cli(m_sentinel.node(master).port(),
                                {QStringLiteral("EXISTS"), QStringLiteral("sim:lock:planted:0")}),
                 QByteArray("0"));
        // Planted again for the next test; on the replica too, once the old
        // master has been turned into the new one's replica and synced.
        call(*m_client, {"SET", "sim:lock:planted:0", s_token, "PX", "600000"});
        // One WAIT at a time until one is acknowledged (a polling timer ran
        // WAITs inside WAITs, and asked once more after one succeeded, which
        // a replica resyncing in between could answer 0).
        QElapsedTimer synced;
        synced.start();
        bool acknowledged = false;
        while (!acknowledged && synced.elapsed() < 30000)
            acknowledged = call(*m_client, {"WAIT", "1", "500"}).toInteger() == 1;
        QVERIFY2(acknowledged, "the old master never acknowledged the write as a replica");
    }

    // kill -9 of the master under watch: readings go stale in the gap; a
    // script whose reply the crash lost "may or may not have run"; an action
    // started in the gap is refused before it is sent and leaves the lock;
    // after the sentinels promote the replica everything is back.
    void watchThroughKill()
    {
        bool sawStale = false;
        bool answered = false;
        int killed = -1;
        RedisValue lost;
        CliRun inGap;
        watchAcross(
            [&] {
                // A script that runs for 3 s: the crash takes its reply.
                m_client->command({"EVAL",
                                   "local t = redis.call('TIME') local e = t[1] + 3 "
                                   "while tonumber(redis.call('TIME')[1]) < e do end return 1",
                                   "0"},
                                  this, [&](const RedisValue &v) {
                                      lost = v;
                                      answered = true;
                                  });
                QTest::qWait(300);
                killed = m_sentinel.killMaster();
                gatehouse::test::waitUntil([&] { return answered; }, 5000);
                inGap = cli({QStringLiteral("lock"), QStringLiteral("release"),
                             QStringLiteral("sim:lock:planted:1"), QStringLiteral("--token"),
                             QString::fromUtf8(s_token)},
                            20000);
                return m_sentinel.waitNewMaster(killed, 40000);
            },
            &sawStale);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(killed >= 0);
        QVERIFY(sawStale);
        QVERIFY2(lost.isFailed(), qPrintable(lost.toDebugString()));
        QVERIFY2(lost.errorMessage().contains(QStringLiteral("may or may not have run")),
                 qPrintable(lost.errorMessage()));
        QVERIFY(inGap.exitCode != 0);
        QVERIFY2(inGap.err.contains(m_sentinel.nodeAddress(killed)), qPrintable(inGap.err));
        // Refused by the master the sentinels still name: said to be that,
        // with what to expect.
        if (inGap.err.contains(QLatin1String("connection refused")))
            QVERIFY2(inGap.err.contains(QStringLiteral("the master the sentinels name for \"%1\": "
                                                       "connection refused. If it is down, a "
                                                       "failover may be under way")
                                            .arg(m_sentinel.masterName())),
                     qPrintable(inGap.err));
        // The action in the gap did nothing: the lock is there on the new master.
        const int master = m_sentinel.currentMaster();
        QVERIFY(clientOnMaster(master));
        QCOMPARE(call(*m_client, {"GET", "sim:lock:planted:1"}).bytes(), s_token);
        const CliRun run = cli({QStringLiteral("lock"), QStringLiteral("release"),
                                QStringLiteral("sim:lock:planted:1"), QStringLiteral("--token"),
                                QString::fromUtf8(s_token)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(*m_client, {"EXISTS", "sim:lock:planted:1"}).toInteger(), 0);
        // The old master back, as a replica of the new one.
        QVERIFY(m_sentinel.node(killed).start());
    }
};

QTEST_GUILESS_MAIN(tst_Sentinel)
#include "tst_sentinel.moc"
