// SPDX-License-Identifier: MIT
#pragma once

#include "benchreport.h"

#include <redis/redisendpoint.h>

namespace gatehouse::bench {

// Figure 1: pipelined GET, ZCARD, PTTL, LLEN through RedisClient on one
// connection vs redis-benchmark -P 64 -c 1 with the same commands and keys,
// against the same server, alternating rounds.
QList<Figure> runWireBench(const RedisEndpoint &endpoint, int requests, int rounds);

} // namespace gatehouse::bench
