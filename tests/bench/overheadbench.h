// SPDX-License-Identifier: MIT
#pragma once

#include "benchreport.h"
#include "monitorbench.h"

#include <redis/redisendpoint.h>

#include <QStringList>

namespace gatehouse::bench {

// The console's own CPU with an optional feature on, against the same
// console without it: `gatehouse-cli serve` (the monitor of the console,
// headless) watching the tracked objects of figures 3-7, its process CPU
// time (user + system, /proc/PID/stat) per minute of watching.
//
// A feature is a name, the extra arguments it takes and whether the bench
// scrapes the endpoint every second (as Prometheus would); the baseline is
// the same process with nothing extra and never scraped. "History on" (the
// history store, another issue) is one more entry in overheadFeatures().
struct OverheadFeature
{
    QString name;          // "metrics served and scraped every second"
    QStringList extraArgs; // besides serve --metrics 127.0.0.1:0
    bool scrape = false;   // GET /metrics every second
};
QList<OverheadFeature> overheadFeatures();

// Alternating rounds of baseline and each feature, seconds of watching each;
// one figure per feature: its CPU / the baseline's (target <= 1.05).
QList<Figure> runOverheadBench(const RedisEndpoint &endpoint, const MonitorBenchSizes &sizes,
                               int seconds, int rounds);

} // namespace gatehouse::bench
