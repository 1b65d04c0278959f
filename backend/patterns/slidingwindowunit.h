// SPDX-License-Identifier: MIT
#pragma once

#include "patternunit.h"

namespace gatehouse {

// Seed 000's sliding window (ZSET of request times in ms, plus a ZSET of
// future retry slots whose last score is the Retry-After horizon) and seed
// 003's resource/consumer windows (same shape, scores in s). Reads counts
// with ZCOUNT/ZCARD and single members; the window strip (detail) is one
// bounded page of the newest entries.
class SlidingWindowUnit final : public PatternUnit
{
public:
    explicit SlidingWindowUnit(PatternKind kind)
        : m_kind(kind)
    {}
    PatternKind kind() const override { return m_kind; }
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    static ScriptCall reset(const PatternObject &object);
    static ScriptCall clearRetrySlots(const PatternObject &object);

private:
    PatternKind m_kind;
};

} // namespace gatehouse
