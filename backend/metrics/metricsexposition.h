// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>

#include <QByteArray>
#include <QString>

#include <memory>

namespace gatehouse {

// What the console itself costs and how old its reading is: measured by
// whoever serves the metrics, at scrape time. Negative: unknown, not exposed.
struct ConsoleFigures
{
    TickCost lastTick;
    double cpuSeconds = -1;         // the process's CPU time (user + system) since it started
    double snapshotAgeSeconds = -1; // since the snapshot being served was published
    qint64 residentBytes = -1;      // the process's resident memory
    qint64 scrapes = -1;            // GET /metrics answered so far
};

// The Prometheus text exposition format (version 0.0.4) of a snapshot:
// every live figure of every object (the figures its pattern declares,
// PatternUnit::figures()), library objects' counts by state, per-node
// figures, the monitor's reading age and the console's own cost. A pure
// function: no Redis call, no clock read (times come from the snapshot).
//
// Names: gatehouse_<section>_<figure in snake case>, durations in seconds
// ("retryHorizonMs" of a limiter: gatehouse_limiter_retry_horizon_seconds),
// ratios as ratios (occupancy 0.93); labels key and pattern.
//
// Label cardinality is bounded: a pattern with more than maxObjectsPerPattern
// objects exposes that many individually (the lowest keys in byte order, so
// the same ones scrape after scrape) and the rest as one series per figure
// with key="<other>" and aggregate="sum" and aggregate="max";
// gatehouse_objects_aggregated{pattern} says how many went there.
//
// Which objects go where (grouped by pattern, the lowest keys picked) is
// kept from one render() to the next while the snapshot's objects are the
// same keys in the same places (an object whose state did not change is the
// same ObjectState, compared by pointer; one that changed, by key): a scrape
// of a snapshot like the last one sorts nothing. The figures themselves are
// read again every time (most move with the snapshot's time: TTLs, held
// for, a window's entries). Copies share the layout; one thread renders.
struct MetricsExposition
{
    static constexpr int DefaultMaxObjectsPerPattern = 500;
    static constexpr const char *ContentType = "text/plain; version=0.0.4; charset=utf-8";
    static constexpr const char *OtherKey = "<other>";

    int maxObjectsPerPattern = DefaultMaxObjectsPerPattern;
    // Not empty: every sample carries deployment="<this>" first (serve
    // watching several deployments in one endpoint).
    QString deployment;

    MetricsExposition();

    // The snapshot's part (objects, nodes, server).
    QByteArray render(const Snapshot &snapshot) const;
    // The console's part, measured at scrape time (appended to render()'s);
    // with a deployment, its samples carry that label.
    static QByteArray renderConsole(const ConsoleFigures &figures,
                                    const QString &deployment = QString());
    // Several expositions as one: a family named in more than one keeps its
    // first HELP and TYPE, and its samples follow in the order given (the
    // format allows a name's header once, with all its samples after it).
    static QByteArray merge(const QList<QByteArray> &texts);
    // deployment="<name>", escaped; empty for an empty name.
    static QByteArray deploymentLabels(const QString &deployment);

    // Pieces, public for their tests.
    // A label value escaped per the format: \ as \\, " as \", newline as \n.
    static QByteArray escapeLabelValue(const QByteArray &utf8);
    // A HELP text escaped: \ as \\, newline as \n.
    static QByteArray escapeHelp(const QByteArray &utf8);
    // A key as a label value: its bytes when they are UTF-8, else
    // "base64:" and their Base64 (label values must be UTF-8).
    static QByteArray keyLabel(const QByteArray &key);
    // "retryHorizonMs" -> "retry_horizon_ms"; anything outside [a-zA-Z0-9_]
    // becomes '_'.
    static QByteArray snakeCase(const QString &id);
    // The metric name of a figure of a section ("limiter", "retryHorizonMs",
    // duration) -> "gatehouse_limiter_retry_horizon_seconds". Suffixes
    // Prometheus reserves for other types are not a gauge's: a count of
    // things is named by the things ("token", "count" -> "gatehouse_tokens";
    // "lock", "holdCount" -> "gatehouse_lock_holds").
    static QByteArray figureMetricName(const QString &section, const QString &figure,
                                       bool isDuration);
    // "counter" for a figure named a running total ("failedTotal": a
    // library's own statistic, which only grows until it is reset), else
    // "gauge".
    static QByteArray figureMetricType(const QByteArray &metricName);
    // A sample value: integers without a fraction, NaN and +Inf/-Inf as the
    // format spells them.
    static QByteArray formatValue(double v);

    // How many times render() grouped and picked the objects afresh (the
    // layout above was not reusable), for tests.
    int layoutsMade() const;

private:
    struct Layout;
    std::shared_ptr<Layout> m_layout;
};

} // namespace gatehouse
