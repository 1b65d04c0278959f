// SPDX-License-Identifier: MIT
#pragma once

#include "benchreport.h"

#include <monitor/profile.h>
#include <redis/redisclient.h>
#include <redis/redisendpoint.h>

namespace gatehouse::bench {

struct MonitorBenchSizes
{
    int keys = 1000000;   // figure 2: keys in the database, about 1 % profiled
    int limiters = 10000; // figures 3, 5, 6, 7
    int locks = 10000;
    int queues = 1000;
    int eventWrites = 1000;       // figure 6
    int observerSegmentMs = 2000; // figure 5: each side's time per cycle
};

// Writes the limiters, locks and queues of figures 3-7 (with the profile
// benchProfile() describes); returns the server time used.
qint64 populateTracked(RedisClient &client, const MonitorBenchSizes &sizes);
Profile benchProfile();

// Figure 2: discovery vs a minimal hiredis SCAN loop (COUNT 1000) and
// redis-cli --scan --pattern; first batch latency.
QList<Figure> runDiscoveryBench(const RedisEndpoint &endpoint, const MonitorBenchSizes &sizes,
                                int rounds);
// Figures 3, 5, 6 and 7: refresh of limiters + locks + queues, the observer
// effect on another client's latency, event-to-snapshot latency, and memory.
QList<Figure> runRefreshBench(const RedisEndpoint &endpoint, const MonitorBenchSizes &sizes,
                              int rounds);

} // namespace gatehouse::bench
