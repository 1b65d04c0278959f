// SPDX-License-Identifier: MIT
#pragma once

#include <QList>

#include <utility>

namespace gatehouse {

// What a paced round trip of the monitor's probes costs, as a line: a fixed
// part per round trip (the server's read and write of the socket, and the
// loopback) and a part per object. Budgeted polling asks it how many objects
// a tick can afford (Monitor::Options::budgetPercent).
//
// The two parts are told apart by round trips of different sizes (a tick's
// last batch holds what is left): the slope is the median of the slopes
// between such pairs, so one reply held up by this process's own work (a
// history write, a paint, a page fault) moves nothing. While every recent
// round trip holds the same number of objects, the fixed part stays as last
// measured and the per-object part is what the round trips leave after it,
// so the line passes through what the ticks actually cost.
//
// A cost per object taken as a round trip over its objects would depend on
// how many objects share it: the count it sets would set it in turn, and the
// budget would rise for some ticks and fall as soon as a tick took one round
// trip more.
class ProbeCost
{
public:
    // Round trips of the last this many paced ticks are kept.
    static constexpr int TicksKept = 8;
    static constexpr qsizetype TripsKept = 64;
    // Sizes at least this far apart tell the fixed part from the rest.
    static constexpr qsizetype MinSpread = 8;

    bool known() const { return m_perObjectUs > 0; }
    bool paced() const { return m_paced; }
    double perObjectUs() const { return m_perObjectUs; }
    double perTripUs() const { return m_perTripUs; }

    // An unpaced pass (the pipe kept full): its wall time per object, an
    // estimate until the first paced tick, never after.
    void seed(double usPerObject);
    // A paced tick's round trips: (objects, round trip in us) each.
    void addTick(const QList<std::pair<qsizetype, double>> &trips);
    // The most objects a tick spending at most budgetUs can read, its
    // round trips holding at most tripObjects each. 0 while unknown.
    qsizetype affordable(double budgetUs, qsizetype tripObjects) const;

private:
    void fit();

    QList<QList<std::pair<qsizetype, double>>> m_ticks;
    double m_perObjectUs = -1;
    double m_perTripUs = 0;
    bool m_paced = false;
};

} // namespace gatehouse
