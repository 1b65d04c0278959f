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
// A feature is a name, the extra arguments it takes and how often the bench
// scrapes the endpoint (as Prometheus would); the baseline is the same
// process with nothing extra and never scraped.
struct OverheadFeature
{
    QString name;          // "history written, metrics scraped every 15 s"
    QStringList extraArgs; // besides serve --metrics 127.0.0.1:0 ("--history")
    int scrapeEveryMs = 0; // 0: never scraped
    bool history = false;  // --history into a fresh directory per run
    double target = 1.05;  // the most CPU, as a multiple of the baseline's; 0: no target
    bool console = false;  // the desktop console (offscreen) instead of gatehouse-cli serve
};
QList<OverheadFeature> overheadFeatures();

// Rounds of the baseline and each feature watching at the same time, their
// CPU over the same seconds; one figure per feature: its CPU against the
// baseline's, the note with the per-round ratios and each side's CPU by
// thread (/proc/PID/task/*/stat).
// only: the features to run, 1-based in overheadFeatures()' order; empty: all.
QList<Figure> runOverheadBench(const RedisEndpoint &endpoint, const MonitorBenchSizes &sizes,
                               int seconds, int rounds, const QList<int> &only = {});

// For profiling by hand: fills the server at url with the objects this group
// watches (FLUSHALL first) and writes their profile to profilePath; 0 when done.
int runOverheadFill(const QString &url, const QString &profilePath);

} // namespace gatehouse::bench
