// SPDX-License-Identifier: MIT
#pragma once

#include "benchreport.h"

#include <redis/redisendpoint.h>

namespace gatehouse::bench {

// Figure 8: lua/sliding_window.lua's decisions per second via EVALSHA vs seed
// 000's rolling-window script, both through RedisClient on one connection,
// same key count and load, alternating rounds; and the requests each loses
// in a same-millisecond burst of 10x the limit.
QList<Figure> runLimiterBench(const RedisEndpoint &endpoint, int decisions, int rounds);

} // namespace gatehouse::bench
