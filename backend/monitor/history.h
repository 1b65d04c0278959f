// SPDX-License-Identifier: MIT
#pragma once

#include <QList>

#include <algorithm>

namespace gatehouse {

// The last `capacity` samples of a few figures of one object (sample times
// are kept once, by the monitor, for all objects; a reader passes sample i's
// time to at()).
//
// Most objects are idle: between two readings their figures only move by
// projection (a TTL counts down, an age grows, a count stays), so a ring
// first keeps motions, as the history file does (backend/history/
// historychanges.h): a value at a time and how it moves from there (flat,
// falling by 1 ms per ms to 0, rising by 1 ms per ms), the slopes taken from
// a motion's first two samples. A sample the last motion predicts exactly
// costs nothing; one it does not starts a new motion. Once the motions would
// take a quarter of what the dense ring takes (a busy object), the ring
// takes its full size at once (zeroed, so resident: memory is flat from
// then on) and keeps one float per sample per figure (4 bytes); the motions
// still answer for the samples before that until the dense ring holds
// `capacity` samples. Either way every sample reads back as appended (as a
// float), so the charts are the same.
class HistoryRing
{
public:
    static constexpr int MaxFigures = 16; // as the history file keeps (HistoryFigures)

    HistoryRing() = default;
    // Nothing is allocated before the first sample. figures: at most MaxFigures.
    HistoryRing(int figures, int capacity)
        : m_figures(std::clamp(figures, 0, MaxFigures))
        , m_capacity(std::max(0, capacity))
    {}

    // values: one per figure; atMs: the sample's time (server ms), not
    // before the last sample's.
    void append(const double *values, qint64 atMs);
    int size() const { return int(std::min<qint64>(m_appended, m_capacity)); }
    int figures() const { return m_figures; }
    // i = 0 is the oldest sample kept; atMs: the time sample i was appended with.
    float at(int figure, int i, qint64 atMs) const;
    // Heap bytes held: the motions, then the dense ring (at full capacity).
    qsizetype bytes() const;
    bool isDense() const { return !m_dense.isEmpty(); }

private:
    // A motion in m_motions: Header words, then one double per figure (and
    // with more than 8 figures a word of their slopes).
    enum : qsizetype { AtWord, FirstWord, Header };
    // Header words, one per figure, and one of slopes past the 8th figure.
    qsizetype stride() const;
    qsizetype motionCount() const { return m_motions.size() / stride(); }
    qint64 motionFirst(qsizetype m) const;
    void startMotion(const double *values, qint64 atMs);
    bool predicted(const double *values, qint64 atMs);
    double motionValue(qsizetype m, int figure, qint64 atMs) const;
    void dropOldMotions();

    int m_figures = 0;
    int m_capacity = 0;
    qint64 m_appended = 0;    // samples appended in all
    qint64 m_denseFrom = -1;  // the number of the first sample in m_dense; -1: none yet
    QList<quint64> m_motions; // oldest first; see Header
    QList<float> m_dense;     // sample-major ([sample % capacity][figure]), once dense
};

} // namespace gatehouse
