// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QString>

#include <optional>

class QCustomPlot;

namespace gatehouse {

// The y range of a history chart: it always holds every value and the
// limit (an overshoot past the limit is the moment an operator needs to
// see), starts at zero for figures that cannot be negative, and keeps a
// little headroom so the top value does not sit on the frame. An all-zero
// (or empty) series gets 0..1, never a range around zero.
struct ValueRange
{
    double lower = 0;
    double upper = 1;
};
ValueRange valueRange(const QList<double> &values, std::optional<double> limit);

// Ticks for an axis length in pixels: about one per 60 px, 2 to 8.
int tickCountFor(int axisPixels);

// The file an exported chart is written to: "<chart>-<key>-<time>.png",
// the chart's title and the key reduced to file-name-safe characters, the
// time as yyyyMMdd-HHmmss (local).
QString chartFileName(const QString &chart, const QString &key, qint64 timeMs);

// The data points drawn in all of plot's graphs.
int drawnPoints(const QCustomPlot *plot);

// A live chart's time axis span (s): the range, or less while the data does
// not fill it (from a little before the oldest point, 10 s at least).
double liveSpanS(const QCustomPlot *plot, double rangeS);

} // namespace gatehouse
