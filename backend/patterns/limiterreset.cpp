// SPDX-License-Identifier: MIT
#include "limiterreset.h"

#include "fixedwindowunit.h"
#include "slidingwindowunit.h"

namespace gatehouse {

ScriptCall limiterReset(const PatternObject &o)
{
    switch (o.kind) {
    case PatternKind::FixedWindow:
        return FixedWindowUnit::reset(o);
    case PatternKind::RedissonLimiter: {
        ScriptCall call = SlidingWindowUnit::reset(o);
        call.forceable = false;
        call.forceArg = -1;
        call.refusal = QStringLiteral("Redisson limiters are read-only in Gatehouse: reset it "
                                      "with Redisson's RRateLimiter.delete().");
        return call;
    }
    default:
        return SlidingWindowUnit::reset(o);
    }
}

} // namespace gatehouse
