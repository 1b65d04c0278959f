// SPDX-License-Identifier: MIT
#pragma once

#include "probecost.h"

#include <QList>

#include <utility>

namespace gatehouse {

// Budgeted polling's plan (Monitor::Options::budgetPercent): which objects a
// tick reads when keyspace events do not say what changed, against a share
// of the server's time measured from the monitor's own round trips
// (ProbeCost), and the age a reading can have at most under that plan.
//
// The monitor sorts its objects into three lists: those read every tick
// (never read, dirty, selected or watched), the hot ones (changed lately,
// needing attention, or past the moment only Redis can tell what they look
// like) and the idle ones. Hot objects are read every tick while the budget
// affords them and take turns when it does not; idle ones take turns with
// what is left, each at least every sweepMs.
class RefreshBudget
{
public:
    struct Settings
    {
        int intervalMs = 1000;
        double budgetPercent = 2.0;
        int sweepMs = 120000;
        qsizetype tripObjects = 100; // objects per paced round trip, at most
    };
    struct Plan
    {
        QList<int> read; // ascending
        // No reading older than this while the plan holds: the largest of
        // the bounds of the ticks of one rotation.
        qint64 ageBoundMs = 0;
    };

    // Whether a paced tick or a full pass has measured the cost yet.
    bool known() const { return m_cost.known(); }
    ProbeCost &cost() { return m_cost; }
    const ProbeCost &cost() const { return m_cost; }

    // always, hot and idle: object indices, ascending. sweepNext: where the
    // idle objects' turn starts (an object index, so the rotation survives
    // objects turning hot or idle), moved past the idle objects read.
    Plan plan(const Settings &settings, QList<int> always, const QList<int> &hot,
              const QList<int> &idle, qsizetype &sweepNext, qint64 serverNowMs);

private:
    ProbeCost m_cost;
    qsizetype m_hotNext = 0;                   // where the hot objects' turn starts
    QList<std::pair<qint64, qint64>> m_bounds; // (server ms, age bound) of recent ticks
};

} // namespace gatehouse
