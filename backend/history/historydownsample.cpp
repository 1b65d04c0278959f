// SPDX-License-Identifier: MIT
#include "historydownsample.h"

#include "historytime.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gatehouse::Internal {

namespace {

// A bucket's unknown figure (Bucket holds floats).
constexpr float NaN = std::numeric_limits<float>::quiet_NaN();

// The ticks of one minute: [first, end) in the hour's ticks, and whether
// one of them is full (the state starts again there).
struct MinuteSpan
{
    qint64 start;
    qsizetype first;
    qsizetype end;
    bool hasFull;
};

std::vector<MinuteSpan> minuteSpans(const MinuteTicks &hourTicks)
{
    std::vector<MinuteSpan> spans;
    for (qsizetype i = 0; i < hourTicks.times.size(); ++i) {
        const qint64 start = floorDiv(hourTicks.times.at(i), MinuteMs) * MinuteMs;
        if (spans.empty() || spans.back().start != start)
            spans.push_back({start, i, i, false});
        spans.back().end = i + 1;
        spans.back().hasFull |= (hourTicks.flags.at(i) & FullTick) != 0;
    }
    return spans;
}

// One object's samples of one minute. Per figure: min, max, sum of the
// known (non-NaN), last.
struct MinuteSums
{
    double sums[HistoryFigures] = {};
    int known[HistoryFigures] = {};
    Bucket acc[HistoryFigures];
    int samples = 0;
};

// The minute's samples of an object whose state is state, its records
// from records[*next] on (both advanced past the minute).
MinuteSums sumMinute(const MinuteSpan &span, const MinuteTicks &hourTicks,
                     const TimedRecords &records, size_t *next, SeriesState *state)
{
    MinuteSums m;
    const qint64 minuteEnd = span.start + MinuteMs;
    const bool idle = !span.hasFull && state->present
                      && (*next >= records.size() || records[*next].first >= minuteEnd)
                      && std::all_of(state->slopes, state->slopes + state->figures,
                                     [](qint8 s) { return s == 0; });
    if (idle) {
        // A flat object over the minute: its value, every sample.
        m.samples = int(span.end - span.first);
        for (int f = 0; f < state->figures; ++f) {
            const float v = float(state->values[f]);
            m.acc[f] = {v, v, v, v};
            m.known[f] = std::isnan(v) ? 0 : m.samples;
            m.sums[f] = double(v) * m.samples;
        }
        return m;
    }
    for (qsizetype i = span.first; i < span.end; ++i) {
        const qint64 t = hourTicks.times.at(i);
        if (hourTicks.flags.at(i) & FullTick)
            state->present = false;
        while (*next < records.size() && records[*next].first <= t) {
            state->apply(records[*next].second, records[*next].first);
            ++*next;
        }
        if (!state->present)
            continue;
        ++m.samples;
        for (int f = 0; f < state->figures; ++f) {
            const float x = state->valueAt(f, t);
            m.acc[f].last = x;
            if (std::isnan(x))
                continue;
            m.acc[f].min = m.known[f] == 0 ? x : std::min(m.acc[f].min, x);
            m.acc[f].max = m.known[f] == 0 ? x : std::max(m.acc[f].max, x);
            m.sums[f] += x;
            ++m.known[f];
        }
    }
    return m;
}

void appendMinute(HourBuckets &h, qint64 start, int figures, const MinuteSums &m)
{
    while (h.buckets.size() < figures) // a figure more: unknown before
        h.buckets.append(QList<Bucket>(h.minutes.size(), Bucket{NaN, NaN, NaN, NaN}));
    h.minutes.append(start);
    for (qsizetype f = 0; f < h.buckets.size(); ++f) {
        // NaN (an unknown figure, e.g. occupancy without a limit) is
        // left out; a minute of only NaN stays NaN.
        Bucket b{NaN, NaN, NaN, NaN};
        if (f < figures) {
            if (m.known[f] > 0) {
                b.min = m.acc[f].min;
                b.max = m.acc[f].max;
                b.mean = float(m.sums[f] / double(m.known[f]));
            }
            b.last = m.acc[f].last;
        }
        h.buckets[f].append(b);
    }
}

} // namespace

std::map<quint32, HourBuckets> hourBuckets(const MinuteTicks &hourTicks,
                                           const std::map<quint32, TimedRecords> &records)
{
    const std::vector<MinuteSpan> spans = minuteSpans(hourTicks);
    std::map<quint32, HourBuckets> objects;
    for (const auto &[object, list] : records) {
        HourBuckets &h = objects[object];
        SeriesState state;
        size_t next = 0;
        for (const MinuteSpan &span : spans) {
            const MinuteSums m = sumMinute(span, hourTicks, list, &next, &state);
            if (m.samples == 0)
                continue; // not present in this minute: no bucket, as format 1
            appendMinute(h, span.start, state.figures, m);
        }
    }
    return objects;
}

} // namespace gatehouse::Internal
