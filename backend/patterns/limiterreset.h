// SPDX-License-Identifier: MIT
#pragma once

#include "patternobject.h"
#include "scriptcall.h"

namespace gatehouse {

// The reset of any limiter, as its own pattern does it (sliding and
// resource/consumer windows with their retry slots, fixed-window counters);
// the GUI and the CLI both build it here. Redisson limiters are read-only in
// Gatehouse: their call carries a refusal that cannot be forced.
ScriptCall limiterReset(const PatternObject &limiter);

} // namespace gatehouse
