// SPDX-License-Identifier: MIT
#pragma once

#include <history/historystore.h>
#include <monitor/snapshot.h>

#include <QList>
#include <QString>
#include <QVector>

class QCPGraph;

namespace gatehouse {

// The least span of samples a rise per minute is taken over (s).
constexpr double RiseLeastS = 10.0;

// A growing count (x in seconds) as its rise per minute over the minute
// before each point: the rises between readings summed (a fall, a clean or
// a trim of finished jobs, counts as none), over at least RiseLeastS so that
// one job done between two close readings is not charted as hundreds a
// minute.
void risePerMinute(QVector<double> &keys, QVector<double> &values);

// The points of a chart's series at one refresh of ChartPanel. Live: x in
// seconds back from the server's time now, the history file's points (an
// earlier run's) before the monitor's first. History: x in seconds since the
// epoch, the file's points then the live ones after them. It counts the
// points read and keeps the values inside the range shown, for the y axis.
class SeriesPoints
{
public:
    struct Source
    {
        ObjectHistoryPtr history;             // the monitor's; may be null
        const HistoryRange *loaded = nullptr; // read from the file; may be null
        bool fromFile = false;                // a history range, not the live one
        bool custom = false;                  // a custom range: [wantFrom, wantTo] only
        double nowMs = 0;                     // the server's time of the snapshot
        double rangeS = 0;                    // the live range's span
        qint64 wantFrom = 0;
        qint64 wantTo = 0;
    };

    explicit SeriesPoints(Source source)
        : m_source(std::move(source))
    {}

    // graph's data: figure's points scaled; perMinute, as a rise per minute.
    void fill(QCPGraph *graph, const QString &figure, double scale, bool perMinute);
    // Before a chart's series: its own values and count.
    void startChart()
    {
        shown.clear();
        read = 0;
    }

    QList<double> shown; // the values inside the range, for the y axis
    qsizetype read = 0;  // points the chart's figures have, charted or not (none, NaN)

private:
    // The file's points into keys and values; the last key of a history range.
    double fromFile(const QString &figure, double scale, const QList<QPointF> &live,
                    QVector<double> &keys, QVector<double> &values);

    Source m_source;
};

} // namespace gatehouse
