// SPDX-License-Identifier: MIT
// The soak's faults: each type injected, and when a deployment is healthy
// again, which nodes are its masters and when the writes resume.
#include "tst_soak.h"

#include <redis/hashslot.h>

#include <QElapsedTimer>
#include <QTest>

#include <algorithm>

bool tst_Soak::waitWritesResume(int timeoutMs)
{
    QList<qint64> before;
    for (const Deployment &d : std::as_const(m_deployments))
        before << d.writer->succeeded();
    return waitUntil(
        [&] {
            for (size_t i = 0; i < m_deployments.size(); ++i) {
                if (m_deployments.at(i).writer->succeeded() < before.at(i) + 3)
                    return false;
            }
            return true;
        },
        timeoutMs);
}

QList<quint16> tst_Soak::masterPorts(const Deployment &d)
{
    if (d.name == QLatin1String("sentinel")) {
        const int m = m_sentinel->currentMaster();
        return m >= 0 ? QList<quint16>{m_sentinel->node(m).port()} : QList<quint16>{};
    }
    if (d.name == QLatin1String("cluster")) {
        QList<quint16> ports;
        for (int i = 0; i < m_cluster->size(); ++i) {
            if (m_cluster->node(i).isRunning()
                && nodeCli(m_cluster->node(i).port(), {QStringLiteral("ROLE")})
                       .out.startsWith("master"))
                ports << m_cluster->node(i).port();
        }
        return ports;
    }
    return {m_single->port()};
}

bool tst_Soak::sentinelHealthy()
{
    const int m = m_sentinel->currentMaster();
    if (m < 0 || !m_sentinel->node(m).isRunning()
        || !nodeCli(m_sentinel->node(m).port(), {QStringLiteral("ROLE")}).out.startsWith("master"))
        return false;
    // Every sentinel names it; the replica follows it, in sync, and the
    // sentinels see that (a SENTINEL FAILOVER needs a good replica).
    for (int s = 0; s < RedisSentinel::SentinelCount; ++s) {
        const Cli addr
            = nodeCli(m_sentinel->sentinel(s).port(),
                      {QStringLiteral("SENTINEL"), QStringLiteral("GET-MASTER-ADDR-BY-NAME"),
                       m_sentinel->masterName()});
        if (!addr.out.endsWith(QByteArray::number(m_sentinel->node(m).port())))
            return false;
    }
    for (int i = 0; i < m_sentinel->nodeCount(); ++i) {
        if (i == m)
            continue;
        if (!m_sentinel->node(i).isRunning())
            return false;
        const Cli info = nodeCli(m_sentinel->node(i).port(),
                                 {QStringLiteral("INFO"), QStringLiteral("replication")});
        if (!info.out.contains("master_link_status:up")
            || !info.out.contains(QByteArray(QByteArray("master_port:")
                                             + QByteArray::number(m_sentinel->node(m).port()))))
            return false;
    }
    const Cli replicas = nodeCli(
        m_sentinel->sentinel(0).port(),
        {QStringLiteral("SENTINEL"), QStringLiteral("REPLICAS"), m_sentinel->masterName()});
    const QList<QByteArray> lines = replicas.out.split('\n');
    int good = 0;
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
        if (lines.at(i).trimmed() == "flags" && lines.at(i + 1).trimmed() == "slave")
            ++good;
    }
    return good == m_sentinel->nodeCount() - 1;
}

bool tst_Soak::clusterHealthy()
{
    int masters = 0;
    for (int i = 0; i < m_cluster->size(); ++i) {
        const quint16 port = m_cluster->node(i).port();
        const Cli info = nodeCli(port, {QStringLiteral("CLUSTER"), QStringLiteral("INFO")});
        if (!info.out.contains("cluster_state:ok") || !info.out.contains("cluster_known_nodes:6"))
            return false;
        const Cli repl = nodeCli(port, {QStringLiteral("INFO"), QStringLiteral("replication")});
        if (repl.out.contains("role:master"))
            ++masters;
        else if (!repl.out.contains("master_link_status:up"))
            return false;
        // No slot half-way through a migration.
        const Cli nodes = nodeCli(port, {QStringLiteral("CLUSTER"), QStringLiteral("NODES")});
        if (nodes.out.contains("->-") || nodes.out.contains("-<-") || nodes.out.contains("fail"))
            return false;
    }
    return masters == RedisCluster::NodeCount / 2;
}

bool tst_Soak::healthy(Deployment &d, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        bool ok = true;
        if (d.name == QLatin1String("sentinel"))
            ok = sentinelHealthy();
        else if (d.name == QLatin1String("cluster"))
            ok = clusterHealthy();
        if (ok)
            return true;
        QTest::qWait(200);
    }
    return false;
}

quint16 tst_Soak::masterFor(const Deployment &d, const QByteArray &key)
{
    if (d.name == QLatin1String("cluster")) {
        const int master = m_cluster->masterOf(keyHashSlot(key));
        return master >= 0 ? m_cluster->node(master).port() : 0;
    }
    return masterPorts(d).value(0);
}

bool tst_Soak::inject(Fault fault, QString *name, QString *deployment)
{
    const auto pick = [this](const QList<quint16> &ports) {
        return ports.value(int(m_rng.bounded(int(std::max<qsizetype>(1, ports.size())))));
    };
    switch (fault) {
    case Fault::SentinelFailover: {
        *name = QStringLiteral("sentinel.failover");
        *deployment = QStringLiteral("sentinel");
        startAction(*deployment);
        return m_sentinel->failover() >= 0;
    }
    case Fault::SentinelKillMaster: {
        *name = QStringLiteral("sentinel.kill-master");
        *deployment = QStringLiteral("sentinel");
        startAction(*deployment);
        const int killed = m_sentinel->killMaster();
        if (killed < 0)
            return false;
        const int promoted = m_sentinel->waitNewMaster(killed, 30000);
        // Back, as a replica of the new master (the sentinels turn it).
        return m_sentinel->node(killed).start() && promoted >= 0;
    }
    case Fault::ClusterFailover: {
        *name = QStringLiteral("cluster.failover");
        *deployment = QStringLiteral("cluster");
        QList<int> replicas;
        for (int i = 0; i < m_cluster->size(); ++i) {
            if (nodeCli(m_cluster->node(i).port(), {QStringLiteral("ROLE")})
                    .out.startsWith("slave"))
                replicas << i;
        }
        if (replicas.isEmpty())
            return false;
        const int r = replicas.at(int(m_rng.bounded(int(replicas.size()))));
        startAction(*deployment);
        if (nodeCli(m_cluster->node(r).port(),
                    {QStringLiteral("CLUSTER"), QStringLiteral("FAILOVER")})
                .out
            != "OK")
            return false;
        return waitUntil(
            [&] {
                return nodeCli(m_cluster->node(r).port(), {QStringLiteral("ROLE")})
                    .out.startsWith("master");
            },
            20000);
    }
    case Fault::ClusterKillMaster: {
        // A master crashes (SIGKILL): its replica is promoted once the others
        // mark it failed (cluster-node-timeout 1 s); it comes back as a replica.
        *name = QStringLiteral("cluster.kill-master");
        *deployment = QStringLiteral("cluster");
        // Only with every replica in sync: a master whose replica still
        // resyncs after an earlier kill could not fail over.
        const QList<int> masters = m_cluster->masters();
        if (masters.size() < 3 || !m_cluster->replicasInSync())
            return false;
        const int victim = masters.at(int(m_rng.bounded(int(masters.size()))));
        startAction(*deployment);
        m_cluster->node(victim).kill();
        const bool promoted = waitUntil(
            [&] {
                const QList<int> now = m_cluster->masters();
                return now.size() >= 3 && !now.contains(victim);
            },
            30000);
        return m_cluster->node(victim).start() && promoted;
    }
    case Fault::ClusterReshard: {
        *name = QStringLiteral("cluster.reshard");
        *deployment = QStringLiteral("cluster");
        QList<quint16> masters = masterPorts(m_deployments[1]);
        if (masters.size() < 2)
            return false;
        const quint16 from = masters.takeAt(int(m_rng.bounded(int(masters.size()))));
        const quint16 to = pick(masters);
        const QByteArray fromId
            = nodeCli(from, {QStringLiteral("CLUSTER"), QStringLiteral("MYID")}).out;
        const QByteArray toId
            = nodeCli(to, {QStringLiteral("CLUSTER"), QStringLiteral("MYID")}).out;
        const int slotCount = 5 + int(m_rng.bounded(20));
        startAction(*deployment);
        const Cli run
            = redisCli({QStringLiteral("--cluster"), QStringLiteral("reshard"),
                        QStringLiteral("127.0.0.1:%1").arg(from), QStringLiteral("--cluster-from"),
                        QString::fromLatin1(fromId), QStringLiteral("--cluster-to"),
                        QString::fromLatin1(toId), QStringLiteral("--cluster-slots"),
                        QString::number(slotCount), QStringLiteral("--cluster-yes")},
                       {}, 120000);
        if (run.exitCode != 0) {
            // Leave no slot half-moved for the next fault.
            redisCli({QStringLiteral("--cluster"), QStringLiteral("fix"),
                      QStringLiteral("127.0.0.1:%1").arg(from), QStringLiteral("--cluster-yes")},
                     {}, 120000);
            return false;
        }
        return true;
    }
    case Fault::PubsubKill:
    case Fault::EventsOff:
    case Fault::DebugSleep: {
        const bool onSentinel = m_rng.bounded(2) == 0;
        Deployment &d = m_deployments[onSentinel ? 0 : 1];
        *deployment = d.name;
        const quint16 port = pick(masterPorts(d));
        if (port == 0)
            return false;
        startAction(*deployment);
        if (fault == Fault::PubsubKill) {
            *name = d.name + QStringLiteral(".pubsub-kill");
            return nodeCli(port, {QStringLiteral("CLIENT"), QStringLiteral("KILL"),
                                  QStringLiteral("TYPE"), QStringLiteral("pubsub")})
                       .exitCode
                   == 0;
        }
        if (fault == Fault::EventsOff) {
            *name = d.name + QStringLiteral(".events-off");
            const QStringList set{QStringLiteral("CONFIG"), QStringLiteral("SET"),
                                  QStringLiteral("notify-keyspace-events")};
            if (nodeCli(port, set + QStringList{QString()}).out != "OK")
                return false;
            QTest::qWait(2000 + int(m_rng.bounded(3000)));
            return nodeCli(port, set + QStringList{QStringLiteral("KEA")}).out == "OK";
        }
        *name = d.name + QStringLiteral(".debug-sleep");
        return nodeCli(port,
                       {QStringLiteral("DEBUG"), QStringLiteral("SLEEP"), QStringLiteral("2")})
                   .out
               == "OK";
    }
    case Fault::ProxyStall:
        *name = QStringLiteral("proxy.stall");
        *deployment = QStringLiteral("proxy");
        startAction(*deployment);
        m_proxy->setStalled(true);
        QTest::qWait(1000 + int(m_rng.bounded(4000)));
        m_proxy->setStalled(false);
        return true;
    }
    return false;
}
