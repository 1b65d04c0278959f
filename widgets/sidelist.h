// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>
#include <patterns/objecthealth.h>

#include <QHash>
#include <QIcon>
#include <QMap>

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

// A round badge of the severity's colours, with count written in it when
// count > 0 (the side list's icons).
QIcon badgeIcon(Severity severity, int count, const QPalette &palette, int size);

} // namespace gatehouse
