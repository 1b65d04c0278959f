// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisclient.h>

#include <QObject>

namespace gatehouse::cli {

// `gatehouse-cli ping`: connect once (no reconnect), then PING, TIME and
// INFO server in one round trip; print PONG, version and server time.
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

    RedisClient m_client;
    qint64 m_sentAtMs = 0;
    bool m_done = false;
};

} // namespace gatehouse::cli
