// SPDX-License-Identifier: MIT
// The figures the monitor keeps per tick for every object (its history
// rings) and the throughput figures derived from them.
#include "monitor.h"

#include <algorithm>

namespace gatehouse {

namespace {

// A library queue's throughput (jobs finished per second) over the last
// minute of samples: the rise of the figures its throughput chart charts
// per minute (its finished and failed counts), a fall (a clean, a library
// trimming its finished jobs) counting as none, as the chart counts it.
// ring's newest sample is at nowMs; the ones before it at tickTimes' last.
// -1 when the unit charts no such figure, or the samples span under 10 s.
double finishedPerS(const PatternUnit &unit, const QList<Figure> &figures, const HistoryRing &ring,
                    const QList<qint64> &tickTimes, qint64 nowMs)
{
    constexpr qint64 SpanMs = 60000;
    constexpr qint64 MinSpanMs = 10000;
    // The figures, once per unit (a pointer lookup per object and tick: no
    // lock, no charts built on a tick of a million objects).
    thread_local QHash<const PatternUnit *, QList<int>> doneOf;
    auto it = doneOf.constFind(&unit);
    if (it == doneOf.cend()) {
        QList<int> done;
        for (const Chart &c : unit.charts()) {
            for (const Chart::Series &series : c.series) {
                if (!series.perMinute)
                    continue;
                for (int f = 0; f < figures.size(); ++f) {
                    if (figures.at(f).id == series.figure && !done.contains(f))
                        done << f;
                }
            }
        }
        it = doneOf.insert(&unit, done);
    }
    const QList<int> &done = *it;
    if (done.isEmpty() || ring.size() < 2)
        return -1;
    double rise = 0;
    qint64 from = nowMs;
    for (int k = 1; k < ring.size() && k <= tickTimes.size(); ++k) {
        const qint64 at = tickTimes.at(tickTimes.size() - k);
        if (at < nowMs - SpanMs)
            break;
        const int newer = ring.size() - k, older = newer - 1;
        // The newest sample is at nowMs, the ones before it at tickTimes' last.
        const qint64 newerAt = k == 1 ? nowMs : tickTimes.at(tickTimes.size() - k + 1);
        for (int f : done) {
            if (f >= ring.figures())
                continue;
            rise += std::max(0.0,
                             double(ring.at(f, newer, newerAt)) - double(ring.at(f, older, at)));
        }
        from = at;
    }
    return nowMs - from >= MinSpanMs ? rise * 1000.0 / double(nowMs - from) : -1;
}

} // namespace

void Monitor::sampleHistory()
{
    const qint64 at = m_server.timeMs;
    for (qsizetype i = 0; i < m_tracked.size(); ++i) {
        Tracked &t = m_tracked[i];
        // Readings not re-read this tick are projected to its time.
        const Reading &r = m_states.at(i)->reading;
        const QList<Figure> &figures = m_figures.value(t.kind);
        double v[MaxFigures] = {};
        for (qsizetype f = 0; f < figures.size() && f < MaxFigures; ++f)
            v[f] = figures.at(f).value(r, at);
        t.history.append(v, at);
        const double throughput = nextThroughput(t, figures);
        if (throughput != t.throughputPerS) { // a new state only for a new figure
            t.throughputPerS = throughput;
            restate(int(i));
        }
    }
    m_lastTickAtMs = m_server.timeMs;
    m_historyCache.clear(); // a new sample: published histories are rebuilt
    m_attentionAtMs = -1;
    m_tickTimes.append(m_server.timeMs);
    if (m_tickTimes.size() > m_options.historyCapacity)
        m_tickTimes.removeFirst();
}

double Monitor::nextThroughput(Tracked &t, const QList<Figure> &figures)
{
    if (t.unit->hasThroughput() && m_server.eventsLive && m_lastTickAtMs > 0
        && m_server.timeMs > m_lastTickAtMs) {
        const double throughput = double(t.track.completions - t.completionsAtTick) * 1000.0
                                  / double(m_server.timeMs - m_lastTickAtMs);
        t.completionsAtTick = t.track.completions;
        return throughput;
    }
    if (t.unit->hasThroughput() && !m_server.eventsLive) {
        // Polling: the jobs that left the list between readings,
        // over at least 10 s (a reading is not every tick's).
        if (t.leftAtMs < 0) {
            t.leftAtMs = m_server.timeMs;
            t.leftAtLast = t.track.leftInFlight;
        } else if (m_server.timeMs - t.leftAtMs >= 10000) {
            const double throughput = double(t.track.leftInFlight - t.leftAtLast) * 1000.0
                                      / double(m_server.timeMs - t.leftAtMs);
            t.leftAtMs = m_server.timeMs;
            t.leftAtLast = t.track.leftInFlight;
            return throughput;
        }
        return t.throughputPerS;
    }
    if (!t.unit->hasThroughput())
        return finishedPerS(*t.unit, figures, t.history, m_tickTimes, m_server.timeMs);
    return t.throughputPerS;
}

QStringList Monitor::figureNames(PatternKind kind)
{
    QStringList names;
    for (const Figure &f : PatternUnit::of(kind).figures())
        names << f.id;
    return names;
}

QList<QPointF> Monitor::history(const QByteArray &key, const QString &figure, int maxPoints) const
{
    QList<QPointF> points;
    const int index = m_byPrimaryKey.value(key, -1);
    if (index < 0)
        return points;
    const Tracked &t = m_tracked.at(index);
    const int f = int(figureNames(t.kind).indexOf(figure));
    if (f < 0)
        return points;
    const int n = t.history.size();
    const qsizetype offset = m_tickTimes.size() - n; // objects found later have fewer samples
    // Evenly spaced samples ending at the newest: step >= 1.
    const double step = maxPoints > 1 && n > maxPoints ? double(n - 1) / (maxPoints - 1) : 1.0;
    points.reserve(qsizetype(std::min(n, maxPoints > 0 ? maxPoints : n)));
    for (double x = 0; qRound(x) < n; x += step) {
        const int i = std::min(n - 1, qRound(x));
        const qsizetype ti = offset + i;
        if (ti >= 0 && ti < m_tickTimes.size())
            points.append(QPointF(double(m_tickTimes.at(ti)),
                                  double(t.history.at(f, i, m_tickTimes.at(ti)))));
        if (i == n - 1)
            break;
    }
    return points;
}

qsizetype Monitor::tickTimeBytes() const
{
    return m_tickTimes.capacity() * qsizetype(sizeof(qint64));
}

qsizetype Monitor::historyBytes() const
{
    qsizetype bytes = m_tickTimes.capacity() * qsizetype(sizeof(qint64));
    for (const Tracked &t : m_tracked)
        bytes += t.history.bytes();
    return bytes;
}

} // namespace gatehouse
