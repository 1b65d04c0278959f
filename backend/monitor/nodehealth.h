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

} // namespace gatehouse
