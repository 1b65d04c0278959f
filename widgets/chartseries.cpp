// SPDX-License-Identifier: MIT
#include "chartseries.h"

#include <qcustomplot.h>

#include <cmath>

namespace gatehouse {

void risePerMinute(QVector<double> &keys, QVector<double> &values)
{
    constexpr double Window = 60.0, Least = RiseLeastS;
    QVector<double> rises(values.size() + 1, 0.0); // rises[i]: sum of rises up to point i
    for (qsizetype i = 1; i < values.size(); ++i)
        rises[i] = rises[i - 1] + std::max(0.0, values.at(i) - values.at(i - 1));
    QVector<double> outKeys, outValues;
    qsizetype j = 0;
    for (qsizetype i = 1; i < keys.size(); ++i) {
        while (j < i - 1 && keys.at(i) - keys.at(j) > Window)
            ++j;
        const double span = keys.at(i) - keys.at(j);
        if (span < Least)
            continue;
        outKeys.append(keys.at(i));
        outValues.append((rises.at(i) - rises.at(j)) * 60.0 / span);
    }
    keys = outKeys;
    values = outValues;
}

double SeriesPoints::fromFile(const QString &figure, double scale, const QList<QPointF> &live,
                              QVector<double> &keys, QVector<double> &values)
{
    const Source &s = m_source;
    double lastKey = -qInf();
    if (!s.loaded)
        return lastKey;
    if (s.fromFile) {
        for (const QPointF &p : s.loaded->points(figure)) {
            ++read;
            if (std::isnan(p.y()))
                continue;
            keys.append(p.x() / 1000.0);
            values.append(p.y() * scale);
            lastKey = p.x() / 1000.0;
        }
        return lastKey;
    }
    // Live after a read of the file: its points before the monitor's first
    // (an earlier run's), seconds back from now.
    const double firstLive = live.isEmpty() ? qInf() : live.first().x();
    for (const QPointF &p : s.loaded->points(figure)) {
        if (p.x() >= firstLive)
            break;
        ++read;
        if (std::isnan(p.y()) || (scale < 1.0 && p.y() < 0))
            continue;
        keys.append((p.x() - s.nowMs) / 1000.0);
        values.append(p.y() * scale);
        if (keys.last() >= -s.rangeS)
            shown.append(values.last());
    }
    return lastKey;
}

void SeriesPoints::fill(QCPGraph *graph, const QString &figure, double scale, bool perMinute)
{
    const Source &s = m_source;
    const qsizetype shownBefore = shown.size();
    QVector<double> keys, values;
    const QList<QPointF> points = s.history ? s.history->points(figure) : QList<QPointF>();
    read += points.size();
    const double lastKey = fromFile(figure, scale, points, keys, values);
    for (const QPointF &p : points) {
        // NaN: not known then; a negative duration (scaled from ms) is
        // the figures' "none" (-1 ms), not a value to chart.
        if (std::isnan(p.y()) || (scale < 1.0 && p.y() < 0))
            continue;
        if (s.fromFile) {
            if (p.x() / 1000.0 <= lastKey)
                continue; // the file has it already
            if (s.custom && (p.x() < s.wantFrom || p.x() > s.wantTo))
                continue;
            keys.append(p.x() / 1000.0);
        } else {
            keys.append((p.x() - s.nowMs) / 1000.0);
        }
        values.append(p.y() * scale);
        if (keys.last() >= -s.rangeS)
            shown.append(values.last());
    }
    if (perMinute) {
        shown.resize(shownBefore);
        risePerMinute(keys, values);
        for (qsizetype i = 0; i < keys.size(); ++i) {
            if (s.fromFile || keys.at(i) >= -s.rangeS)
                shown.append(values.at(i));
        }
    }
    graph->setData(keys, values, true);
}

} // namespace gatehouse
