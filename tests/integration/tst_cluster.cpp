// SPDX-License-Identifier: MIT
// A real six-node Redis Cluster (three masters, three replicas): the console
// sees every object of every master from any one node's address, acts on
// keys another node owns, refuses a script whose keys span slots before
// anything is written, follows ASK and MOVED while a slot moves, and
// simulate spreads over every master and fails loudly when one is gone.
#include <redis/hashslot.h>
#include <redis/redisclient.h>
#include <redis/redisrouter.h>

#include "loopback.h"
#include "nodeapp.h"
#include "rediscluster.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTest>
#include <QUuid>

#include <csignal>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisCluster;
using gatehouse::test::RedisServer;

namespace {

constexpr int s_locks = 30;
constexpr int s_windows = 8;
constexpr int s_tokens = 10;

} // namespace

class tst_Cluster : public QObject
{
    Q_OBJECT

private:
    RedisCluster m_cluster;
    std::unique_ptr<RedisClient> m_client; // routed: the test's own writes and reads

    CliRun cli(int node, const QStringList &args, int timeoutMs = 60000)
    {
        return gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            QStringList{QStringLiteral("--url"), m_cluster.url(node)} + args, {}, timeoutMs);
    }

    static QSet<QString> keysOf(const QJsonObject &snapshot, const char *section,
                                const QString &prefix, int *count)
    {
        QSet<QString> keys;
        *count = 0;
        for (const QJsonValue &v : snapshot.value(QLatin1String(section)).toArray()) {
            const QString key = v.toObject().value(QLatin1String("key")).toString();
            if (!key.startsWith(prefix))
                continue;
            keys.insert(key);
            ++*count;
        }
        return keys;
    }

    // A key whose slot's master is not node `notNode`'s (nor its replica's):
    // name + n for the first n that lands elsewhere.
    QByteArray keyOwnedElsewhere(const QByteArray &name, int notNode, bool tagged)
    {
        for (int n = 0; n < 1000; ++n) {
            const QByteArray id = QByteArray::number(n);
            const QByteArray key
                = tagged ? QByteArray('{' + name + id + '}') : QByteArray(name + id);
            const int master = m_cluster.masterOf(keyHashSlot(key));
            if (master >= 0 && master != notNode && !isReplicaOf(notNode, master))
                return key;
        }
        return {};
    }

    bool isReplicaOf(int node, int master)
    {
        const QByteArray role = m_cluster.cli(node, {QStringLiteral("ROLE")});
        return role.startsWith("slave")
               && role.contains(QByteArray::number(m_cluster.node(master).port()));
    }

    QByteArray dump(const QByteArray &key)
    {
        return call(*m_client, {"DUMP", key}).toDebugString().toUtf8();
    }

private slots:
    void initTestCase()
    {
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
        qInfo("cluster of %d nodes up in %lld ms", m_cluster.size(), clock.elapsed());
        RedisEndpoint ep = m_cluster.endpoint(0);
        ep.discoverTopology = true;
        m_client = gatehouse::test::connectedClient(ep);
        QVERIFY(m_client);
        QVERIFY(m_client->topology().isCluster());
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_cluster.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // The topology read from one node: three masters covering every slot,
    // three replicas each naming its master.
    void topologyFromOneNode()
    {
        const Topology &t = m_client->topology();
        QCOMPARE(t.nodes.size(), 6);
        QCOMPARE(t.masters().size(), 3);
        int slotSum = 0;
        for (int m : t.masters())
            slotSum += t.nodes.at(m).slotCount();
        QCOMPARE(slotSum, Topology::SlotCount);
        for (const TopologyNode &n : t.nodes) {
            if (n.role == QLatin1String("replica"))
                QVERIFY(!n.masterId.isEmpty());
            QCOMPARE(n.health, QStringLiteral("online"));
        }
        for (int s : {0, 5000, 9000, 16383})
            QCOMPARE(t.nodes.at(t.ownerOf(quint16(s))).port,
                     m_cluster.node(m_cluster.masterOf(quint16(s))).port());

        // ping prints the topology: the mode, every node, its role and slots.
        const CliRun ping = cli(3, {QStringLiteral("ping")});
        QVERIFY2(ping.exitCode == 0, qPrintable(ping.err));
        QVERIFY2(ping.out.contains(QLatin1String("mode: cluster (3 masters, 3 replicas")),
                 qPrintable(ping.out));
        // The node named by what it is, in its mode (Valkey says so by
        // server_mode, Redis by redis_mode), never "standalone".
        const QString named = QStringLiteral("server: %1 %2 (cluster")
                                  .arg(RedisServer::serverProduct(), RedisServer::serverVersion());
        QVERIFY2(ping.out.contains(named), qPrintable(named + QLatin1String(" in: ") + ping.out));
        const CliRun json = cli(3, {QStringLiteral("ping"), QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject pong = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(pong.value(QLatin1String("serverMode")).toString(), QStringLiteral("cluster"));
        for (int i = 0; i < m_cluster.size(); ++i)
            QVERIFY2(ping.out.contains(m_cluster.address(i)), qPrintable(ping.out));
        QCOMPARE(ping.out.count(QLatin1String("  master  slots ")), 3);
        QCOMPARE(ping.out.count(QLatin1String("  replica  of ")), 3);
    }

    // Routing: keys of every slot written and read through one client, and a
    // multi-key command whose keys span slots refused before it is sent.
    void routing()
    {
        for (int i = 0; i < 200; ++i) {
            const QByteArray key = "route:" + QByteArray::number(i);
            QCOMPARE(call(*m_client, {"SET", key, QByteArray::number(i)}),
                     RedisValue::status("OK"));
        }
        QObject ctx;
        QList<RedisValue> replies;
        bool done = false;
        QList<RedisClient::Command> gets;
        for (int i = 0; i < 200; ++i)
            gets.append({"GET", "route:" + QByteArray::number(i)});
        m_client->pipeline(gets, &ctx, [&](const QList<RedisValue> &r) {
            replies = r;
            done = true;
        });
        QVERIFY(gatehouse::test::waitUntil([&] { return done; }, 10000));
        for (int i = 0; i < 200; ++i)
            QCOMPARE(replies.at(i).bytes(), QByteArray::number(i));
        // Every master got some of them.
        for (int m : m_cluster.masters())
            QVERIFY(m_cluster.cli(m, {QStringLiteral("DBSIZE")}).trimmed().toInt() > 0);

        const RedisValue cross = call(*m_client, {"MGET", "route:1", "route:2"});
        QCOMPARE(cross.errorCode(), QByteArray("CROSSSLOT"));
        QVERIFY2(cross.errorMessage().contains(QLatin1String("hash tag")),
                 qPrintable(cross.errorMessage()));
        QCOMPARE(call(*m_client, {"MGET", "{route}:1", "{route}:2"}).size(), 2);
        QCOMPARE(RedisRouter::keysOf({"EVALSHA", "abc", "2", "a", "b", "x"}),
                 (QList<QByteArray>{"a", "b"}));
        QCOMPARE(RedisRouter::keysOf({"LMOVE", "a", "b", "LEFT", "RIGHT"}),
                 (QList<QByteArray>{"a", "b"}));
        QCOMPARE(RedisRouter::keysOf({"TIME"}), QList<QByteArray>{});
    }

    // Discovery from EACH node's address gives the same complete set of
    // planted objects: none missing, none twice.
    void discoveryFromEveryNode()
    {
        for (int m : m_cluster.masters())
            QVERIFY(!m_cluster.cli(m, {QStringLiteral("FLUSHALL")}).isEmpty());
        const QByteArray nowMs
            = QByteArray::number(call(*m_client, {"TIME"}).at(0).toInteger() * 1000);
        for (int i = 0; i < s_locks; ++i)
            QCOMPARE(call(*m_client, {"SET", "sim:lock:" + QByteArray::number(i),
                                      "t0k3n" + QByteArray::number(i), "PX", "600000"}),
                     RedisValue::status("OK"));
        for (int i = 0; i < s_windows; ++i) {
            const QByteArray key = "sim:rl:api:{" + QByteArray::number(i) + '}';
            call(*m_client, {"ZADD", key, nowMs, nowMs + "-a"});
            call(*m_client, {"PEXPIRE", key, "600000"});
        }
        for (int i = 0; i < s_tokens; ++i)
            call(*m_client, {"SET", "sim:code:tok" + QByteArray::number(i), "{}", "EX", "600"});
        const QByteArray queue = "sim:jobs:{mail}";
        call(*m_client, {"LPUSH", queue, "j2", "j3"});
        call(*m_client, {"LPUSH", queue + ":processing", "j1"});
        call(*m_client, {"ZADD", queue + ":claims", nowMs, "j1"});

        QSet<QString> expectedLocks;
        for (int i = 0; i < s_locks; ++i)
            expectedLocks.insert(QStringLiteral("sim:lock:%1").arg(i));
        QSet<int> lockMasters;
        for (int i = 0; i < s_locks; ++i)
            lockMasters.insert(
                m_cluster.masterOf(keyHashSlot("sim:lock:" + QByteArray::number(i))));
        QCOMPARE(lockMasters.size(), 3);    // the locks really are spread
        QHash<QString, QString> lockMaster; // key -> its master's address
        for (int i = 0; i < s_locks; ++i) {
            const QByteArray key = "sim:lock:" + QByteArray::number(i);
            lockMaster.insert(QString::fromUtf8(key),
                              m_cluster.address(m_cluster.masterOf(keyHashSlot(key))));
        }

        for (int node = 0; node < m_cluster.size(); ++node) {
            QElapsedTimer clock;
            clock.start();
            const CliRun run = cli(node, {QStringLiteral("snapshot"), QStringLiteral("--json"),
                                          QStringLiteral("--profile"), QStringLiteral("demo")});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            qInfo("snapshot from %s in %lld ms", qPrintable(m_cluster.address(node)),
                  clock.elapsed());
            const QJsonObject s = QJsonDocument::fromJson(run.out.toUtf8()).object();
            int count = 0;
            QCOMPARE(keysOf(s, "locks", QStringLiteral("sim:lock:"), &count), expectedLocks);
            QCOMPARE(count, s_locks);
            keysOf(s, "limiters", QStringLiteral("sim:rl:api:"), &count);
            QCOMPARE(count, s_windows);
            keysOf(s, "queues", QStringLiteral("sim:jobs:"), &count);
            QCOMPARE(count, 1);
            const QJsonArray tokens = s.value(QLatin1String("tokens")).toArray();
            QCOMPARE(tokens.size(), 1);
            const QJsonObject server = s.value(QLatin1String("server")).toObject();
            QCOMPARE(server.value(QLatin1String("mode")).toString(), QStringLiteral("cluster"));
            const QJsonArray nodes = server.value(QLatin1String("nodes")).toArray();
            QCOMPARE(nodes.size(), 6);
            int masters = 0;
            int slotSum = 0;
            for (const QJsonValue &v : nodes) {
                const QJsonObject n = v.toObject();
                if (n.value(QLatin1String("role")).toString() == QLatin1String("master")) {
                    ++masters;
                    slotSum += n.value(QLatin1String("slotCount")).toInt();
                    QVERIFY(!n.value(QLatin1String("slots")).toString().isEmpty());
                }
                QCOMPARE(n.value(QLatin1String("state")).toString(), QStringLiteral("online"));
            }
            QCOMPARE(masters, 3);
            QCOMPARE(slotSum, Topology::SlotCount);
            // Every object names the master that holds it (by its key's slot).
            for (const QJsonValue &v : s.value(QLatin1String("locks")).toArray()) {
                const QJsonObject lock = v.toObject();
                const QString key = lock.value(QLatin1String("key")).toString();
                if (!lockMaster.contains(key))
                    continue;
                const QJsonObject held = lock.value(QLatin1String("node")).toObject();
                QCOMPARE(held.value(QLatin1String("address")).toString(), lockMaster.value(key));
                QCOMPARE(held.value(QLatin1String("role")).toString(), QStringLiteral("master"));
                QCOMPARE(held.value(QLatin1String("slot")).toInt(), int(keyHashSlot(key.toUtf8())));
            }
            // Every master says what a failover would lose: its one replica, named.
            for (const QJsonValue &v : nodes) {
                const QJsonObject n = v.toObject();
                if (n.value(QLatin1String("role")).toString() != QLatin1String("master"))
                    continue;
                const QJsonObject d = n.value(QLatin1String("durability")).toObject();
                QVERIFY2(d.value(QLatin1String("known")).toBool(),
                         qPrintable(QJsonDocument(n).toJson()));
                const QJsonArray replicas = d.value(QLatin1String("replicas")).toArray();
                QCOMPARE(replicas.size(), 1);
                const QString replica
                    = replicas.at(0).toObject().value(QLatin1String("address")).toString();
                QVERIFY(m_cluster.indexOfPort(quint16(replica.section(':', -1).toUInt())) >= 0);
                QVERIFY2(d.value(QLatin1String("sentence"))
                             .toString()
                             .startsWith(QStringLiteral("replica %1 is ").arg(replica)),
                         qPrintable(d.value(QLatin1String("sentence")).toString()));
            }
        }
    }

    // watch keeps running while `redis-cli --cluster reshard` moves the slots
    // of watched locks to another master: the readings follow MOVED, and
    // afterwards every lock is there once, fresh.
    void watchThroughReshard()
    {
        // The lock nearest the start of its master's slots: the fewest slots
        // to move so that it moves (reshard takes a source's slots in order).
        int bestLock = -1;
        int bestCount = Topology::SlotCount;
        int from = -1;
        const Topology topology = m_client->topology();
        for (int i = 0; i < s_locks; ++i) {
            const quint16 slot = keyHashSlot("sim:lock:" + QByteArray::number(i));
            const int owner = topology.ownerOf(slot);
            const int first = topology.nodes.at(owner).slotRanges.first().first;
            if (slot - first + 1 < bestCount) {
                bestCount = slot - first + 1;
                bestLock = i;
                from = m_cluster.indexOfPort(topology.nodes.at(owner).port);
            }
        }
        QVERIFY(bestLock >= 0 && from >= 0);
        int to = -1;
        for (int m : m_cluster.masters()) {
            if (m != from)
                to = m;
        }
        const QString fromId = QString::fromUtf8(
            m_cluster.cli(from, {QStringLiteral("CLUSTER"), QStringLiteral("MYID")}).trimmed());
        const QString toId = QString::fromUtf8(
            m_cluster.cli(to, {QStringLiteral("CLUSTER"), QStringLiteral("MYID")}).trimmed());

        QProcess watch;
        watch.start(QStringLiteral(GATEHOUSE_CLI),
                    {QStringLiteral("--url"), m_cluster.url(0), QStringLiteral("watch"),
                     QStringLiteral("--json"), QStringLiteral("--profile"), QStringLiteral("demo"),
                     QStringLiteral("--interval"), QStringLiteral("200")});
        QVERIFY(watch.waitForStarted(10000));
        QByteArray lines;
        const auto readLines = [&] {
            lines += watch.readAllStandardOutput();
            return lines.count('\n');
        };
        QVERIFY(gatehouse::test::waitUntil([&] { return readLines() >= 2; }, 20000));
        QElapsedTimer clock;
        clock.start();
        QByteArray output;
        const bool resharded = m_cluster.runCli(
            {QStringLiteral("--cluster"), QStringLiteral("reshard"), m_cluster.address(from),
             QStringLiteral("--cluster-from"), fromId, QStringLiteral("--cluster-to"), toId,
             QStringLiteral("--cluster-slots"), QString::number(bestCount),
             QStringLiteral("--cluster-yes")},
            &output, 120000);
        QVERIFY2(resharded, qPrintable(m_cluster.errorString()));
        qInfo("resharded %d slots in %lld ms", bestCount, clock.elapsed());
        const quint16 movedSlot = keyHashSlot("sim:lock:" + QByteArray::number(bestLock));
        QCOMPARE(m_cluster.masterOf(movedSlot, to), to);
        // Readings after the move: a few more ticks, then the last line.
        const qsizetype seen = readLines();
        QVERIFY(gatehouse::test::waitUntil([&] { return readLines() >= seen + 5; }, 20000));
        QCOMPARE(watch.state(), QProcess::Running);
        watch.terminate();
        watch.waitForFinished(10000);
        const QList<QByteArray> all = lines.trimmed().split('\n');
        const QJsonObject last = QJsonDocument::fromJson(all.last()).object();
        QSet<QString> locks;
        int count = 0;
        for (const QJsonValue &v : last.value(QLatin1String("locks")).toArray()) {
            const QJsonObject lock = v.toObject();
            const QString key = lock.value(QLatin1String("key")).toString();
            if (!key.startsWith(QLatin1String("sim:lock:")) || key.contains(QLatin1String("other")))
                continue;
            ++count;
            locks.insert(key);
            QVERIFY2(!lock.value(QLatin1String("stale")).toBool(), qPrintable(key));
            QVERIFY2(!lock.value(QLatin1String("gone")).toBool(), qPrintable(key));
        }
        QCOMPARE(count, s_locks);
        QCOMPARE(locks.size(), s_locks);
    }

    // CLUSTER FAILOVER of a master holding watched locks: watch keeps
    // running, the node list shows the promoted replica as a master, and
    // every lock is there once, fresh.
    void watchThroughFailover()
    {
        const quint16 slot = keyHashSlot("sim:lock:1");
        const int master = m_cluster.masterOf(slot);
        int replica = -1;
        for (int i = 0; i < m_cluster.size(); ++i) {
            if (i != master && isReplicaOf(i, master))
                replica = i;
        }
        QVERIFY(master >= 0 && replica >= 0);
        QProcess watch;
        watch.start(QStringLiteral(GATEHOUSE_CLI),
                    {QStringLiteral("--url"), m_cluster.url(0), QStringLiteral("watch"),
                     QStringLiteral("--json"), QStringLiteral("--profile"), QStringLiteral("demo"),
                     QStringLiteral("--interval"), QStringLiteral("200")});
        QVERIFY(watch.waitForStarted(10000));
        QByteArray lines;
        const auto readLines = [&] {
            lines += watch.readAllStandardOutput();
            return lines.count('\n');
        };
        QVERIFY(gatehouse::test::waitUntil([&] { return readLines() >= 2; }, 20000));
        QCOMPARE(m_cluster.cli(replica, {QStringLiteral("CLUSTER"), QStringLiteral("FAILOVER")})
                     .trimmed(),
                 QByteArray("OK"));
        QVERIFY(gatehouse::test::waitUntil(
            [&] { return m_cluster.masterOf(slot, master) == replica; }, 15000));
        QVERIFY(m_cluster.waitHealthy());
        // Past the router's topology refresh: the node list has the new roles.
        const qsizetype seen = readLines();
        QVERIFY(gatehouse::test::waitUntil(
            [&] {
                if (readLines() < seen + 5)
                    return false;
                const QJsonObject last
                    = QJsonDocument::fromJson(lines.trimmed().split('\n').last()).object();
                for (const QJsonValue &v : last.value(QLatin1String("server"))
                                               .toObject()
                                               .value(QLatin1String("nodes"))
                                               .toArray()) {
                    const QJsonObject n = v.toObject();
                    if (n.value(QLatin1String("address"))
                            .toString()
                            .endsWith(QString::number(m_cluster.node(replica).port())))
                        return n.value(QLatin1String("role")).toString() == QLatin1String("master");
                }
                return false;
            },
            RedisRouter::RefreshMs + 10000));
        QCOMPARE(watch.state(), QProcess::Running);
        watch.terminate();
        watch.waitForFinished(10000);
        const QJsonObject last
            = QJsonDocument::fromJson(lines.trimmed().split('\n').last()).object();
        QSet<QString> locks;
        int count = 0;
        for (const QJsonValue &v : last.value(QLatin1String("locks")).toArray()) {
            const QJsonObject lock = v.toObject();
            const QString key = lock.value(QLatin1String("key")).toString();
            if (!key.startsWith(QLatin1String("sim:lock:")) || key.contains(QLatin1String("other")))
                continue;
            ++count;
            locks.insert(key);
            QVERIFY2(!lock.value(QLatin1String("stale")).toBool(), qPrintable(key));
        }
        QCOMPARE(count, s_locks);
        QCOMPARE(locks.size(), s_locks);
    }

    // Actions on keys owned by a node other than the one addressed.
    void actionsOnOtherNodes()
    {
        const QByteArray lock = keyOwnedElsewhere("sim:lock:other", 0, false);
        QVERIFY(!lock.isEmpty());
        call(*m_client, {"SET", lock, "a1b2c3d4", "PX", "600000"});
        CliRun run
            = cli(0, {QStringLiteral("lock"), QStringLiteral("release"), QString::fromUtf8(lock),
                      QStringLiteral("--token"), QStringLiteral("a1b2c3d4")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(*m_client, {"EXISTS", lock}).toInteger(), 0);

        const QByteArray token = keyOwnedElsewhere("code:a1b2c3d4e5f6a7b8", 0, false);
        call(*m_client, {"SET", token, "{}", "EX", "600"});
        run = cli(0, {QStringLiteral("token"), QStringLiteral("revoke"), QString::fromUtf8(token)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(*m_client, {"EXISTS", token}).toInteger(), 0);

        // A queue whose keys share a hash tag: requeue runs on its node.
        const QByteArray q = keyOwnedElsewhere("q", 0, true);
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        call(*m_client, {"LPUSH", q + ":processing", "j1"});
        call(*m_client, {"ZADD", q + ":claims", QByteArray::number(now - 5000), "j1"});
        run = cli(0, {QStringLiteral("queue"), QStringLiteral("requeue"), QString::fromUtf8(q),
                      QStringLiteral("--job"), QStringLiteral("j1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(*m_client, {"LINDEX", q, "-1"}).bytes(), QByteArray("j1"));
        QCOMPARE(call(*m_client, {"LLEN", q + ":processing"}).toInteger(), 0);
    }

    // A requeue whose keys span slots is refused before it runs: the slots
    // and the hash tag are named, and nothing is written.
    void crossSlotActionRefused()
    {
        const QByteArray q = "orders";
        QVERIFY(keyHashSlot(q) != keyHashSlot(q + ":processing"));
        call(*m_client, {"DEL", q, q + ":processing", q + ":claims"});
        call(*m_client, {"LPUSH", q + ":processing", "j1"});
        const QList<QByteArray> keys{q, q + ":processing", q + ":claims"};
        QList<QByteArray> before;
        for (const QByteArray &k : keys)
            before << dump(k);
        const CliRun run
            = cli(1, {QStringLiteral("queue"), QStringLiteral("requeue"), QString::fromUtf8(q),
                      QStringLiteral("--job"), QStringLiteral("j1")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QString::number(keyHashSlot(q)))
                     && run.err.contains(QString::number(keyHashSlot(q + ":processing"))),
                 qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("{orders}")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("nothing ran")), qPrintable(run.err));
        QList<QByteArray> after;
        for (const QByteArray &k : keys)
            after << dump(k);
        QCOMPARE(after, before);
    }

    // A sliding-window limiter named by its key alone (its retry set
    // "KEY:retry" by convention, in another slot): the window is reset, and
    // the retry set is left where it is and said to be, not the whole reset
    // refused for a key one script cannot reach.
    void limiterResetAcrossSlots()
    {
        const QByteArray window = "rl:cluster:reset";
        const QByteArray retry = window + ":retry";
        QVERIFY(keyHashSlot(window) != keyHashSlot(retry));
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        for (int i = 0; i < 3; ++i)
            call(*m_client,
                 {"ZADD", window, QByteArray::number(now - i * 1000), "r" + QByteArray::number(i)});
        call(*m_client, {"ZADD", retry, QByteArray::number(now + 60000), "slot"});
        const CliRun run = cli(
            0, {QStringLiteral("limiter"), QStringLiteral("reset"), QString::fromUtf8(window)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(*m_client, {"EXISTS", window}).toInteger(), 0);
        QCOMPARE(call(*m_client, {"ZCARD", retry}).toInteger(), 1);
        QVERIFY2(run.out.contains(QLatin1String("is in another slot of the Cluster"))
                     && run.out.contains(QLatin1String("limiter clear-retry rl:cluster:reset")),
                 qPrintable(run.out));
        // The way it names: the retry slots go, said of the limiter.
        const QStringList clear{QStringLiteral("limiter"), QStringLiteral("clear-retry"),
                                QString::fromUtf8(window)};
        CliRun cleared = cli(0, clear);
        QVERIFY2(cleared.exitCode == 0, qPrintable(cleared.err + cleared.out));
        QVERIFY2(
            cleared.out.contains(QLatin1String("Deleted the retry slots of limiter "
                                               "\"rl:cluster:reset\" (rl:cluster:reset:retry).")),
            qPrintable(cleared.out));
        QCOMPARE(call(*m_client, {"EXISTS", retry}).toInteger(), 0);
        cleared = cli(0, clear);
        QCOMPARE(cleared.exitCode, 3);
        QVERIFY2(QString(cleared.out + cleared.err)
                     .contains(QLatin1String("Limiter \"rl:cluster:reset\" has no retry slots")),
                 qPrintable(cleared.out + cleared.err));
    }

    // A slot moved by hand (CLUSTER SETSLOT, MIGRATE): while it migrates a
    // read of its key follows ASK; once it has moved, MOVED updates the slot
    // map and the read follows it.
    void askAndMovedFollowed()
    {
        const QByteArray key = "moving:{m}";
        const quint16 slot = keyHashSlot(key);
        QCOMPARE(call(*m_client, {"SET", key, "here"}), RedisValue::status("OK"));
        const int from = m_cluster.masterOf(slot);
        int to = -1;
        for (int m : m_cluster.masters()) {
            if (m != from)
                to = m;
        }
        QVERIFY(from >= 0 && to >= 0);
        const QString fromId = QString::fromUtf8(
            m_cluster.cli(from, {QStringLiteral("CLUSTER"), QStringLiteral("MYID")}).trimmed());
        const QString toId = QString::fromUtf8(
            m_cluster.cli(to, {QStringLiteral("CLUSTER"), QStringLiteral("MYID")}).trimmed());
        const QString s = QString::number(slot);
        QCOMPARE(m_cluster
                     .cli(to, {QStringLiteral("CLUSTER"), QStringLiteral("SETSLOT"), s,
                               QStringLiteral("IMPORTING"), fromId})
                     .trimmed(),
                 QByteArray("OK"));
        QCOMPARE(m_cluster
                     .cli(from, {QStringLiteral("CLUSTER"), QStringLiteral("SETSLOT"), s,
                                 QStringLiteral("MIGRATING"), toId})
                     .trimmed(),
                 QByteArray("OK"));
        QCOMPARE(m_cluster
                     .cli(from, {QStringLiteral("MIGRATE"), QStringLiteral("127.0.0.1"),
                                 QString::number(m_cluster.node(to).port()), QString::fromUtf8(key),
                                 QStringLiteral("0"), QStringLiteral("5000")})
                     .trimmed(),
                 QByteArray("OK"));
        // Migrating: the old owner answers ASK; the client asks the new one.
        QCOMPARE(call(*m_client, {"GET", key}).bytes(), QByteArray("here"));
        QCOMPARE(m_client->topology().nodes.at(m_client->topology().ownerOf(slot)).port,
                 m_cluster.node(from).port()); // ASK does not move the slot

        for (int m : m_cluster.masters())
            m_cluster.cli(m, {QStringLiteral("CLUSTER"), QStringLiteral("SETSLOT"), s,
                              QStringLiteral("NODE"), toId});
        QVERIFY(gatehouse::test::waitUntil([&] { return m_cluster.masterOf(slot, from) == to; },
                                           10000));
        // Moved: MOVED from the old owner, followed, and the map updated.
        QCOMPARE(call(*m_client, {"GET", key}).bytes(), QByteArray("here"));
        QCOMPARE(call(*m_client, {"SET", key, "there"}), RedisValue::status("OK"));
        // The client's copy follows with the refresh the redirection asked for.
        QTRY_COMPARE_WITH_TIMEOUT(
            m_client->topology().nodes.at(m_client->topology().ownerOf(slot)).port,
            m_cluster.node(to).port(), 5000);
        QCOMPARE(m_cluster.cli(to, {QStringLiteral("GET"), QString::fromUtf8(key)}).trimmed(),
                 QByteArray("there"));
    }

    // simulate spreads its traffic over every master and exits 0.
    void simulateSpreads()
    {
        for (int m : m_cluster.masters())
            m_cluster.cli(m, {QStringLiteral("FLUSHALL")});
        const CliRun run = cli(
            0, {QStringLiteral("simulate"), QStringLiteral("--seconds"), QStringLiteral("2")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(QLatin1String(" 0 failed")), qPrintable(run.out));
        for (int m : m_cluster.masters()) {
            const int keys = m_cluster.cli(m, {QStringLiteral("DBSIZE")}).trimmed().toInt();
            QVERIFY2(keys > 0, qPrintable(m_cluster.address(m)));
        }
        // And the snapshot of it from a replica finds the simulated structures.
        const CliRun snap = cli(4, {QStringLiteral("snapshot"), QStringLiteral("--json"),
                                    QStringLiteral("--profile"), QStringLiteral("demo")});
        QVERIFY2(snap.exitCode == 0, qPrintable(snap.err));
        const QJsonObject s = QJsonDocument::fromJson(snap.out.toUtf8()).object();
        QVERIFY(s.value(QLatin1String("queues")).toArray().size() >= 1);
        QVERIFY(s.value(QLatin1String("limiters")).toArray().size() >= 4);
    }

    // A master gone: simulate counts what failed and exits non-zero.
    void simulateFailsWithNodeDown()
    {
        int victim = -1;
        for (int m : m_cluster.masters()) {
            if (m != 0)
                victim = m;
        }
        QVERIFY(victim > 0);
        m_cluster.node(victim).kill();
        const CliRun run
            = cli(0,
                  {QStringLiteral("simulate"), QStringLiteral("--seconds"), QStringLiteral("2"),
                   QStringLiteral("--allow-nonempty")}, // a node down: DBSIZE cannot be asked
                  120000);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QLatin1String("requests against"))
                     && run.err.contains(QLatin1String("failed")),
                 qPrintable(run.err));
    }

    // A master and its replica both down while `watch` starts: the scan of
    // their node gets no reply. That is a scan cut short, made again (2 s,
    // 4 s, ...), not a failure that ends the watch; it prints nothing from
    // part of the keyspace, and once the nodes are back its lines show the
    // lock on a master that stayed up.
    void watchGoesOnThroughAScanCutByADeadNode()
    {
        for (int i = 0; i < m_cluster.size(); ++i) {
            if (!m_cluster.node(i).isRunning())
                QVERIFY2(m_cluster.node(i).start(), qPrintable(m_cluster.node(i).errorString()));
        }
        QVERIFY(m_cluster.waitHealthy(30000));
        int master = -1;
        for (int m : m_cluster.masters()) {
            if (m != 0)
                master = m;
        }
        int replica = -1;
        for (int i = 0; i < m_cluster.size(); ++i) {
            if (i != master && isReplicaOf(i, master))
                replica = i;
        }
        QVERIFY(master > 0 && replica >= 0 && replica != 0);
        // A lock on a master that stays up: the watch must show it once a
        // scan is whole.
        const QByteArray key = keyOwnedElsewhere("sim:lock:alive:", master, false);
        QVERIFY(!key.isEmpty());
        // Right after the nodes of earlier tests are back, the first write
        // may meet the Cluster still settling (CLUSTERDOWN, a slot moving):
        // the setup is written once it is accepted.
        RedisValue set;
        QTRY_VERIFY2_WITH_TIMEOUT(
            (set
             = call(*m_client, {"SET", key, QUuid::createUuid().toByteArray(QUuid::WithoutBraces),
                                "PX", "600000"}))
                == RedisValue::status("OK"),
            qPrintable(set.toDebugString()), 15000);
        m_cluster.node(replica).kill();
        m_cluster.node(master).kill();

        QProcess watch;
        watch.start(QStringLiteral(GATEHOUSE_CLI),
                    {QStringLiteral("--url"), m_cluster.url(0), QStringLiteral("watch"),
                     QStringLiteral("--json"), QStringLiteral("--interval"),
                     QStringLiteral("200")});
        QVERIFY(watch.waitForStarted(10000));
        QTest::qWait(5000); // several cut scans
        QVERIFY2(watch.state() == QProcess::Running,
                 watch.readAllStandardError().constData()); // it used to end: "SCAN failed"

        QVERIFY2(m_cluster.node(master).start(), qPrintable(m_cluster.node(master).errorString()));
        QVERIFY2(m_cluster.node(replica).start(),
                 qPrintable(m_cluster.node(replica).errorString()));
        QVERIFY(m_cluster.waitHealthy(30000));
        QByteArray lines;
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         lines += watch.readAllStandardOutput();
                         const QList<QByteArray> all = lines.trimmed().split('\n');
                         return !all.isEmpty() && all.last().contains(QByteArray('"' + key + '"'));
                     },
                     30000),
                 watch.readAllStandardError().constData());
        QCOMPARE(watch.state(), QProcess::Running);
        watch.terminate();
        watch.waitForFinished(10000);
    }

    // A master that lists its keys (SCAN) but answers every key command with
    // CLUSTERDOWN (a slot it no longer serves): its keys are not silently
    // dropped; the snapshot says they could not be read and is not whole.
    void snapshotOfANodeThatCannotReadIsIncomplete()
    {
        QVERIFY(m_cluster.waitHealthy(30000));
        const QByteArray key = "sim:lock:down:1";
        const int owner = m_cluster.masterOf(keyHashSlot(key));
        QVERIFY(owner >= 0);
        QCOMPARE(call(*m_client, {"SET", key, "tok-down-1", "PX", "600000"}),
                 RedisValue::status("OK"));
        // Another of its slots unassigned: the node's cluster state fails.
        int slot = -1;
        for (int n = 0; n < 20000 && slot < 0; ++n) {
            const quint16 s = keyHashSlot("probe" + QByteArray::number(n));
            if (m_cluster.masterOf(s) == owner && s != keyHashSlot(key))
                slot = s;
        }
        QVERIFY(slot >= 0);
        m_cluster.cli(
            owner, {QStringLiteral("CLUSTER"), QStringLiteral("DELSLOTS"), QString::number(slot)});
        QTRY_VERIFY_WITH_TIMEOUT(
            m_cluster.cli(owner, {QStringLiteral("GET"), QString::fromUtf8(key)})
                .contains("CLUSTERDOWN"),
            10000);
        const CliRun run = cli(owner, {QStringLiteral("snapshot"), QStringLiteral("--json")});
        m_cluster.cli(
            owner, {QStringLiteral("CLUSTER"), QStringLiteral("ADDSLOTS"), QString::number(slot)});
        QCOMPARE(run.exitCode, 1);
        const QJsonObject server = QJsonDocument::fromJson(run.out.toUtf8())
                                       .object()
                                       .value(QLatin1String("server"))
                                       .toObject();
        QCOMPARE(server.value(QLatin1String("complete")).toBool(), false);
        QVERIFY2(QJsonDocument(server).toJson().contains("could not be read (CLUSTERDOWN"),
                 QJsonDocument(server).toJson().constData());
        QVERIFY(m_cluster.waitHealthy(30000));
    }

    // Real BullMQ on the Cluster, run as its documentation says (an ioredis
    // Cluster, the prefix in braces). Redis 7.0 refuses SORT ... GET in
    // Cluster mode, so the queue's active jobs are read by id: a job whose
    // worker was killed is stalled, in the first snapshot, and BullMQ's own
    // counts agree with the console's.
    void bullmqStalledJobOnACluster()
    {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty(),
                 "node is not installed: run .ci/install-deps");
        QVERIFY(m_cluster.waitHealthy(30000));
        gatehouse::test::NodeApp app{QStringLiteral("bullmq"), m_cluster.url(0)};
        app.queue = QStringLiteral("reports");
        app.env.insert(QStringLiteral("BULL_CLUSTER"), QStringLiteral("1"));
        app.env.insert(QStringLiteral("BULL_PREFIX"), QStringLiteral("{bq}"));
        QCOMPARE(app.run(QStringLiteral("produce"), QStringLiteral("3")), QString());
        auto hung = app.start(QStringLiteral("hang"), {}, "taken job-1");
        hung->kill();
        hung->waitForFinished(10000);
        QTRY_VERIFY_WITH_TIMEOUT(
            call(*m_client, {"EXISTS", "{bq}:reports:job-1:lock"}).toInteger() == 0, 15000);
        const QJsonObject counts = app.counts();
        QCOMPARE(counts.value(QLatin1String("active")).toInt(), 1);
        QCOMPARE(counts.value(QLatin1String("waiting")).toInt(), 2);

        const CliRun run = cli(1, {QStringLiteral("snapshot"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QJsonObject queue;
        const QJsonArray queues = QJsonDocument::fromJson(run.out.toUtf8())
                                      .object()
                                      .value(QLatin1String("queues"))
                                      .toArray();
        for (const QJsonValue &q : queues) {
            if (q[QLatin1String("key")].toString() == QLatin1String("{bq}:reports"))
                queue = q.toObject();
        }
        QVERIFY2(!queue.isEmpty(), qPrintable(run.out));
        const QJsonObject shown = queue.value(QLatin1String("counts")).toObject();
        QCOMPARE(shown.value(QLatin1String("active")).toInt(), 1);
        QCOMPARE(shown.value(QLatin1String("wait")).toInt(), 2);
        const QJsonArray stuck = queue.value(QLatin1String("stuck")).toArray();
        QVERIFY2(stuck.size() == 1, qPrintable(QJsonDocument(queue).toJson()));
        QCOMPARE(stuck.first()[QLatin1String("job")].toString(), QStringLiteral("job-1"));
        QVERIFY(stuck.first()[QLatin1String("sinceMs")].toDouble() > 0);
        // Its oldest waiting job's age is read by id too.
        QVERIFY2(!QJsonDocument(queue).toJson().contains("Cannot read"),
                 QJsonDocument(queue).toJson().constData());
        QVERIFY2(
            queue.value(QLatin1String("latency"))[QLatin1String("oldestWaitingAgeMs")].toDouble()
                > 0,
            QJsonDocument(queue).toJson().constData());
    }

    // One master asleep (SIGSTOP: its socket stays open, it answers
    // nothing): gatehouse_node_up says 0 for it within a few ticks, while
    // the masters that answer stay 1. Last: the Cluster fails it over.
    void frozenMasterIsDown()
    {
        int frozen = -1, awake = -1;
        for (const int m : m_cluster.masters()) {
            if (m == 0)
                continue;
            (frozen < 0 ? frozen : awake) = m;
        }
        QVERIFY(frozen > 0 && awake > 0);
        QProcess serve;
        serve.start(QStringLiteral(GATEHOUSE_CLI),
                    {QStringLiteral("--url"), m_cluster.url(0), QStringLiteral("--interval"),
                     QStringLiteral("200"), QStringLiteral("serve"), QStringLiteral("--metrics"),
                     QStringLiteral("127.0.0.1:0"), QStringLiteral("--seconds"),
                     QStringLiteral("60")});
        QVERIFY(serve.waitForStarted(10000));
        QVERIFY(serve.waitForReadyRead(15000));
        const QUrl url(QString::fromUtf8(serve.readLine()).trimmed().section(QLatin1Char(' '), -1));
        QNetworkAccessManager net;
        const auto up = [&](int node) {
            const QByteArray suffix = ':' + QByteArray::number(m_cluster.node(node).port()) + "\"}";
            for (const QByteArray &line :
                 gatehouse::test::httpRequest(net, "GET", url).body.split('\n')) {
                if (line.startsWith("gatehouse_node_up{") && line.contains(suffix))
                    return line.endsWith(" 1") ? 1 : 0;
            }
            return -1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(up(frozen) == 1 && up(awake) == 1 && up(0) == 1, 20000);
        const qint64 pid = m_cluster.node(frozen).pid();
        QVERIFY(pid > 0);
        ::kill(pid_t(pid), SIGSTOP);
        QElapsedTimer asleep;
        asleep.start();
        const bool down = QTest::qWaitFor([&] { return up(frozen) == 0; }, 10000);
        // The others stay up while it sleeps on (the node the URL names too,
        // whose tick the stall holds): sampled for 3 s more.
        int awakeThen = 1, namedThen = 1;
        for (int i = 0; down && i < 6; ++i) {
            QTest::qWait(500);
            awakeThen = std::min(awakeThen, up(awake));
            namedThen = std::min(namedThen, up(0));
        }
        ::kill(pid_t(pid), SIGCONT);
        QVERIFY2(down, "the frozen master was still up after 10 s");
        qInfo("a master frozen: up 0 after %lld ms", asleep.elapsed());
        QCOMPARE(awakeThen, 1);
        QCOMPARE(namedThen, 1);
        // Awake again (a replica now, or still the master): up again.
        QTRY_VERIFY_WITH_TIMEOUT(up(frozen) == 1, 30000);
        serve.terminate();
        serve.waitForFinished(10000);
    }
};

QTEST_GUILESS_MAIN(tst_Cluster)
#include "tst_cluster.moc"
