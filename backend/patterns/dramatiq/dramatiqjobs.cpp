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

JobRead DramatiqUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    // The message as Message.encode wrote it, in the messages hash of the
    // queue, the delay queue or the dead letters, whichever holds it (an
    // unacked message stays in its queue's hash until acked).
    const QList<QByteArray> hashes{keyOf(o, Msgs), keyOf(o, DelayedMsgs), keyOf(o, DeadMsgs)};
    JobRead read;
    for (const QByteArray &hash : hashes)
        read.commands.append({"HSTRLEN", hash, job});
    read.next = [hashes, job](const QList<RedisValue> &r) {
        for (qsizetype i = 0; i < hashes.size() && i < r.size(); ++i) {
            const qint64 n = r.at(i).toInteger();
            if (r.at(i).isError() || n <= 0)
                continue;
            const QByteArray hash = hashes.at(i);
            const QString where = QStringLiteral("%1 field %2")
                                      .arg(printableBytes(hash, 80), printableBytes(job, 80));
            if (n > JobFieldCutBytes) {
                JobListing detail;
                detail.job = job;
                detail.ok = false;
                detail.message = QStringLiteral("%1 is %2 bytes: over the %3 KiB cut, not read.")
                                     .arg(where)
                                     .arg(n)
                                     .arg(JobFieldCutBytes / 1024);
                return JobRead::done(detail);
            }
            JobRead value;
            value.commands = {{"HGET", hash, job}};
            value.next = [job, where](const QList<RedisValue> &v) {
                return JobRead::done(libraryqueue::jsonDetail(job, v.value(0).bytes(), where));
            };
            return value;
        }
        JobListing detail;
        detail.job = job;
        detail.ok = false;
        detail.message = r.value(0).isError()
                             ? r.value(0).errorMessage()
                             : QStringLiteral("Message %1 has no record in the queue's, the delay "
                                              "queue's or the dead letters' messages hash (acked "
                                              "or removed).")
                                   .arg(printableBytes(job, 80));
        return JobRead::done(detail);
    };
    return read;
}

} // namespace gatehouse
