// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisclient.h>

#include <QObject>

namespace gatehouse::cli {

// `gatehouse-cli ping`: connect once (no reconnect), then PING, TIME and
// INFO server in one round trip; print PONG, version and server time, then
// the topology: the mode, and for a Cluster every node with its role, slot
// ranges, state and INFO figures (one INFO per node, in parallel).
class PingCommand : public QObject
{
    Q_OBJECT
public:
    explicit PingCommand(const RedisEndpoint &endpoint, QObject *parent = nullptr);
    void start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    void onReady();
    void fail(const QString &message);
    void printTopology();

    RedisClient m_client;
    qint64 m_sentAtMs = 0;
    bool m_done = false;
};

} // namespace gatehouse::cli
