// SPDX-License-Identifier: MIT
#pragma once

#include "benchreport.h"

#include <redis/redisendpoint.h>

namespace gatehouse::bench {

// Figure 1: pipelined GET, ZCARD, PTTL, LLEN through RedisClient on one
// connection vs redis-benchmark -P 64 -c 1 with the same commands and keys,
// against the same server, alternating rounds.
// redis-benchmark -P 64 -c 1 -n requests with one command: requests per second.
double peerRate(const RedisEndpoint &endpoint, const QList<QByteArray> &command, int requests);

QList<Figure> runWireBench(const RedisEndpoint &endpoint, int requests, int rounds);

} // namespace gatehouse::bench
