// SPDX-License-Identifier: MIT
// --read-from replicas against a real six-node Cluster and a real Sentinel
// set: discovery and refresh are served by the replicas (their INFO
// commandstats grow, the masters' SCAN and read counters stay at zero), each
// object names the replica it is read from, actions still land on the master,
// and a master whose replica is gone is read itself, with the reason stated.
#include <redis/hashslot.h>
#include <redis/redisclient.h>

#include "rediscluster.h"
#include "redissentinel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisCluster;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;

namespace {

constexpr int s_locks = 24;
const QByteArray s_token = "r3pl1c4t0k3n";

// Calls of each command in an INFO commandstats reply: "scan" -> 12.
QHash<QString, qint64> commandCalls(const QByteArray &info)
{
    QHash<QString, qint64> calls;
    static const QRegularExpression line(QStringLiteral("^cmdstat_([a-z|_-]+):calls=(\\d+)"),
                                         QRegularExpression::MultilineOption);
    auto it = line.globalMatch(QString::fromUtf8(info));
    while (it.hasNext()) {
        const auto m = it.next();
        calls.insert(m.captured(1), m.captured(2).toLongLong());
    }
    return calls;
}

// The commands the console reads data with (discovery and the lock probes).
const QStringList s_reads{QStringLiteral("scan"), QStringLiteral("type"),
                          QStringLiteral("getrange"), QStringLiteral("pttl"),
                          QStringLiteral("get")};

qint64 readCalls(const QHash<QString, qint64> &calls)
{
    qint64 n = 0;
    for (const QString &c : s_reads)
        n += calls.value(c);
    return n;
}

QJsonObject snapshotOf(const CliRun &run)
{
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

QJsonArray nodesOf(const QJsonObject &snapshot)
{
    return snapshot.value(QLatin1String("server"))
        .toObject()
        .value(QLatin1String("nodes"))
        .toArray();
}

} // namespace

class tst_ReadReplicas : public QObject
{
    Q_OBJECT

private:
    CliRun cli(const QString &url, const QStringList &args)
    {
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                       QStringList{QStringLiteral("--url"), url} + args, {}, 60000);
    }

    // Locks planted through a routed client, each master holding some.
    static bool plant(const RedisEndpoint &endpoint)
    {
        auto client = gatehouse::test::connectedClient(endpoint);
        if (!client)
            return false;
        for (int i = 0; i < s_locks; ++i) {
            if (call(*client,
                     {"SET", "sim:lock:rr:" + QByteArray::number(i), s_token, "PX", "600000"})
                != RedisValue::status("OK"))
                return false;
        }
        return true;
    }

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void cluster()
    {
        RedisCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        RedisEndpoint ep = cluster.endpoint(0);
        ep.discoverTopology = true;
        QVERIFY(plant(ep));
        // Each replica's master, and the replicas caught up with the locks.
        QHash<int, int> replicaOf; // replica node -> master node
        const QList<int> masters = cluster.masters();
        QCOMPARE(masters.size(), 3);
        for (int i = 0; i < cluster.size(); ++i) {
            if (masters.contains(i))
                continue;
            const QList<QByteArray> role = cluster.cli(i, {QStringLiteral("ROLE")}).split('\n');
            replicaOf.insert(i, cluster.indexOfPort(quint16(role.value(2).trimmed().toUInt())));
        }
        QCOMPARE(replicaOf.size(), 3);
        QVERIFY(gatehouse::test::waitUntil(
            [&] {
                for (auto it = replicaOf.cbegin(); it != replicaOf.cend(); ++it) {
                    if (cluster.cli(it.key(), {QStringLiteral("DBSIZE")}).trimmed()
                        != cluster.cli(it.value(), {QStringLiteral("DBSIZE")}).trimmed())
                        return false;
                }
                return true;
            },
            20000));
        for (int i = 0; i < cluster.size(); ++i)
            cluster.cli(i, {QStringLiteral("CONFIG"), QStringLiteral("RESETSTAT")});

        // A snapshot read from the replicas: every lock, each naming the
        // replica of its master it was read from.
        const CliRun run
            = cli(cluster.url(0), {QStringLiteral("--read-from"), QStringLiteral("replicas"),
                                   QStringLiteral("snapshot"), QStringLiteral("--json"),
                                   QStringLiteral("--profile"), QStringLiteral("demo")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject s = snapshotOf(run);
        QCOMPARE(s.value(QLatin1String("server")).toObject().value(QLatin1String("readFrom")),
                 QJsonValue(QStringLiteral("replicas")));
        int locks = 0;
        for (const QJsonValue &v : s.value(QLatin1String("locks")).toArray()) {
            const QJsonObject lock = v.toObject();
            const QByteArray key = lock.value(QLatin1String("key")).toString().toUtf8();
            if (!key.startsWith("sim:lock:rr:"))
                continue;
            ++locks;
            const int master = cluster.masterOf(keyHashSlot(key));
            const QJsonObject node = lock.value(QLatin1String("node")).toObject();
            QCOMPARE(node.value(QLatin1String("address")).toString(), cluster.address(master));
            const int replica = cluster.indexOfPort(quint16(
                node.value(QLatin1String("readFrom")).toString().section(':', -1).toUInt()));
            QVERIFY2(replica >= 0 && replicaOf.value(replica) == master,
                     qPrintable(QJsonDocument(lock).toJson()));
        }
        QCOMPARE(locks, s_locks);
        // The replicas served the reads; the masters served none.
        qint64 replicaReads = 0;
        for (int i = 0; i < cluster.size(); ++i) {
            const auto calls = commandCalls(
                cluster.cli(i, {QStringLiteral("INFO"), QStringLiteral("commandstats")}));
            if (masters.contains(i)) {
                QVERIFY2(readCalls(calls) == 0,
                         qPrintable(QStringLiteral("master %1 served %2 reads")
                                        .arg(cluster.address(i))
                                        .arg(readCalls(calls))));
            } else {
                QVERIFY2(calls.value(QStringLiteral("scan")) > 0, qPrintable(cluster.address(i)));
                QVERIFY(calls.value(QStringLiteral("readonly")) > 0);
                replicaReads += readCalls(calls);
            }
        }
        QVERIFY(replicaReads >= 2 * s_locks); // a GETRANGE and a PTTL per lock at least

        // An action with --read-from replicas runs on the master.
        const QByteArray key = "sim:lock:rr:0";
        const int holder = cluster.masterOf(keyHashSlot(key));
        const CliRun release
            = cli(cluster.url(0),
                  {QStringLiteral("--read-from"), QStringLiteral("replicas"),
                   QStringLiteral("lock"), QStringLiteral("release"), QString::fromUtf8(key),
                   QStringLiteral("--token"), QString::fromUtf8(s_token)});
        QVERIFY2(release.exitCode == 0, qPrintable(release.err + release.out));
        QCOMPARE(cluster.cli(holder, {QStringLiteral("EXISTS"), QString::fromUtf8(key)}).trimmed(),
                 QByteArray("0"));
        const auto holderCalls = commandCalls(
            cluster.cli(holder, {QStringLiteral("INFO"), QStringLiteral("commandstats")}));
        QVERIFY(holderCalls.value(QStringLiteral("evalsha"))
                    + holderCalls.value(QStringLiteral("eval"))
                > 0);

        // A replica gone: its master is read itself, and the snapshot says why.
        const int deadReplica = replicaOf.key(holder);
        cluster.node(deadReplica).kill();
        const CliRun fallback
            = cli(cluster.url(0), {QStringLiteral("--read-from"), QStringLiteral("replicas"),
                                   QStringLiteral("snapshot"), QStringLiteral("--json"),
                                   QStringLiteral("--profile"), QStringLiteral("demo")});
        QVERIFY2(fallback.exitCode == 0, qPrintable(fallback.err));
        const QJsonObject f = snapshotOf(fallback);
        int found = 0;
        for (const QJsonValue &v : f.value(QLatin1String("locks")).toArray())
            found += v.toObject()
                         .value(QLatin1String("key"))
                         .toString()
                         .startsWith(QLatin1String("sim:lock:rr:"));
        QCOMPARE(found, s_locks - 1);
        bool noted = false;
        for (const QJsonValue &v : nodesOf(f)) {
            const QJsonObject n = v.toObject();
            if (n.value(QLatin1String("address")).toString() != cluster.address(holder))
                continue;
            QVERIFY(!n.contains(QLatin1String("readsFrom")));
            const QString note = n.value(QLatin1String("readsNote")).toString();
            QVERIFY2(note.contains(cluster.address(deadReplica))
                         && note.contains(QStringLiteral("reads of master %1 go to the master")
                                              .arg(cluster.address(holder))),
                     qPrintable(QJsonDocument(n).toJson()));
            noted = true;
        }
        QVERIFY(noted);
    }

    void sentinel()
    {
        RedisSentinel sentinel(1);
        QVERIFY2(sentinel.start(), qPrintable(sentinel.errorString()));
        QString error;
        const auto ep = RedisEndpoint::fromUrl(sentinel.url(), &error);
        QVERIFY2(ep, qPrintable(error));
        QVERIFY(plant(*ep));
        const int master = sentinel.currentMaster();
        const int replica = 1 - master;
        const quint16 masterPort = sentinel.node(master).port();
        const quint16 replicaPort = sentinel.node(replica).port();
        QVERIFY(gatehouse::test::waitUntil(
            [&] {
                return sentinel.cli(replicaPort, {QStringLiteral("DBSIZE")})
                       == sentinel.cli(masterPort, {QStringLiteral("DBSIZE")});
            },
            20000));
        sentinel.cli(masterPort, {QStringLiteral("CONFIG"), QStringLiteral("RESETSTAT")});
        sentinel.cli(replicaPort, {QStringLiteral("CONFIG"), QStringLiteral("RESETSTAT")});

        const CliRun run
            = cli(sentinel.url(), {QStringLiteral("--read-from"), QStringLiteral("replicas"),
                                   QStringLiteral("snapshot"), QStringLiteral("--json"),
                                   QStringLiteral("--profile"), QStringLiteral("demo")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject s = snapshotOf(run);
        int locks = 0;
        for (const QJsonValue &v : s.value(QLatin1String("locks")).toArray()) {
            const QJsonObject lock = v.toObject();
            if (!lock.value(QLatin1String("key"))
                     .toString()
                     .startsWith(QLatin1String("sim:lock:rr:")))
                continue;
            ++locks;
            const QJsonObject node = lock.value(QLatin1String("node")).toObject();
            QCOMPARE(node.value(QLatin1String("address")).toString(), sentinel.nodeAddress(master));
            QCOMPARE(node.value(QLatin1String("readFrom")).toString(),
                     sentinel.nodeAddress(replica));
        }
        QCOMPARE(locks, s_locks);
        const auto masterCalls = commandCalls(
            sentinel.cli(masterPort, {QStringLiteral("INFO"), QStringLiteral("commandstats")}));
        const auto replicaCalls = commandCalls(
            sentinel.cli(replicaPort, {QStringLiteral("INFO"), QStringLiteral("commandstats")}));
        QCOMPARE(readCalls(masterCalls), 0);
        QVERIFY(replicaCalls.value(QStringLiteral("scan")) > 0);
        QVERIFY(readCalls(replicaCalls) >= 2 * s_locks);

        const CliRun release
            = cli(sentinel.url(), {QStringLiteral("--read-from"), QStringLiteral("replicas"),
                                   QStringLiteral("lock"), QStringLiteral("release"),
                                   QStringLiteral("sim:lock:rr:1"), QStringLiteral("--token"),
                                   QString::fromUtf8(s_token)});
        QVERIFY2(release.exitCode == 0, qPrintable(release.err + release.out));
        QCOMPARE(
            sentinel.cli(masterPort, {QStringLiteral("EXISTS"), QStringLiteral("sim:lock:rr:1")}),
            QByteArray("0"));

        // Bad input: a clear sentence and a non-zero exit.
        const CliRun bad = cli(sentinel.url(), {QStringLiteral("--read-from"),
                                                QStringLiteral("slaves"), QStringLiteral("ping")});
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(bad.err.contains(QStringLiteral("--read-from \"slaves\" is not a place to read "
                                                 "from: use --read-from replicas")),
                 qPrintable(bad.err));
    }
};

QTEST_GUILESS_MAIN(tst_ReadReplicas)
#include "tst_readreplicas.moc"
