// SPDX-License-Identifier: MIT
#include "lockdata.h"

namespace gatehouse {

PatternData *LockData::clone() const
{
    return new LockData(*this);
}

namespace {

// The token the last reading showed.
struct HolderTrack : PatternTrack
{
    QByteArray token;
};

} // namespace

void trackHolder(TrackState &t, const QByteArray &token, qint64 nowMs)
{
    HolderTrack &held = t.own<HolderTrack>();
    if (token.isEmpty()) {
        held.token.clear();
        t.heldSinceMs = -1;
    } else if (token != held.token) {
        held.token = token;
        t.heldSinceMs = t.everRead ? nowMs : -1;
    }
}

} // namespace gatehouse
