// SPDX-License-Identifier: MIT
// A widget that reads Redis itself, where widgets get snapshots and ask their
// deployment (ConsoleReads, JobBrowser, ActionEngine): the client is not on
// the widgets' include path (tests/layers/CMakeLists.txt builds it as the
// widgets are, and with the redis layer's client declared).
#include <redis/redisclient.h>

#include <QObject>

namespace gatehouse {

// A server panel's own INFO, on the GUI thread's connection.
RequestHandle widgetReadsInfo(RedisClient &client, QObject *panel)
{
    return client.command({"INFO"}, panel, [](const RedisValue &) {});
}

} // namespace gatehouse
