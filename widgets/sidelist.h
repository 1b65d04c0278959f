// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>
#include <patterns/objecthealth.h>

#include <QHash>
#include <QIcon>
#include <QMap>

#include <memory>

namespace gatehouse {

// What the side list shows next to a section's page: how many objects it
// has, how many need an operator (a state at Warning or above) and the
// worst of their states, by words ("2 over limit, 1 near limit").
struct SectionTally
{
    int objects = 0;   // not gone
    int attention = 0; // at Warning or above
    Severity worst = Severity::Ok;
    QMap<QString, int> byWords; // the attention states' words, counted
    QString toolTip() const;
};

// Every section's tally at the snapshot's server time (PatternUnit::health
// of each object: cheap, as the Status column's).
QHash<QString, SectionTally> tallySections(const Snapshot &snapshot);

// tallySections from one snapshot to the next (the GUI thread's, every
// snapshot): an object whose state is the one the last snapshot had at its
// place (the monitor shares unchanged states) is not judged again, unless
// it needs attention and its words have a figure ("stale for 12 s": they
// may move with time). A state that time changes comes as a new reading
// (PatternUnit::validUntilMs).
class SectionTallier
{
public:
    QHash<QString, SectionTally> tally(const std::shared_ptr<const Snapshot> &snapshot);

private:
    struct Judged
    {
        const ObjectState *state = nullptr; // m_last's
        qint16 section = -1;                // in m_sections; -1: gone, not counted
        Severity severity = Severity::Ok;
        int kind = -1;      // in m_kinds, for a state needing attention
        bool timed = false; // its words have a figure: they may move with time
    };
    std::shared_ptr<const Snapshot> m_last; // keeps Judged::state alive
    QList<Judged> m_judged;                 // by index in m_last->objects
    QStringList m_sections;
    QHash<PatternKind, int> m_sectionOf;
    QStringList m_kinds; // the attention states' words without their figures
};

// A round badge of the severity's colours, with count written in it when
// count > 0 (the side list's icons).
QIcon badgeIcon(Severity severity, int count, const QPalette &palette, int size);

} // namespace gatehouse
