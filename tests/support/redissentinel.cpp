// SPDX-License-Identifier: MIT
#include "redissentinel.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTest>
#include <QThread>

#include <sys/prctl.h>

#include <csignal>

namespace gatehouse::test {

namespace {

QStringList nodeConfig()
{
    // Replicas sync at once, not after the default 5 s; the master pings them
    // every second so their offsets move.
    return {QStringLiteral("repl-diskless-sync-delay 0"),
            QStringLiteral("repl-ping-replica-period 1")};
}

} // namespace

RedisSentinel::RedisSentinel(int replicas, QString masterName, bool tls)
    : m_masterName(std::move(masterName))
    , m_replicas(replicas)
    , m_tls(tls)
{}

RedisServer::Options RedisSentinel::options(const QStringList &config, bool sentinel) const
{
    RedisServer::Options o;
    o.config = config;
    o.sentinel = sentinel;
    if (m_tls) {
        o.tls = true;
        o.certDir = m_certs.path();
        // Replicas reach their master, and sentinels the nodes and each other,
        // over TLS with the server certificate as their client certificate.
        o.config << QStringLiteral("tls-replication yes");
    }
    return o;
}

QString RedisSentinel::caFile() const
{
    return m_tls ? m_certs.filePath(QStringLiteral("ca.crt")) : QString();
}

QString RedisSentinel::otherCaFile() const
{
    return m_tls ? m_certs.filePath(QStringLiteral("other-ca.crt")) : QString();
}

RedisSentinel::~RedisSentinel()
{
    stop();
}

void RedisSentinel::stop()
{
    // Sentinels first: they would otherwise fail over the nodes being stopped.
    for (const auto &s : std::as_const(m_sentinels))
        s->stop();
    for (const auto &n : std::as_const(m_nodes))
        n->stop();
}

QString RedisSentinel::nodeAddress(int i) const
{
    return QStringLiteral("127.0.0.1:%1").arg(m_nodes.at(i)->port());
}

QString RedisSentinel::sentinelAddress(int i) const
{
    return QStringLiteral("127.0.0.1:%1").arg(m_sentinels.at(i)->port());
}

QString RedisSentinel::url() const
{
    QStringList addresses;
    for (int i = 0; i < m_sentinels.size(); ++i)
        addresses << sentinelAddress(i);
    return QStringLiteral("%1://%2#%3")
        .arg(m_tls ? QStringLiteral("rediss-sentinel") : QStringLiteral("redis-sentinel"),
             addresses.join(QLatin1Char(',')), m_masterName);
}

int RedisSentinel::indexOfPort(quint16 port) const
{
    for (int i = 0; i < m_nodes.size(); ++i) {
        if (m_nodes.at(i)->port() == port)
            return i;
    }
    return -1;
}

QByteArray RedisSentinel::cli(quint16 port, const QStringList &args, int timeoutMs) const
{
    QProcess p;
    p.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    QStringList tlsArgs;
    if (m_tls)
        tlsArgs << QStringLiteral("--tls") << QStringLiteral("--cacert") << caFile();
    p.start(QStringLiteral(GATEHOUSE_REDIS_CLI),
            QStringList{QStringLiteral("-p"), QString::number(port)} + tlsArgs + args);
    if (!p.waitForStarted(10000) || !p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        m_error = QStringLiteral("redis-cli -p %1 %2 did not finish").arg(port).arg(args.join(' '));
        return {};
    }
    const QByteArray out = p.readAllStandardOutput().trimmed();
    if (p.exitCode() != 0 || out.startsWith("ERR") || out.startsWith("Could not connect")) {
        m_error = QStringLiteral("redis-cli -p %1 %2: %3")
                      .arg(port)
                      .arg(args.join(' '), QString::fromUtf8(out + p.readAllStandardError()));
        return {};
    }
    return out;
}

bool RedisSentinel::start()
{
    if (m_tls && !RedisServer::makeCertificates(m_certs.path(), &m_error))
        return false;
    auto master = std::make_shared<RedisServer>(options(nodeConfig() + m_nodeConfig, false));
    if (!master->start()) {
        m_error = master->errorString();
        return false;
    }
    m_nodes.append(master);
    for (int i = 0; i < m_replicas; ++i) {
        QStringList config = nodeConfig() + m_nodeConfig;
        config << QStringLiteral("replicaof 127.0.0.1 %1").arg(master->port());
        auto replica = std::make_shared<RedisServer>(options(config, false));
        if (!replica->start()) {
            m_error = replica->errorString();
            return false;
        }
        m_nodes.append(replica);
    }
    for (int i = 0; i < SentinelCount; ++i) {
        const QString name = m_masterName;
        auto sentinel = std::make_shared<RedisServer>(options(
            {QStringLiteral("sentinel monitor %1 127.0.0.1 %2 2").arg(name).arg(master->port()),
             QStringLiteral("sentinel down-after-milliseconds %1 %2").arg(name).arg(DownAfterMs),
             QStringLiteral("sentinel failover-timeout %1 10000").arg(name),
             QStringLiteral("sentinel parallel-syncs %1 1").arg(name)},
            true));
        if (!sentinel->start()) {
            m_error = sentinel->errorString();
            return false;
        }
        m_sentinels.append(sentinel);
    }
    return waitReady(30000);
}

bool RedisSentinel::waitReady(int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        bool ready = true;
        for (int i = 0; i < m_sentinels.size() && ready; ++i) {
            const QByteArray master
                = cli(m_sentinels.at(i)->port(),
                      {QStringLiteral("SENTINEL"), QStringLiteral("MASTER"), m_masterName});
            const QList<QByteArray> lines = master.split('\n');
            const auto field = [&lines](const QByteArray &name) {
                const qsizetype at = lines.indexOf(name);
                return at >= 0 && at + 1 < lines.size() ? lines.at(at + 1) : QByteArray();
            };
            ready = field("num-slaves").toInt() == m_replicas
                    && field("num-other-sentinels").toInt() == SentinelCount - 1;
        }
        for (int i = 1; i < m_nodes.size() && ready; ++i) {
            const QByteArray info = cli(m_nodes.at(i)->port(),
                                        {QStringLiteral("INFO"), QStringLiteral("replication")});
            ready = info.contains("master_link_status:up");
        }
        if (ready)
            return true;
        QThread::msleep(100);
    }
    m_error = QStringLiteral("the sentinels did not see %1 replicas and %2 other sentinels within "
                             "%3 ms (%4)")
                  .arg(m_replicas)
                  .arg(SentinelCount - 1)
                  .arg(timeoutMs)
                  .arg(m_error);
    return false;
}

int RedisSentinel::currentMaster() const
{
    for (const auto &s : m_sentinels) {
        if (!s->isRunning())
            continue;
        const QByteArray out
            = cli(s->port(), {QStringLiteral("SENTINEL"), QStringLiteral("GET-MASTER-ADDR-BY-NAME"),
                              m_masterName});
        const QList<QByteArray> lines = out.split('\n');
        if (lines.size() == 2)
            return indexOfPort(quint16(lines.at(1).trimmed().toUInt()));
    }
    return -1;
}

int RedisSentinel::waitNewMaster(int old, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        const int now = currentMaster();
        if (now >= 0 && now != old && m_nodes.at(now)->isRunning()
            && cli(m_nodes.at(now)->port(), {QStringLiteral("ROLE")}).startsWith("master"))
            return now;
        QTest::qWait(100); // the test's processes (watch) keep being read meanwhile
    }
    m_error = QStringLiteral("no new master within %1 ms (%2)").arg(timeoutMs).arg(m_error);
    return -1;
}

int RedisSentinel::failover(int timeoutMs)
{
    const int old = currentMaster();
    for (const auto &s : std::as_const(m_sentinels)) {
        if (!s->isRunning())
            continue;
        const QByteArray out = cli(
            s->port(), {QStringLiteral("SENTINEL"), QStringLiteral("FAILOVER"), m_masterName});
        if (out == "OK")
            return waitNewMaster(old, timeoutMs);
    }
    return -1;
}

int RedisSentinel::killMaster()
{
    const int old = currentMaster();
    if (old >= 0)
        m_nodes.at(old)->kill();
    return old;
}

} // namespace gatehouse::test
