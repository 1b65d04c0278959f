// SPDX-License-Identifier: MIT
#pragma once

#include "patternunit.h"

namespace gatehouse {

// Redisson's RRateLimiter (seed 001), read-only: a HASH with rate, interval
// (ms) and type, "{name}:value" holding the permits left, and
// "{name}:permits", a ZSET of grants scored by time whose members are
// struct.pack('fI', random, permits). Permits used = the sum over grants in
// the last interval; the next permit frees when the oldest grant leaves it.
class RedissonLimiterUnit final : public PatternUnit
{
public:
    PatternKind kind() const override { return PatternKind::RedissonLimiter; }
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    // The permits in one grant member; 1 when the layout is not Redisson's 'fI'.
    static qint64 permitsInGrant(const QByteArray &member);
    static QByteArray valueKey(const QByteArray &name) { return '{' + name + "}:value"; }
    static QByteArray permitsKey(const QByteArray &name) { return '{' + name + "}:permits"; }
};

} // namespace gatehouse
