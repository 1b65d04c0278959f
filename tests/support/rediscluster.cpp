// SPDX-License-Identifier: MIT
#include "rediscluster.h"
#include "loopback.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QThread>

#include <sys/prctl.h>

#include <csignal>

namespace gatehouse::test {

RedisCluster::RedisCluster(const QStringList &extraConfig)
{
    for (int i = 0; i < NodeCount; ++i) {
        RedisServer::Options options;
        // The bus port defaults to port + 10000, past 65535 for many
        // ephemeral ports: each node gets a free one of its own.
        options.config << QStringLiteral("cluster-port %1").arg(freeLoopbackPort());
        // A short node timeout: failover tests wait seconds, not the default 15 s.
        options.config << QStringLiteral("cluster-enabled yes")
                       << QStringLiteral("cluster-config-file nodes.conf")
                       << QStringLiteral("cluster-node-timeout 1000")
                       << QStringLiteral("cluster-replica-validity-factor 0")
                       // Replicas sync at once, not after the default 5 s.
                       << QStringLiteral("repl-diskless-sync-delay 0")
                       // CLUSTER SHARDS calls a replica "loading" until its
                       // offset moves: the master pings it every second.
                       << QStringLiteral("repl-ping-replica-period 1");
        options.config << extraConfig;
        m_nodes.append(std::make_shared<RedisServer>(options));
    }
}

RedisCluster::~RedisCluster()
{
    stop();
}

QString RedisCluster::cliPath()
{
    return QStringLiteral(GATEHOUSE_REDIS_CLI);
}

QString RedisCluster::address(int i) const
{
    return QStringLiteral("127.0.0.1:%1").arg(m_nodes.at(i)->port());
}

int RedisCluster::indexOfPort(quint16 port) const
{
    for (int i = 0; i < m_nodes.size(); ++i) {
        if (m_nodes.at(i)->port() == port)
            return i;
    }
    return -1;
}

bool RedisCluster::runCli(const QStringList &args, QByteArray *output, int timeoutMs) const
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    p.start(cliPath(), args);
    if (!p.waitForStarted(10000)) {
        m_error = QStringLiteral("cannot start %1: %2").arg(cliPath(), p.errorString());
        return false;
    }
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        m_error = QStringLiteral("redis-cli %1 did not finish within %2 ms")
                      .arg(args.join(QLatin1Char(' ')))
                      .arg(timeoutMs);
        return false;
    }
    const QByteArray out = p.readAll();
    if (output)
        *output = out;
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        m_error = QStringLiteral("redis-cli %1 failed:\n%2")
                      .arg(args.join(QLatin1Char(' ')), QString::fromLocal8Bit(out));
        return false;
    }
    return true;
}

QByteArray RedisCluster::cli(int i, const QStringList &args, int timeoutMs) const
{
    QByteArray out;
    if (!runCli(QStringList{QStringLiteral("-p"), QString::number(m_nodes.at(i)->port())} + args,
                &out, timeoutMs))
        return {};
    return out;
}

bool RedisCluster::start()
{
    QStringList addresses;
    for (int i = 0; i < m_nodes.size(); ++i) {
        if (!m_nodes.at(i)->start()) {
            m_error = m_nodes.at(i)->errorString();
            return false;
        }
        addresses << address(i);
    }
    // The first three become masters, the others their replicas.
    if (!runCli(QStringList{QStringLiteral("--cluster"), QStringLiteral("create")} + addresses
                + QStringList{QStringLiteral("--cluster-replicas"), QStringLiteral("1"),
                              QStringLiteral("--cluster-yes")}))
        return false;
    if (!waitHealthy())
        return false;
    // Replicas announce their role once their master sync starts; tests
    // that read the topology expect three masters and three replicas.
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 15000) {
        if (masters().size() == NodeCount / 2 && replicasInSync())
            return true;
        QThread::msleep(20);
    }
    m_error = QStringLiteral("the cluster did not settle on %1 masters with replicas in sync")
                  .arg(NodeCount / 2);
    return false;
}

void RedisCluster::stop()
{
    for (const auto &node : std::as_const(m_nodes))
        node->stop();
}

bool RedisCluster::waitHealthy(int timeoutMs) const
{
    QElapsedTimer clock;
    clock.start();
    QString last;
    while (clock.elapsed() < timeoutMs) {
        bool all = true;
        for (int i = 0; i < m_nodes.size() && all; ++i) {
            if (!m_nodes.at(i)->isRunning())
                continue;
            const QByteArray info = cli(i, {QStringLiteral("CLUSTER"), QStringLiteral("INFO")});
            if (!info.contains("cluster_state:ok")
                || !info.contains(QByteArray(QByteArray("cluster_known_nodes:")
                                             + QByteArray::number(NodeCount)))) {
                all = false;
                last = QStringLiteral("node %1: %2").arg(address(i), QString::fromUtf8(info));
            }
        }
        if (all)
            return true;
        QThread::msleep(20);
    }
    m_error = QStringLiteral("the cluster did not reach cluster_state:ok within %1 ms (%2)")
                  .arg(timeoutMs)
                  .arg(last);
    return false;
}

int RedisCluster::masterOf(quint16 slot, int askNode) const
{
    // CLUSTER NODES: "<id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link>
    // <slot or range>..."; importing/migrating entries are in brackets.
    const QByteArray out = cli(askNode, {QStringLiteral("CLUSTER"), QStringLiteral("NODES")});
    for (const QByteArray &line : out.split('\n')) {
        const QList<QByteArray> f = line.trimmed().split(' ');
        if (f.size() < 9 || !f.at(2).contains("master"))
            continue;
        for (qsizetype i = 8; i < f.size(); ++i) {
            if (f.at(i).startsWith('['))
                continue;
            const QList<QByteArray> range = f.at(i).split('-');
            const int first = range.at(0).toInt();
            const int last = range.size() > 1 ? range.at(1).toInt() : first;
            if (first <= slot && slot <= last) {
                const QByteArray hostPort = f.at(1).split('@').first();
                return indexOfPort(quint16(hostPort.mid(hostPort.lastIndexOf(':') + 1).toInt()));
            }
        }
    }
    return -1;
}

bool RedisCluster::replicasInSync() const
{
    // A replica reports "loading" in CLUSTER SHARDS until its first sync is done.
    for (int i = 0; i < m_nodes.size(); ++i) {
        if (!m_nodes.at(i)->isRunning())
            continue;
        const QByteArray info = cli(i, {QStringLiteral("INFO"), QStringLiteral("replication")});
        if (info.contains("role:slave") && !info.contains("master_link_status:up"))
            return false;
        const QByteArray shards = cli(i, {QStringLiteral("CLUSTER"), QStringLiteral("SHARDS")});
        if (shards.contains("loading") || shards.contains("fail"))
            return false;
    }
    return true;
}

QList<int> RedisCluster::masters() const
{
    QList<int> result;
    for (int i = 0; i < m_nodes.size(); ++i) {
        if (!m_nodes.at(i)->isRunning())
            continue;
        if (cli(i, {QStringLiteral("ROLE")}).startsWith("master"))
            result.append(i);
    }
    return result;
}

} // namespace gatehouse::test
