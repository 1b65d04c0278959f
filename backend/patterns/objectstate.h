// SPDX-License-Identifier: MIT
#pragma once

#include "patternobject.h"
#include "reading.h"

namespace gatehouse {

// One instance as the monitor publishes it: what it is, its last reading, and
// what the monitor tracked across readings (PatternUnit::track).
struct ObjectState
{
    SharedObject object;
    Reading reading;
    qint64 firstSeenMs = 0;     // server time Gatehouse first saw the instance
    qint64 heldSinceMs = -1;    // locks: first seen with the current token
    qint64 goneSinceMs = -1;    // server time of the first reading that found it gone
    double throughputPerS = -1; // queues: jobs finished per second; -1 unknown (no events)
    qint64 staleSinceMs = -1;   // server time of that last reading; -1 when not stale
    bool gone = false;          // its keys disappeared (expired, deleted, lost)
    // The reading could not be refreshed for two ticks (server stopped,
    // asleep, unreachable); it is the last one that arrived.
    bool stale = false;
};

} // namespace gatehouse
