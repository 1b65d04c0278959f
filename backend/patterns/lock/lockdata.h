// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>
#include <patterns/reading.h>

#include <QByteArray>

namespace gatehouse {

// What a lock's reading holds beyond the key's TTL (Reading::pttlMs): its
// holder. Written by the lock units (SET NX locks, legacy locks, Redisson
// locks), read by them, their panels and their JSON.
struct LockData : PatternData
{
    QByteArray token;              // holder token (lock) or raw value (legacy lock)
    qint64 expiresAtMs = -1;       // legacy lock: the expiry written in the value
    bool tokenTruncated = false;   // the value is longer than the bounded read
    qint64 waitersWithTimeout = 0; // Redisson fair lock: members of its timeout set

    PatternData *clone() const override;

    static const LockData &of(const Reading &r) { return r.data<LockData>(); }
    static LockData &in(Reading &r) { return r.edit<LockData>(); }
};

// A lock's holder across its readings (PatternUnit::track): a new token is
// held since this reading, known only when Gatehouse saw the lock taken (a
// lock already held at the first reading has an unknown start); no token
// (not held, not read) is no holder.
void trackHolder(TrackState &t, const QByteArray &token, qint64 nowMs);

} // namespace gatehouse
