// SPDX-License-Identifier: MIT
#pragma once

#include "redisserver.h"

#include <QList>

#include <memory>

namespace gatehouse::test {

// A real Redis Cluster for one test: six redis-server processes with
// cluster-enabled on free loopback ports, each in its own temporary directory
// (its nodes.conf there), joined by `redis-cli --cluster create` with one
// replica per master. start() returns once every node reports
// cluster_state:ok and knows all six nodes; the destructor stops the
// processes it started (by their QProcess, never by name).
class RedisCluster
{
public:
    static constexpr int NodeCount = 6;

    // extraConfig: redis.conf lines for every node (notify-keyspace-events,
    // enable-debug-command, ...), kept across restarts.
    explicit RedisCluster(const QStringList &extraConfig = {});
    ~RedisCluster();
    RedisCluster(const RedisCluster &) = delete;
    RedisCluster &operator=(const RedisCluster &) = delete;

    bool start();
    void stop();
    QString errorString() const { return m_error; }

    int size() const { return int(m_nodes.size()); }
    RedisServer &node(int i) { return *m_nodes.at(i); }
    // "127.0.0.1:port" of node i, as the cluster announces it.
    QString address(int i) const;
    QString url(int i) const { return m_nodes.at(i)->url(); }
    RedisEndpoint endpoint(int i) const { return m_nodes.at(i)->endpoint(); }
    // The index of the node with that port, -1 if none.
    int indexOfPort(quint16 port) const;

    // The node that serves slot as master now (CLUSTER SLOTS asked of node
    // 0), -1 if none does.
    int masterOf(quint16 slot, int askNode = 0) const;
    // The nodes that are masters now (ROLE of each running node).
    QList<int> masters() const;

    // redis-cli with args against node i ("-p port" added); stdout, or an
    // empty string with errorString() set on failure. Test setup: it blocks.
    QByteArray cli(int i, const QStringList &args, int timeoutMs = 30000) const;
    // Any redis-cli invocation (--cluster reshard, ...); exit code 0 is true.
    bool runCli(const QStringList &args, QByteArray *output = nullptr, int timeoutMs = 60000) const;

    // Every replica has finished its first sync, and every node sees every
    // other as online (CLUSTER SHARDS).
    bool replicasInSync() const;
    // Waits until every running node reports cluster_state:ok.
    bool waitHealthy(int timeoutMs = 15000) const;

    static QString cliPath();

private:
    QList<std::shared_ptr<RedisServer>> m_nodes;
    mutable QString m_error;
};

} // namespace gatehouse::test
