// SPDX-License-Identifier: MIT
#pragma once

#include "redisserver.h"

#include <QList>

#include <memory>

namespace gatehouse::test {

// A real Sentinel deployment for one test: a master, its replicas and three
// `redis-server --sentinel` processes monitoring it (quorum 2), all on free
// loopback ports in temporary directories. start() returns once every
// replica is in sync and every sentinel knows the replicas and the other
// sentinels, so a failover can be agreed on. The destructor stops the
// processes it started (by their QProcess, never by name).
// With tls, every node and sentinel listens on TLS only (port 0, tls-port),
// replicates and talks to the others over TLS (tls-replication yes), all with
// certificates of one test CA made in a temporary directory.
class RedisSentinel
{
public:
    static constexpr int SentinelCount = 3;
    static constexpr int DownAfterMs = 1000; // sentinel down-after-milliseconds

    explicit RedisSentinel(int replicas = 1, QString masterName = QStringLiteral("gatehouse-test"),
                           bool tls = false);
    ~RedisSentinel();
    RedisSentinel(const RedisSentinel &) = delete;
    RedisSentinel &operator=(const RedisSentinel &) = delete;

    // redis.conf lines for every data node (notify-keyspace-events,
    // enable-debug-command, ...), kept across restarts. Set before start().
    void setNodeConfig(const QStringList &lines) { m_nodeConfig = lines; }

    bool start();
    void stop();
    QString errorString() const { return m_error; }

    QString masterName() const { return m_masterName; }
    // The data nodes: node(0) is the first master; the others its replicas.
    int nodeCount() const { return int(m_nodes.size()); }
    RedisServer &node(int i) { return *m_nodes.at(i); }
    RedisServer &sentinel(int i) { return *m_sentinels.at(i); }
    QString nodeAddress(int i) const;
    QString sentinelAddress(int i) const;
    // redis-sentinel://127.0.0.1:p0,127.0.0.1:p1,127.0.0.1:p2#name
    // (rediss-sentinel:// with tls)
    QString url() const;
    bool tls() const { return m_tls; }
    // With tls: the CA that signed every certificate, and an unrelated one.
    QString caFile() const;
    QString otherCaFile() const;

    // The index of the data node the sentinels call master now (asked of the
    // first sentinel that answers), -1 if none answers.
    int currentMaster() const;
    // SENTINEL FAILOVER on a running sentinel, then waits until the
    // sentinels name another master and it reports ROLE master. The index of
    // the new master, -1 on failure (errorString() says why).
    int failover(int timeoutMs = 30000);
    // kill -9 of the current master; returns its index (the node can be
    // started again with node(i).start()).
    int killMaster();
    // Waits until the sentinels name a master other than `old` that reports
    // ROLE master; its index, or -1.
    int waitNewMaster(int old, int timeoutMs = 30000);

    // redis-cli against port; stdout (trimmed), empty with errorString() set
    // on failure. Test setup: it blocks.
    QByteArray cli(quint16 port, const QStringList &args, int timeoutMs = 10000) const;

private:
    bool waitReady(int timeoutMs);
    int indexOfPort(quint16 port) const;

    RedisServer::Options options(const QStringList &config, bool sentinel) const;

    QString m_masterName;
    int m_replicas;
    bool m_tls;
    QStringList m_nodeConfig;
    QTemporaryDir m_certs; // with tls: the shared CA and certificates
    QList<std::shared_ptr<RedisServer>> m_nodes;
    QList<std::shared_ptr<RedisServer>> m_sentinels;
    mutable QString m_error;
};

} // namespace gatehouse::test
