// SPDX-License-Identifier: MIT
#include "resquelayout.h"

#include "resqueunit.h"
#include <patterns/timemath.h>

#include <patterns/libraryqueue/libraryqueue.h>

#include <QCryptographicHash>

namespace gatehouse {

using namespace ResqueInternal;

QList<JobVerb> ResqueUnit::jobVerbs(const QString &state) const
{
    // Failure::Redis requeue (and remove); Resque has no verb that fails a
    // queued job or purges failures by age.
    if (state != QLatin1String("failed"))
        return {};
    return {{JobVerb::Role::RequeueFromDead, QStringLiteral("queue.retry"), {}}};
}

namespace {

QString cut(const QJsonValue &v, int n = 120)
{
    return v.toString().left(n);
}

JobRow queuedRow(const libraryqueue::PageEntry &e)
{
    const QJsonObject job = QJsonDocument::fromJson(e.value).object();
    const QByteArray id = QByteArray::number(e.index);
    JobRow row;
    row.id = id;
    row.name = cut(job.value(QStringLiteral("class")));
    row.ref = libraryqueue::entryRef(e, e.value.left(64));
    return row;
}

JobRow failedRow(const libraryqueue::PageEntry &e)
{
    const QJsonObject f = QJsonDocument::fromJson(e.value).object();
    JobRow row;
    row.id = failedRef(e.index, e.value);
    row.name = cut(f.value(QStringLiteral("payload")).toObject().value(QStringLiteral("class")));
    row.atMs = resqueTimeMs(cut(f.value(QStringLiteral("failed_at")), 64));
    row.error = QStringLiteral("%1: %2 (worker %3, queue %4)")
                    .arg(cut(f.value(QStringLiteral("exception")), 80),
                         cut(f.value(QStringLiteral("error")), 200),
                         cut(f.value(QStringLiteral("worker")), 80),
                         cut(f.value(QStringLiteral("queue")), 80));
    return row;
}

// A working job's reference: the worker that holds it (Resque keeps the job
// a worker works on in worker:<id>, not in a list).
constexpr char WorkingRef[] = "worker\x1f";

// A worker's working_on record ({queue, run_at, payload}), read up to the
// field cut.
QList<QByteArray> workingRead(const PatternObject &o, const QByteArray &worker)
{
    return {"GETRANGE", nsOf(o) + "worker:" + worker, "0", QByteArray::number(JobFieldCutBytes)};
}

// The jobs workers hold: a page of the workers set (SORT of a SET BY nosort
// reads only the page), then each one's record; an idle worker has none and
// is no row.
JobRead workingPage(const PatternObject &o, const QString &state, qint64 offset, int count)
{
    JobRead read;
    read.commands = {{"SCARD", ResqueUnit::keyOf(o, ResqueUnit::Workers)},
                     {"SORT_RO", ResqueUnit::keyOf(o, ResqueUnit::Workers), "BY", "nosort", "LIMIT",
                      QByteArray::number(offset), QByteArray::number(count)}};
    read.next = [o, state, offset](const QList<RedisValue> &r) {
        if (r.size() != 2 || r.at(0).isError() || r.at(1).isError())
            return JobRead::done(libraryqueue::failedListing(
                state, offset,
                r.value(0).isError() ? r.value(0).errorMessage() : r.value(1).errorMessage()));
        JobListing page;
        page.state = state;
        page.offset = offset;
        page.total = r.at(0).toInteger();
        QList<QByteArray> workers;
        JobRead records;
        for (const RedisValue &v : r.at(1).elements()) {
            workers << v.bytes();
            records.commands << workingRead(o, v.bytes());
        }
        if (workers.isEmpty())
            return JobRead::done(page);
        records.next = [page, workers](const QList<RedisValue> &w) mutable {
            for (qsizetype i = 0; i < workers.size() && i < w.size(); ++i) {
                const QByteArray record = w.at(i).bytes();
                if (w.at(i).isError() || record.isEmpty())
                    continue; // idle, or it finished since the page was read
                const QJsonObject working = QJsonDocument::fromJson(record).object();
                JobRow row;
                row.id = workers.at(i);
                row.name = record.size() > JobFieldCutBytes
                               ? QStringLiteral("(record longer than %1 KiB)")
                                     .arg(JobFieldCutBytes / 1024)
                               : cut(working.value(QStringLiteral("payload"))
                                         .toObject()
                                         .value(QStringLiteral("class")));
                row.atMs = resqueTimeMs(cut(working.value(QStringLiteral("run_at")), 64));
                row.ref = WorkingRef + workers.at(i);
                page.rows.append(row);
            }
            return JobRead::done(page);
        };
        return records;
    };
    return read;
}

// What worker works on, as its record says now.
JobRead workingDetail(const PatternObject &o, const QByteArray &job, const QByteArray &worker)
{
    JobRead read;
    read.commands = {workingRead(o, worker)};
    read.next = [job, worker](const QList<RedisValue> &r) {
        const RedisValue v = r.value(0);
        if (v.isError() || v.bytes().isEmpty()) {
            JobListing detail;
            detail.job = job;
            detail.ok = false;
            detail.message = v.isError() ? v.errorMessage()
                                         : QStringLiteral("Worker %1 works on no job now (it "
                                                          "finished it, or is not a worker of "
                                                          "this Resque): reload the page.")
                                               .arg(printableBytes(worker, 120));
            return JobRead::done(detail);
        }
        return JobRead::done(libraryqueue::jsonDetail(job, v.bytes(), QStringLiteral("Working")));
    };
    return read;
}

// resque-scheduler's delayed jobs: each due timestamp of the schedule
// (seconds) holds its jobs in delayed:<ts>, read one after the other from
// the soonest; the first DelayedTimestampsRead timestamps, and a listing
// of more says so.
constexpr int DelayedTimestampsRead = 1000;

JobRead delayedPage(const PatternObject &o, const QString &state, qint64 offset, int count)
{
    if (count <= 0 || offset < 0)
        return {};
    JobRead read;
    const QByteArray schedule = ResqueUnit::keyOf(o, ResqueUnit::Schedule);
    read.commands = {{"ZCARD", schedule},
                     {"ZRANGE", schedule, "0", QByteArray::number(DelayedTimestampsRead - 1)}};
    read.next = [state, offset, count, ns = nsOf(o)](const QList<RedisValue> &r) {
        for (const RedisValue &v : r) {
            if (v.isError())
                return JobRead::done(libraryqueue::failedListing(state, offset, v.errorMessage()));
        }
        const qint64 timestamps = r.value(0).toInteger();
        QList<QByteArray> lists;
        for (const RedisValue &v : r.value(1).elements())
            lists << ns + "delayed:" + v.bytes();
        return libraryqueue::pageOfLists(
            state, lists, offset, count,
            [timestamps, read = qint64(lists.size())](JobListing page,
                                                      QList<libraryqueue::PageEntry> e) {
                for (const auto &entry : e) {
                    JobRow row = queuedRow(entry);
                    const QByteArray due = entry.key.mid(entry.key.lastIndexOf(':') + 1);
                    row.id = due + '.' + QByteArray::number(entry.index);
                    row.ref = libraryqueue::entryRef(entry, entry.value.left(64));
                    row.atMs = secondsToMs(due.toDouble()).value_or(-1);
                    page.rows.append(row);
                }
                if (timestamps > read)
                    page.message = QStringLiteral("The jobs of the first %1 of %2 due times "
                                                  "(the soonest): the later ones are not listed.")
                                       .arg(read)
                                       .arg(timestamps);
                return JobRead::done(page);
            });
    };
    return read;
}

} // namespace

JobRead ResqueUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                            int count) const
{
    if (state == QLatin1String("queued")) {
        const auto pageOf = [state, offset, count](const QList<QByteArray> &lists) {
            return libraryqueue::pageOfLists(state, lists, offset, count,
                                             [](JobListing page, QList<libraryqueue::PageEntry> e) {
                                                 for (const auto &entry : e)
                                                     page.rows.append(queuedRow(entry));
                                                 return JobRead::done(page);
                                             });
        };
        if (const QList<QByteArray> lists = queueMembers(o); !lists.isEmpty())
            return pageOf(lists);
        // Named by its key alone (the CLI's `queue search`): the queues its
        // "queues" set lists, in name order, first (SRANDMEMBER with a count
        // answers distinct members, bounded).
        JobRead read;
        read.commands = {{"SRANDMEMBER", keyOf(o, Queues), "1000"}};
        read.next = [state, offset, pageOf, ns = nsOf(o)](const QList<RedisValue> &r) {
            if (r.value(0).isError())
                return JobRead::done(
                    libraryqueue::failedListing(state, offset, r.value(0).errorMessage()));
            QList<QByteArray> lists;
            for (const RedisValue &v : r.value(0).elements())
                lists << ns + "queue:" + v.bytes();
            std::sort(lists.begin(), lists.end());
            return pageOf(lists);
        };
        return read;
    }
    if (state == QLatin1String("failed")) {
        return libraryqueue::pageOfLists(state, {keyOf(o, Failed)}, offset, count,
                                         [](JobListing page, QList<libraryqueue::PageEntry> e) {
                                             for (const auto &entry : e)
                                                 page.rows.append(failedRow(entry));
                                             return JobRead::done(page);
                                         });
    }
    if (state == QLatin1String("delayed"))
        return delayedPage(o, state, offset, count);
    if (state == QLatin1String("working"))
        return workingPage(o, state, offset, count);
    return {};
}

JobRead ResqueUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    if (const auto entry = libraryqueue::parseEntryRef(job))
        return libraryqueue::entryDetail(job, *entry,
                                         entry->key.contains(":delayed:")
                                             ? QStringLiteral("Delayed job")
                                             : QStringLiteral("Queued job"));
    if (job.startsWith(WorkingRef))
        return workingDetail(o, job, job.mid(qsizetype(sizeof(WorkingRef)) - 1));
    // A failed job: "<index>:<sha1>", shown while the entry is still that one.
    // Anything else is a worker's id (a working job named by its worker).
    const qsizetype colon = job.indexOf(':');
    bool ok = false;
    const qint64 index = job.left(colon).toLongLong(&ok);
    if (colon < 0 || !ok)
        return workingDetail(o, job, job);
    const QByteArray sha = job.mid(colon + 1);
    JobRead read;
    read.commands = {{"LINDEX", keyOf(o, Failed), QByteArray::number(index)}};
    read.next = [job, sha](const QList<RedisValue> &r) {
        const RedisValue v = r.value(0);
        if (v.isError() || v.isNil()
            || QCryptographicHash::hash(v.bytes(), QCryptographicHash::Sha1).toHex() != sha) {
            JobListing detail;
            detail.job = job;
            detail.ok = false;
            detail.message = v.isError() ? v.errorMessage()
                                         : QStringLiteral("The failed list moved on (entry %1 is "
                                                          "another job now): reload the page.")
                                               .arg(printableBytes(job.left(job.indexOf(':'))));
            return JobRead::done(detail);
        }
        return JobRead::done(libraryqueue::jsonDetail(job, v.bytes(), QStringLiteral("Failure")));
    };
    return read;
}

} // namespace gatehouse
