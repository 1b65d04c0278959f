// SPDX-License-Identifier: MIT
#pragma once

#include "benchreport.h"

#include <redis/redisendpoint.h>

namespace gatehouse::bench {

// The job search group (issue 38, item 1): `jobs` completed BullMQ jobs and
// `jobs` dead Sidekiq jobs, each cloned from one job the real library wrote
// (bullmq-app.js with a real worker; sidekiq_app.rb's DeadSet#kill), so every
// record has the library's own fields. Figures, each beside the library's
// own way to find a job:
//  - BullMQ, a payload path (data.n = X): Gatehouse's search (JobSearch,
//    paced at its default busy share) against Queue#getJobs read 1000 at a
//    time and filtered in Node; time per 100,000 jobs, and the hit checked;
//  - Sidekiq, an error text: Gatehouse's search against Sidekiq Web's filter
//    (SortedSet#scan, ZSCAN MATCH on the server);
//  - another client's GET p99 while each search runs, against the same
//    client with no search (alternating segments): at most 1.10 times.
QList<Figure> runSearchBench(const RedisEndpoint &endpoint, int jobs, int cycles, int segmentMs);

} // namespace gatehouse::bench
