// SPDX-License-Identifier: MIT
// Keyspace events follow the masters: a monitor (what watch and the console
// run) with events live and a tick only every two minutes sees a write at
// once; after kill -9 of a Cluster master and after a Sentinel failover it
// subscribes on the new master, and a write there is seen at once again
// (no tick could have read it in that time). A key written while the
// subscription was cut (CLIENT KILL TYPE pubsub) is found once it is back,
// though no event announced it and no rescan is due. A key judged ordinary
// from its write event, then deleted and created again as a lock, is judged
// again.
#include <monitor/monitor.h>
#include <redis/hashslot.h>
#include <redis/redisclient.h>

#include "rediscluster.h"
#include "redissentinel.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QTest>

#include <functional>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisCluster;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;

namespace {

constexpr int s_slowTickMs = 120000; // no tick within a test step: only events read

QString tokenOf(Monitor &monitor, const QByteArray &key)
{
    const Snapshot s = monitor.snapshot();
    for (const ObjectState &o : s.objects) {
        if (o.object->key == key)
            return s.objectJson(o).value(QLatin1String("token")).toString();
    }
    return QString();
}

std::unique_ptr<Monitor> eventMonitor(RedisClient *client)
{
    Monitor::Options options;
    QString error;
    options.profile = Profile::load(QStringLiteral("demo"), &error);
    options.intervalMs = s_slowTickMs;
    options.rescanMs = 0;
    auto monitor = std::make_unique<Monitor>(client, options);
    monitor->start();
    return monitor;
}

bool setToken(RedisClient &client, const QByteArray &key, const QByteArray &token)
{
    return call(client, {"SET", key, token, "PX", "600000"}) == RedisValue::status("OK");
}

// Waits for the monitor to listen to events and show key's first token,
// then checks that a write reaches it through an event.
bool followsFirstEvent(Monitor &monitor, RedisClient &writer, const QByteArray &key)
{
    return gatehouse::test::waitUntil(
               [&] {
                   return monitor.snapshot().server.eventsLive
                          && tokenOf(monitor, key) == QLatin1String("before");
               },
               20000)
           && setToken(writer, key, "event-1")
           && gatehouse::test::waitUntil(
               [&] { return tokenOf(monitor, key) == QLatin1String("event-1"); }, 5000);
}

// After a failover: the writer's next write lands once the new master takes
// it, the monitor shows it, and then the one after, which nothing but the
// new master's keyspace events can bring within 5 s.
void followsEventsAfterFailover(Monitor &monitor, RedisClient &writer, const QByteArray &key,
                                const std::function<bool()> &landedOnPromoted = {})
{
    QVERIFY(gatehouse::test::waitUntil([&] { return setToken(writer, key, "event-2"); }, 20000));
    if (landedOnPromoted)
        QVERIFY(landedOnPromoted());
    QVERIFY2(gatehouse::test::waitUntil(
                 [&] { return tokenOf(monitor, key) == QLatin1String("event-2"); }, 10000),
             qPrintable(tokenOf(monitor, key)));
    // Events live on the new master: the master switch may be seen (and the
    // subscription renewed and verified) only after event-2 was read.
    QVERIFY(
        gatehouse::test::waitUntil([&] { return monitor.snapshot().server.eventsLive; }, 20000));
    QVERIFY(setToken(writer, key, "event-3"));
    QVERIFY2(gatehouse::test::waitUntil(
                 [&] { return tokenOf(monitor, key) == QLatin1String("event-3"); }, 5000),
             qPrintable(tokenOf(monitor, key)));
}

// Cuts the subscriptions of the server behind client and, in the same
// pipeline (before the subscriber can be back), writes a new lock: no
// subscription exists to announce it.
bool killSubscriptionsAndWrite(RedisClient &client, const QByteArray &key)
{
    gatehouse::test::ReplyWait wait;
    QList<RedisValue> replies;
    client.pipeline({{"CLIENT", "KILL", "TYPE", "pubsub"}, {"SET", key, "gap", "PX", "600000"}},
                    &client, [&](const QList<RedisValue> &r) {
                        replies = r;
                        wait.finish();
                    });
    return wait.wait(10000) && replies.size() == 2 && replies.at(0).toInteger() >= 1
           && replies.at(1) == RedisValue::status("OK");
}

// "addr role, ..." of the monitor's nodes, for a failure's message.
QString nodesText(const ServerStatus &s)
{
    QStringList out;
    for (const NodeStatus &n : s.nodes)
        out << n.address + QLatin1Char(' ') + n.role;
    return out.join(QLatin1String(", "));
}

} // namespace

class tst_EventsFailover : public QObject
{
    Q_OBJECT

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void subscriptionCut()
    {
        RedisServer::Options options;
        options.config << QStringLiteral("notify-keyspace-events KEA");
        RedisServer server(options);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto writer = gatehouse::test::connectedClient(server);
        QVERIFY(writer);
        const QByteArray key = "sim:lock:cut";
        QVERIFY(setToken(*writer, key, "before"));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        auto monitor = eventMonitor(client.get());
        QVERIFY(followsFirstEvent(*monitor, *writer, key));

        QElapsedTimer since;
        since.start();
        QVERIFY(killSubscriptionsAndWrite(*writer, "sim:lock:gap"));
        QVERIFY2(
            gatehouse::test::waitUntil(
                [&] { return tokenOf(*monitor, "sim:lock:gap") == QLatin1String("gap"); }, 5000),
            "a key written while the subscription was cut is not shown");
        qInfo("shown %lld ms after the subscription was cut", qint64(since.elapsed()));
        // Events are live again, and a write is seen through them.
        QVERIFY(gatehouse::test::waitUntil([&] { return monitor->snapshot().server.eventsLive; },
                                           10000));
        QVERIFY(setToken(*writer, key, "event-2"));
        QVERIFY(gatehouse::test::waitUntil(
            [&] { return tokenOf(*monitor, key) == QLatin1String("event-2"); }, 5000));
        monitor.reset();
    }

    void keyCreatedAgainIsJudgedAgain()
    {
        RedisServer::Options options;
        options.config << QStringLiteral("notify-keyspace-events KEA");
        RedisServer server(options);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto writer = gatehouse::test::connectedClient(server);
        QVERIFY(writer);
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        Monitor::Options autodetect; // no profile: what the events' keys are is judged
        autodetect.intervalMs = s_slowTickMs;
        autodetect.rescanMs = 0;
        Monitor monitor(client.get(), autodetect);
        monitor.start();
        QVERIFY(gatehouse::test::waitUntil([&] { return monitor.snapshot().server.eventsLive; },
                                           20000));
        // A value no lock holds, judged from its write event (after at most
        // EventKeyJudge::EveryMs), and not shown.
        const QByteArray key = "orders:lock:7f3a";
        QCOMPARE(call(*writer, {"SET", key, "hello"}), RedisValue::status("OK"));
        QTest::qWait(1000);
        QVERIFY(tokenOf(monitor, key).isEmpty());
        // Released and taken as a lock: a new key, judged again at its write.
        QCOMPARE(call(*writer, {"DEL", key}).toInteger(), 1);
        QVERIFY(setToken(*writer, key, "9c2e1b7d4a6085c1ef3a"));
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] { return tokenOf(monitor, key) == QLatin1String("9c2e1b7d4a6085c1ef3a"); },
                     5000),
                 "a key created again as a lock is not shown");
    }

    void clusterSubscriptionsCut()
    {
        RedisCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        for (int i = 0; i < cluster.size(); ++i)
            QCOMPARE(cluster
                         .cli(i, {QStringLiteral("CONFIG"), QStringLiteral("SET"),
                                  QStringLiteral("notify-keyspace-events"), QStringLiteral("KEA")})
                         .trimmed(),
                     QByteArray("OK"));
        const QList<int> masters = cluster.masters();
        QVERIFY(masters.size() >= 3);
        RedisEndpoint ep = cluster.endpoint(masters.first());
        ep.discoverTopology = true;
        auto writer = gatehouse::test::connectedClient(ep);
        QVERIFY(writer);
        const QByteArray key = "sim:lock:cut";
        QVERIFY(setToken(*writer, key, "before"));
        auto client = gatehouse::test::connectedClient(ep);
        QVERIFY(client);
        auto monitor = eventMonitor(client.get());
        QVERIFY(followsFirstEvent(*monitor, *writer, key));

        // Every master's subscription cut, each with a new key in its slots:
        // the monitor's first subscriber and the others alike.
        QList<QByteArray> gapKeys;
        for (int m : masters) {
            QByteArray gapKey;
            for (int n = 0; gapKey.isEmpty(); ++n) {
                const QByteArray candidate = "sim:lock:gap-" + QByteArray::number(n);
                if (cluster.masterOf(keyHashSlot(candidate)) == m && !gapKeys.contains(candidate))
                    gapKey = candidate;
            }
            RedisEndpoint node = cluster.endpoint(m);
            node.discoverTopology = false;
            auto direct = gatehouse::test::connectedClient(node);
            QVERIFY(direct);
            QVERIFY2(killSubscriptionsAndWrite(*direct, gapKey), qPrintable(cluster.address(m)));
            gapKeys << gapKey;
        }
        for (const QByteArray &gapKey : std::as_const(gapKeys))
            QVERIFY2(gatehouse::test::waitUntil(
                         [&] { return tokenOf(*monitor, gapKey) == QLatin1String("gap"); }, 5000),
                     gapKey.constData());
        QVERIFY(gatehouse::test::waitUntil([&] { return monitor->snapshot().server.eventsLive; },
                                           10000));
        monitor.reset();
    }

    void clusterMasterKilled()
    {
        RedisCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        for (int i = 0; i < cluster.size(); ++i)
            QCOMPARE(cluster
                         .cli(i, {QStringLiteral("CONFIG"), QStringLiteral("SET"),
                                  QStringLiteral("notify-keyspace-events"), QStringLiteral("KEA")})
                         .trimmed(),
                     QByteArray("OK"));
        const QByteArray key = "sim:lock:failover";
        const quint16 slot = keyHashSlot(key);
        const int master = cluster.masterOf(slot);
        QVERIFY(master >= 0);
        // The monitor starts from another master, which stays up.
        int seed = -1;
        for (int m : cluster.masters()) {
            if (m != master)
                seed = m;
        }
        QVERIFY(seed >= 0);
        RedisEndpoint ep = cluster.endpoint(seed);
        ep.discoverTopology = true;
        auto writer = gatehouse::test::connectedClient(ep);
        QVERIFY(writer);
        QVERIFY(setToken(*writer, key, "before"));

        auto client = gatehouse::test::connectedClient(ep);
        QVERIFY(client);
        auto monitor = eventMonitor(client.get());
        QVERIFY(followsFirstEvent(*monitor, *writer, key));

        cluster.node(master).kill();
        int promoted = -1;
        QVERIFY(gatehouse::test::waitUntil(
            [&] {
                promoted = cluster.masterOf(slot, seed);
                return promoted >= 0 && promoted != master;
            },
            30000));
        // The monitor's masters include the promoted one, and it listens there.
        const QString promotedAddress = cluster.address(promoted);
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         const ServerStatus s = monitor->snapshot().server;
                         bool listed = false;
                         for (const NodeStatus &n : s.nodes)
                             listed |= n.address == promotedAddress
                                       && n.role == QLatin1String("master");
                         return listed && s.eventsLive;
                     },
                     30000),
                 qPrintable(QStringLiteral("promoted %1; nodes %2; events %3")
                                .arg(promotedAddress, nodesText(monitor->snapshot().server),
                                     monitor->snapshot().server.eventsLive
                                         ? QStringLiteral("live")
                                         : QStringLiteral("not live"))));
        // Writes on the new master, seen through its keyspace events.
        followsEventsAfterFailover(*monitor, *writer, key);
        monitor.reset();
    }

    void sentinelSwitch()
    {
        RedisSentinel sentinel(1);
        QVERIFY2(sentinel.start(), qPrintable(sentinel.errorString()));
        for (int i = 0; i < sentinel.nodeCount(); ++i)
            QCOMPARE(
                sentinel.cli(sentinel.node(i).port(),
                             {QStringLiteral("CONFIG"), QStringLiteral("SET"),
                              QStringLiteral("notify-keyspace-events"), QStringLiteral("KEA")}),
                QByteArray("OK"));
        QString error;
        const auto ep = RedisEndpoint::fromUrl(sentinel.url(), &error);
        QVERIFY2(ep, qPrintable(error));
        auto writer = gatehouse::test::connectedClient(*ep);
        QVERIFY(writer);
        const QByteArray key = "sim:lock:switch";
        QVERIFY(setToken(*writer, key, "before"));
        auto client = gatehouse::test::connectedClient(*ep);
        QVERIFY(client);
        auto monitor = eventMonitor(client.get());
        QVERIFY(followsFirstEvent(*monitor, *writer, key));

        const int promoted = sentinel.failover();
        QVERIFY2(promoted >= 0, qPrintable(sentinel.errorString()));
        const QString promotedAddress = sentinel.nodeAddress(promoted);
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         const ServerStatus s = monitor->snapshot().server;
                         return s.nodes.value(0).address == promotedAddress && s.eventsLive;
                     },
                     30000),
                 qPrintable(monitor->snapshot().server.nodes.value(0).address));
        // The writer follows the switch too; its write lands on the new master.
        followsEventsAfterFailover(*monitor, *writer, key, [&] {
            return sentinel.cli(sentinel.node(promoted).port(),
                                {QStringLiteral("GET"), QString::fromUtf8(key)})
                   == QByteArray("event-2");
        });
        monitor.reset();
    }
};

QTEST_GUILESS_MAIN(tst_EventsFailover)
#include "tst_eventsfailover.moc"
