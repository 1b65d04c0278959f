// SPDX-License-Identifier: MIT
#pragma once

#include "redisendpoint.h"

#include <QObject>
#include <QString>

#include <functional>

namespace gatehouse {

// What one trial connection found (the Connect dialog's Test button).
struct ProbeResult
{
    bool ok = false;
    QString
        version; // the product's own: "7.0.15", Valkey's "8.0.1"; empty when INFO is not permitted
    QString server;  // "Redis 7.0.15", "Valkey 8.0.1"; empty when INFO is not permitted
    QString role;    // "master", "slave", "sentinel"; empty when unknown
    QString user;    // the ACL user the server says this is (ACL WHOAMI)
    QString message; // one sentence: what was found, or why it failed
};

// Connects once to an endpoint on a thread of its own (no reconnect), asks
// INFO server, INFO replication and ACL WHOAMI in one round trip, then
// closes. Never blocks the caller: the handler runs on the context's thread,
// and not at all once the context is gone. Gives up after timeoutMs.
class ConnectionProbe
{
public:
    static void run(const RedisEndpoint &endpoint, QObject *context,
                    std::function<void(const ProbeResult &result)> handler, int timeoutMs = 5000);
};

} // namespace gatehouse
