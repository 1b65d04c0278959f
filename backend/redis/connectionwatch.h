// SPDX-License-Identifier: MIT
#pragma once

#include "redisclient.h"

#include <QElapsedTimer>
#include <QObject>

namespace gatehouse {

// Follows one client's connection for a command that runs for a while (a
// CLI session, a deployment that serve watches). The first handshake fails
// fast: a script wants a clear failure, not a retry loop. After it, when
// reconnecting, a lost connection is retried as the console does and each
// outage is reported once, with why, and its end with the gap; otherwise a
// lost connection is the end.
class ConnectionWatch : public QObject
{
    Q_OBJECT
public:
    // Turns the client's own reconnecting off until the first handshake.
    explicit ConnectionWatch(RedisClient *client, QObject *parent = nullptr);
    // Before the first handshake.
    void setReconnecting(bool on) { m_reconnecting = on; }
    bool isStarted() const { return m_started; }

Q_SIGNALS:
    // The first handshake finished: the connection is ready for the first time.
    void firstReady();
    // Reconnecting only: once per outage, with why ("... Next attempt in"
    // left out: that is for a status bar).
    void lost(const QString &why);
    // Reconnecting only: the outage ended after gapMs (local clock).
    void back(qint64 gapMs);
    // The connection failed and will not be retried (the first handshake, or
    // any loss when not reconnecting). Queued: the requests the loss failed
    // are answered first, so an action in flight says "may or may not have
    // run" itself.
    void closed(const QString &why);

private:
    RedisClient *m_client;
    bool m_started = false;
    bool m_reconnecting = false;
    bool m_closed = false;
    QElapsedTimer m_lostFor; // valid while the connection is lost
};

} // namespace gatehouse
