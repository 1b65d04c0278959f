// SPDX-License-Identifier: MIT
#pragma once

#include <QList>

#include <algorithm>

namespace gatehouse {

// The last `capacity` samples of a few figures of one object, one float each
// (4 bytes per sample per figure; sample times are kept once, by the
// monitor, for all objects), allocated at full capacity.
class HistoryRing
{
public:
    HistoryRing() = default;
    // The ring takes its full size at once (zeroed, so resident): memory is
    // flat from the first sample on, not growing for the ring's first fill.
    HistoryRing(int figures, int capacity)
        : m_figures(figures)
        , m_capacity(capacity)
        , m_data(qsizetype(std::max(0, figures)) * std::max(0, capacity), 0.0f)
    {}

    void append(const float *values);
    int size() const { return m_count; }
    int figures() const { return m_figures; }
    // i = 0 is the oldest sample kept.
    float at(int figure, int i) const;
    qsizetype bytes() const { return m_data.capacity() * qsizetype(sizeof(float)); }

private:
    int m_figures = 0;
    int m_capacity = 0;
    int m_head = 0; // next slot to write once full
    int m_count = 0;
    QList<float> m_data; // sample-major: [sample][figure]
};

} // namespace gatehouse
