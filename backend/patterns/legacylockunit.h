// SPDX-License-Identifier: MIT
#pragma once

#include "patternunit.h"

namespace gatehouse {

// Seed 004's SETNX/GETSET lock, read-only: the value is the Unix time at
// which the lock stops being valid (s, or ms when it is that large), usually
// with no TTL. An expiry in the past means its holder likely crashed and the
// next client must break it with GETSET.
class LegacyLockUnit final : public PatternUnit
{
public:
    PatternKind kind() const override { return PatternKind::LegacyLock; }
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    // The expiry in ms since the epoch written in a value, or -1.
    static qint64 expiryFromValue(const QByteArray &value);
};

} // namespace gatehouse
