// SPDX-License-Identifier: MIT
#pragma once

#include "behaviour.h"

namespace gatehouse {

// What the monitor does with the events heard around each reading of an
// instance it watches (BehaviourTrack's *SinceRead). What was heard before
// a first reading was sent is the key's past: forgotten. What is heard
// while a reading travels may be a write after it (events come on another
// connection than its reply): a first reading keeps it for the first pair;
// a later one clears it once its pair has weighed it (observeBehaviour).

inline void clearHeard(BehaviourTrack &t)
{
    t.deletedSinceRead = false;
    t.expiredSinceRead = false;
    t.writtenSinceRead = false;
}

inline void readingSent(BehaviourTrack &t, bool first)
{
    if (first)
        clearHeard(t);
}

inline void readingTaken(BehaviourTrack &t, bool first)
{
    if (!first)
        clearHeard(t);
}

} // namespace gatehouse
