// SPDX-License-Identifier: MIT
#pragma once

#include "command.h"

#include <redis/connectionwatch.h>
#include <redis/redisclient.h>

namespace gatehouse::cli {

// One gatehouse-cli run against one server: connects once (no retry loop: a
// script wants a clear failure), runs onReady(), and reports an exit code.
// A long-running command (watch) turns reconnecting on: after the first
// handshake a lost connection is retried like the GUI does, and reported
// through onConnectionLost() and onReconnected() instead of ending the run.
class Session : public Command
{
    Q_OBJECT
public:
    explicit Session(const RedisEndpoint &endpoint, QObject *parent = nullptr);
    void start();
    // Before start(). The first connection still fails fast.
    void setReconnecting(bool on) { m_watch.setReconnecting(on); }

protected:
    virtual void onReady() = 0;
    // Reconnecting only: once per outage, with why.
    virtual void onConnectionLost(const QString &) {}
    // Reconnecting only: the outage ended after gapMs (local clock).
    virtual void onReconnected(qint64) {}
    RedisClient &client() { return m_client; }

private:
    RedisClient m_client;
    ConnectionWatch m_watch;
};

} // namespace gatehouse::cli
