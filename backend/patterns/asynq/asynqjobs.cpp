// SPDX-License-Identifier: MIT
#include "asynqlayout.h"

#include "asynqunit.h"
#include <patterns/timemath.h>

#include <patterns/libraryqueue/libraryqueue.h>

namespace gatehouse {

JobRead AsynqUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                           int count) const
{
    // A page of task ids; a sorted set's score is when (epoch s) the task is
    // due (scheduled, retry), was archived, or its retention ends (completed).
    auto rows = [](JobListing page, const QList<libraryqueue::PageEntry> &entries) {
        for (const libraryqueue::PageEntry &e : entries) {
            JobRow row;
            row.id = e.value;
            bool ok = false;
            const double s = e.score.toDouble(&ok);
            row.atMs = ok ? secondsToMs(s).value_or(-1) : -1;
            page.rows << row;
        }
        return JobRead::done(page);
    };
    const int s = int(jobStates().indexOf(state));
    if (s < 0)
        return {};
    if (s == Pending || s == Active)
        return libraryqueue::pageOfLists(state, {keyOf(o, State(s))}, offset, count, rows);
    return libraryqueue::pageOfSet(state, keyOf(o, State(s)), true, offset, count, rows);
}

} // namespace gatehouse
