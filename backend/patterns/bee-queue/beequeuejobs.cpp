// SPDX-License-Identifier: MIT
#include "beequeueunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace gatehouse {

namespace {

// A record read whole in a page only when this small; larger ones by size.
constexpr qint64 RecordCutBytes = 4096;

// The page's rows from its ids: each record's size first, then the small
// records (Job#toData's JSON: options.timestamp, options.retries, the
// newest of options.stacktraces).
JobRead rowsOf(const QByteArray &jobs, JobListing page, const QList<QByteArray> &ids)
{
    if (ids.isEmpty())
        return JobRead::done(page);
    JobRead read;
    for (const QByteArray &id : ids)
        read.commands.append({"HSTRLEN", jobs, id});
    read.next = [jobs, page, ids](const QList<RedisValue> &r) mutable {
        QList<QByteArray> small;
        for (qsizetype i = 0; i < ids.size(); ++i) {
            JobRow row;
            row.id = ids.at(i);
            const qint64 n = r.value(i).toInteger();
            if (n == 0)
                row.error = QStringLiteral("(no record in the jobs hash)");
            else if (n > RecordCutBytes)
                row.error = QStringLiteral("(%1 bytes; see the job's detail)").arg(n);
            else
                small << row.id;
            page.rows.append(row);
        }
        if (small.isEmpty())
            return JobRead::done(page);
        JobRead records;
        records.commands.append(QList<QByteArray>{"HMGET", jobs} + small);
        records.next = [page, small](const QList<RedisValue> &rr) mutable {
            const auto values = rr.value(0).elements();
            for (qsizetype i = 0; i < small.size() && i < values.size(); ++i) {
                const QJsonObject job = QJsonDocument::fromJson(values.at(i).bytes()).object();
                const QJsonObject options = job.value(QStringLiteral("options")).toObject();
                for (JobRow &row : page.rows) {
                    if (row.id != small.at(i))
                        continue;
                    row.atMs = libraryqueue::epochMs(options.value(QStringLiteral("timestamp")));
                    const QJsonArray traces
                        = options.value(QStringLiteral("stacktraces")).toArray();
                    row.attempts = traces.size();
                    if (!traces.isEmpty())
                        row.error
                            = traces.first().toString().section(QLatin1Char('\n'), 0, 0).left(200);
                }
            }
            return JobRead::done(page);
        };
        return records;
    };
    return read;
}

} // namespace

JobRead BeeQueueUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                              int count) const
{
    const int s = jobStates().indexOf(state);
    if (s < 0 || count <= 0 || offset < 0)
        return {};
    const QByteArray jobs = keyOf(o, Jobs);
    const QByteArray key = keyOf(o, State(s));
    auto next = [jobs](JobListing page, QList<libraryqueue::PageEntry> entries) {
        QList<QByteArray> ids;
        for (const auto &e : entries)
            ids << e.value;
        return rowsOf(jobs, page, ids);
    };
    if (s == Waiting || s == Active)
        return libraryqueue::pageOfLists(state, {key}, offset, count, next);
    if (s == Delayed)
        return libraryqueue::pageOfSet(state, key, false, offset, count, next);
    // succeeded and failed are plain sets: a page in SORT's order (by id,
    // bee-queue's ids are counters), bounded by LIMIT.
    JobRead read;
    read.commands = {
        {"SCARD", key},
        {"SORT_RO", key, "LIMIT", QByteArray::number(offset), QByteArray::number(count), "ALPHA"}};
    read.next = [state, offset, jobs](const QList<RedisValue> &r) {
        if (r.size() != 2 || r.at(0).isError() || r.at(1).isError())
            return JobRead::done(libraryqueue::failedListing(
                state, offset,
                r.value(1).isError() ? r.value(1).errorMessage() : r.value(0).errorMessage()));
        JobListing page;
        page.state = state;
        page.offset = offset;
        page.total = r.at(0).toInteger();
        QList<QByteArray> ids;
        for (const RedisValue &v : r.at(1).elements())
            ids << v.bytes();
        return rowsOf(jobs, page, ids);
    };
    return read;
}

JobRead BeeQueueUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    const QByteArray jobs = keyOf(o, Jobs);
    JobRead read;
    read.commands = {{"HSTRLEN", jobs, job}};
    read.next = [jobs, job](const QList<RedisValue> &r) {
        const qint64 n = r.value(0).toInteger();
        if (r.value(0).isError() || n <= 0 || n > JobFieldCutBytes) {
            JobListing detail;
            detail.job = job;
            detail.ok = false;
            detail.message
                = r.value(0).isError() ? r.value(0).errorMessage()
                  : n > 0 ? QStringLiteral("Job %1's record is %2 bytes: over the %3 KiB cut, "
                                           "not read.")
                                .arg(printableBytes(job, 80))
                                .arg(n)
                                .arg(JobFieldCutBytes / 1024)
                          : QStringLiteral("Job %1 has no record in the jobs hash (removed).")
                                .arg(printableBytes(job, 80));
            return JobRead::done(detail);
        }
        JobRead value;
        value.commands = {{"HGET", jobs, job}};
        value.next = [jobs, job](const QList<RedisValue> &v) {
            return JobRead::done(libraryqueue::jsonDetail(
                job, v.value(0).bytes(),
                QStringLiteral("%1 field %2")
                    .arg(printableBytes(jobs, 80), printableBytes(job, 80))));
        };
        return value;
    };
    return read;
}

} // namespace gatehouse
