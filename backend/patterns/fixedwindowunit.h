// SPDX-License-Identifier: MIT
#pragma once

#include "patternunit.h"

namespace gatehouse {

// Seed 002's fixed-window counter: a STRING incremented per request, with a
// PEXPIRE set on the first hit. GET + PTTL.
class FixedWindowUnit final : public PatternUnit
{
public:
    PatternKind kind() const override { return PatternKind::FixedWindow; }
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    static ScriptCall reset(const PatternObject &object);
};

} // namespace gatehouse
