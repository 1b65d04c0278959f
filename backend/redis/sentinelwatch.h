// SPDX-License-Identifier: MIT
#pragma once

#include "redisendpoint.h"
#include "topology.h"

#include <QList>
#include <QObject>
#include <QTimer>

namespace gatehouse {

class RedisConnection;
class RedisValue;

// The sentinels' view of one master, for RedisRouter in Sentinel mode: reads
// the master and its replicas (SENTINEL MASTER, SENTINEL REPLICAS) from the
// first sentinel that answers, every RefreshMs and on demand, and listens on
// every sentinel for +switch-master, so a failover is followed the moment
// the sentinels decide it. Lives on, and must only be used from, the
// router's worker thread.
class SentinelWatch : public QObject
{
    Q_OBJECT
public:
    // Sentinel commands are cheap and answered by the sentinels, not the
    // watched server: the Nodes page gets replica state and offsets every 2 s.
    static constexpr int RefreshMs = 2000;

    explicit SentinelWatch(RedisEndpoint endpoint, QObject *parent = nullptr);
    ~SentinelWatch() override;

    void start();
    void stop();
    void refresh();

    // Parses SENTINEL MASTER and SENTINEL REPLICAS replies (flat field/value
    // arrays) into a Sentinel-mode topology: the master first, then its
    // replicas; nothing when the master reply is not one.
    static std::optional<Topology> fromSentinelReplies(const RedisValue &master,
                                                       const RedisValue &replicas);

Q_SIGNALS:
    void topologyRead(const gatehouse::Topology &topology);
    void readFailed(const QString &message);
    // "host:port" both; the sentinels switched the master.
    void switchMaster(const QString &from, const QString &to);

private:
    void ask(qsizetype i, QStringList problems);
    void onPush(const RedisValue &push);

    RedisEndpoint m_endpoint;
    QList<RedisConnection *> m_commands;    // children, one per sentinel
    QList<RedisConnection *> m_subscribers; // children, one per sentinel
    QTimer m_timer{this};
    bool m_inFlight = false;
    bool m_closing = false;
};

} // namespace gatehouse
