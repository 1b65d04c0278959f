// SPDX-License-Identifier: MIT
#include "dramatiqunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

namespace gatehouse {

JobRead DramatiqUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                              int count) const
{
    // A page of message ids: the queue and the delay queue in their order,
    // the dead letters newest first (scored by when, ms). Unacked messages
    // are in the workers' ack sets (the in-flight list under the table).
    auto rows = [](JobListing page, const QList<libraryqueue::PageEntry> &entries) {
        for (const libraryqueue::PageEntry &e : entries) {
            JobRow row;
            row.id = e.value;
            bool ok = false;
            const double ms = e.score.toDouble(&ok);
            row.atMs = ok ? qint64(ms) : -1;
            page.rows << row;
        }
        return JobRead::done(page);
    };
    if (state == QLatin1String("enqueued"))
        return libraryqueue::pageOfLists(state, {keyOf(o, Queue)}, offset, count, rows);
    if (state == QLatin1String("delayed"))
        return libraryqueue::pageOfLists(state, {keyOf(o, Delayed)}, offset, count, rows);
    if (state == QLatin1String("dead"))
        return libraryqueue::pageOfSet(state, keyOf(o, Dead), true, offset, count, rows);
    return {};
}

} // namespace gatehouse
