// SPDX-License-Identifier: MIT
#include "beequeueunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <memory>

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

// A plain set's members are walked ScanStep at a time (SSCAN: a bounded
// step on the server per call). Not SORT ... LIMIT, which reads and sorts
// the whole set in one command: a succeeded set of millions of jobs (bee-queue
// keeps them unless removeOnSuccess) would stall the server for seconds.
constexpr int ScanStep = 1000;

// SSCAN may return a member twice (the set rehashing meanwhile): the members
// passed are remembered, up to this many, so that each counts once.
constexpr int DedupeMembers = 100000;

// A walk of a plain set to the page [page.offset, page.offset + count).
struct SetWalk
{
    QString state;
    QByteArray key;
    QByteArray jobs;
    JobListing page;
    int count = 0;
    qint64 passed = 0; // members before the page, or in it, seen so far
    QSet<QByteArray> seen;
    QList<QByteArray> ids; // the page's
};

// The walk's next SSCAN step from cursor.
JobRead scanToPage(const std::shared_ptr<SetWalk> &w, const QByteArray &cursor)
{
    JobRead read;
    read.commands = {{"SSCAN", w->key, cursor, "COUNT", QByteArray::number(ScanStep)}};
    read.next = [w](const QList<RedisValue> &r) {
        const RedisValue &reply = r.value(0);
        if (r.size() != 1 || reply.isError() || reply.size() != 2)
            return JobRead::done(libraryqueue::failedListing(
                w->state, w->page.offset,
                reply.isError() ? reply.errorMessage()
                                : QStringLiteral("Unexpected reply to SSCAN of %1.")
                                      .arg(printableBytes(w->key, 80))));
        for (const RedisValue &m : reply.at(1).elements()) {
            const QByteArray member = m.bytes();
            if (w->seen.contains(member) || w->ids.contains(member))
                continue;
            if (w->seen.size() < DedupeMembers)
                w->seen.insert(member);
            if (w->passed >= w->page.offset && w->ids.size() < w->count)
                w->ids.append(member);
            ++w->passed;
        }
        const QByteArray next = reply.at(0).bytes();
        if (next != "0" && w->ids.size() < w->count)
            return scanToPage(w, next);
        // In id order within the page (bee-queue's ids are counters).
        std::sort(w->ids.begin(), w->ids.end(), [](const QByteArray &a, const QByteArray &b) {
            bool aNumber = false, bNumber = false;
            const qlonglong x = a.toLongLong(&aNumber), y = b.toLongLong(&bNumber);
            return aNumber && bNumber ? x < y : a < b;
        });
        return rowsOf(w->jobs, w->page, w->ids);
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
    // succeeded and failed are plain sets: a page in SSCAN's order (a set
    // changed while it is walked may shift the page by a member).
    JobRead read;
    read.commands = {{"SCARD", key}};
    read.next = [state, offset, count, key, jobs](const QList<RedisValue> &r) {
        if (r.size() != 1 || r.at(0).isError())
            return JobRead::done(
                libraryqueue::failedListing(state, offset, r.value(0).errorMessage()));
        JobListing page;
        page.state = state;
        page.offset = offset;
        page.total = r.at(0).toInteger();
        if (offset >= page.total)
            return JobRead::done(page);
        auto walk = std::make_shared<SetWalk>();
        *walk = {state, key, jobs, page, count};
        return scanToPage(walk, "0");
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
