// SPDX-License-Identifier: MIT
#pragma once

#include "snapshot.h"

#include <algorithm>

namespace gatehouse {

// Whether a node answers: its connection is ready and its last reply came
// within three ticks (at least 3 s). A server stopped or asleep keeps its
// socket open and answers nothing: it is down to an operator, although the
// connection never failed. A node whose reply age is not measured (-1)
// answers while its connection is ready.
inline bool nodeAnswers(const NodeStatus &n, qint64 intervalMs)
{
    const qint64 silentAfterMs = std::max<qint64>(3 * intervalMs, 3000);
    return n.connection.state == ConnectionState::Ready
           && (n.lastReadingAgeMs < 0 || n.lastReadingAgeMs <= silentAfterMs);
}

// Whether a node is up to an operator: it answers, and neither its Cluster
// marks it failed ("fail", "fail?" while the others decide, "failed") nor its
// sentinels down. A Sentinel's "failing over" (the promoted node) is up.
inline bool nodeUp(const NodeStatus &n, qint64 intervalMs)
{
    const bool markedDown = n.health == QLatin1String("down")
                            || (n.health.startsWith(QLatin1String("fail"))
                                && n.health != QLatin1String("failing over"));
    return nodeAnswers(n, intervalMs) && !markedDown;
}

} // namespace gatehouse
