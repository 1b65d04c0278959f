// SPDX-License-Identifier: MIT
#pragma once

#include "benchreport.h"

#include <redis/redisendpoint.h>

#include <QStringList>

namespace gatehouse::bench {

// The million-key group (issue 16, item 4): a keyspace of `keys` mixed keys
// (ordinary application families with planted limiters, locks, one-time
// codes and queues among them), discovered by `gatehouse-cli snapshot` with
// no profile and by the console offscreen, beside a hiredis SCAN + pipelined
// TYPE loop over the same keys. Figures: discovery rate against the loop
// (target: at most 1.3 times its time), peak resident memory of the CLI and
// of the console (each at most 300 MB), the console's bytes per shown object
// (at most 2 KB) and the slowest command SLOWLOG saw during the CLI's
// discovery (none over 10 ms).
QList<Figure> runMillionBench(const RedisEndpoint &endpoint, int keys);

// The console's side, in a process of its own (gatehouse-bench
// --million-gui URL): connects without a profile, waits for discovery and
// the snapshot after it, prints one JSON line (resident memory before and
// at its peak, rows shown, wall time) and returns the exit code.
int runMillionGuiChild(const QString &url);

// Fills the server at `url` with the group's keyspace (FLUSHALL first) and
// returns: for profiling discovery by hand (gatehouse-bench --million-fill URL).
int runMillionFill(const QString &url, int keys);

} // namespace gatehouse::bench
