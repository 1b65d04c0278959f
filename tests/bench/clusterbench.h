// SPDX-License-Identifier: MIT
#pragma once

#include "benchreport.h"

namespace gatehouse::bench {

struct ClusterBenchSizes
{
    int keys = 300000; // over three masters, 1 % profiled locks
    int limiters = 3000;
    int locks = 3000;
    int queues = 300;
};

// A real Cluster of six (tests/support/rediscluster): Gatehouse's discovery
// from one node's address against per-master hiredis SCAN loops run in
// parallel (target: at most 1.2 times their time), and one full refresh's
// round trips per 1,000 objects on the Cluster (target: as on one node, 3).
QList<Figure> runClusterBench(const ClusterBenchSizes &sizes, int rounds);

} // namespace gatehouse::bench
