// SPDX-License-Identifier: MIT
#include "sidekiqlayout.h"
#include "sidekiqunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <functional>

namespace gatehouse {

using namespace SidekiqInternal;

QList<LibraryQueueUnit::JobState> SidekiqUnit::states() const
{
    // enqueued, scheduled, and retry (failed, to run again) are waiting.
    return {{QStringLiteral("enqueued")},
            {QStringLiteral("scheduled")},
            {QStringLiteral("retry")},
            {QStringLiteral("dead"), JobStage::Dead},
            {QStringLiteral("busy"), JobStage::InFlight}};
}

QList<JobVerb> SidekiqUnit::jobVerbs(const QString &state) const
{
    // Sidekiq Web's buttons: Retry Now on the dead page, Kill on the retry
    // and scheduled pages. It has no "delete dead jobs older than", only
    // Delete All, so there is no purge button (its dead set trims itself:
    // dead_max_jobs, dead_timeout_in_seconds).
    if (state == QLatin1String("dead"))
        return {{JobVerb::Role::RequeueFromDead,
                 QStringLiteral("queue.retry"),
                 {{QStringLiteral("from"), QByteArrayLiteral("dead")}}}};
    if (state == QLatin1String("retry") || state == QLatin1String("scheduled"))
        return {{JobVerb::Role::DeadLetter,
                 QStringLiteral("queue.kill"),
                 {{QStringLiteral("from"), state == QLatin1String("retry")
                                               ? QByteArrayLiteral("retry")
                                               : QByteArrayLiteral("schedule")}}}};
    return {};
}

namespace {

// The most queues or processes a job read looks at (a deployment has a few).
constexpr int MaxMembers = 1000;

// A job record as a page row: jid, class (the wrapped one for ActiveJob),
// retry_count, error_message; at is when it entered the state (ms), -1 unknown.
JobRow sidekiqRow(const QByteArray &json, qint64 atMs)
{
    JobRow row;
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    const JobFields f = jobFields(json);
    row.id = f.jid;
    row.name = printableBytes(f.klass, 80);
    row.attempts = f.retryCount < 0 ? 0 : f.retryCount;
    row.atMs = atMs >= 0 ? atMs : f.enqueuedAtMs;
    row.error = printableBytes(
        o.value(QStringLiteral("error_message")).toString().toUtf8().left(512), 200);
    if (o.isEmpty())
        row.error = QStringLiteral("(not a Sidekiq job record)");
    else if (json.size() <= JobFieldCutBytes)
        row.record = json;
    return row;
}

// The members of a SET (a deployment's "queues" or "processes"), sorted, at
// most MaxMembers: its size first, then SMEMBERS only when that is small.
JobRead setMembers(const QByteArray &set, const QString &state, qint64 offset,
                   std::function<JobRead(QList<QByteArray> members)> next)
{
    JobRead read;
    read.commands = {{"SCARD", set}};
    read.next = [set, state, offset, next](const QList<RedisValue> &r) {
        if (r.value(0).isError())
            return JobRead::done(
                libraryqueue::failedListing(state, offset, r.value(0).errorMessage()));
        JobRead members;
        members.commands
            = {r.value(0).toInteger() <= MaxMembers
                   ? QList<QByteArray>{"SMEMBERS", set}
                   : QList<QByteArray>{"SRANDMEMBER", set, QByteArray::number(MaxMembers)}};
        members.next = [next, state, offset](const QList<RedisValue> &m) {
            if (m.value(0).isError())
                return JobRead::done(
                    libraryqueue::failedListing(state, offset, m.value(0).errorMessage()));
            QList<QByteArray> names;
            const RedisValue reply = m.value(0); // outlives the loop
            for (const RedisValue &v : reply.elements())
                names << v.bytes();
            std::sort(names.begin(), names.end());
            return next(names);
        };
        return members;
    };
    return read;
}

// Every process's work (a page of each one's work hash, Sidekiq 6's
// ":workers" and 7-8's ":work"), as entries whose value is the work record
// {queue, payload, run_at}.
JobRead busyWork(const QByteArray &ns, const QByteArray &processesKey, const QString &state,
                 std::function<JobRead(qint64 total, QList<QByteArray> work)> next)
{
    return setMembers(processesKey, state, 0, [ns, next](QList<QByteArray> identities) {
        if (identities.isEmpty())
            return next(0, {});
        JobRead read;
        for (const QByteArray &id : identities) {
            for (bool v6 : {true, false}) {
                read.commands.append({"HLEN", workKey(ns + id, v6)});
                read.commands.append({"HSCAN", workKey(ns + id, v6), "0", "COUNT", "100"});
            }
        }
        read.next = [next](const QList<RedisValue> &r) {
            qint64 total = 0;
            QList<QByteArray> work;
            for (qsizetype i = 0; i + 1 < r.size(); i += 2) {
                if (r.at(i).isError() || r.at(i + 1).size() != 2)
                    continue;
                total = saturatingAdd(total, r.at(i).toInteger());
                const auto &e = r.at(i + 1).at(1).elements();
                for (qsizetype k = 1; k < e.size(); k += 2)
                    work << e.at(k).bytes();
            }
            return next(total, work);
        };
        return read;
    });
}

// A work record's payload (a JSON string in 7-8, an object in 6) and run_at.
std::pair<QByteArray, qint64> workPayload(const QByteArray &work)
{
    const QJsonObject entry = QJsonDocument::fromJson(work).object();
    const QJsonValue payload = entry.value(QStringLiteral("payload"));
    const QByteArray json = payload.isString()
                                ? payload.toString().toUtf8()
                                : QJsonDocument(payload.toObject()).toJson(QJsonDocument::Compact);
    return {json, libraryqueue::epochMs(entry.value(QStringLiteral("run_at")))};
}

} // namespace

JobRead SidekiqUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                             int count) const
{
    if (count <= 0 || offset < 0 || !jobStates().contains(state))
        return {};
    const QByteArray ns = nsOf(o);
    if (state == QLatin1String("enqueued")) {
        // Every queue of the deployment, by name; each list from its left
        // (the newest: Sidekiq LPUSHes and takes from the right).
        return setMembers(keyOf(o, Queues), state, offset,
                          [ns, state, offset, count](QList<QByteArray> names) {
                              QList<QByteArray> lists;
                              for (const QByteArray &name : names)
                                  lists << ns + "queue:" + name;
                              return libraryqueue::pageOfLists(
                                  state, lists, offset, count,
                                  [](JobListing page, QList<libraryqueue::PageEntry> entries) {
                                      for (const libraryqueue::PageEntry &e : entries) {
                                          JobRow row = sidekiqRow(e.value, -1);
                                          row.ref = libraryqueue::entryRef(e, row.id);
                                          page.rows.append(row);
                                      }
                                      return JobRead::done(page);
                                  });
                          });
    }
    if (state == QLatin1String("busy")) {
        return busyWork(ns, keyOf(o, Processes), state,
                        [state, offset, count](qint64 total, QList<QByteArray> work) {
                            JobListing page;
                            page.state = state;
                            page.offset = offset;
                            page.total = total;
                            for (qsizetype i = offset; i < work.size() && i < offset + count; ++i) {
                                const auto payload = workPayload(work.at(i));
                                JobRow row = sidekiqRow(payload.first, payload.second);
                                // Its detail is the whole work entry, not the
                                // payload inside it: read as such.
                                row.record.clear();
                                page.rows.append(row);
                            }
                            if (total > work.size())
                                page.message = QStringLiteral("%1 jobs busy; the first %2 read.")
                                                   .arg(total)
                                                   .arg(work.size());
                            return JobRead::done(page);
                        });
    }
    // The sorted sets as Sidekiq Web shows them: scheduled and retry the next
    // first, dead the latest first. A job is named "<score>-<jid>", as
    // Sidekiq Web does and retry, delete and kill take it.
    const Shared set = state == QLatin1String("scheduled") ? Schedule
                       : state == QLatin1String("retry")   ? Retry
                                                           : Dead;
    return libraryqueue::pageOfSet(
        state, keyOf(o, set), set == Dead, offset, count,
        [set](JobListing page, QList<libraryqueue::PageEntry> entries) {
            for (const libraryqueue::PageEntry &e : entries) {
                bool ok = false;
                const double score = e.score.toDouble(&ok);
                qint64 at = set == Dead && ok ? libraryqueue::epochMs(score) : -1;
                if (set == Retry)
                    at = libraryqueue::epochMs(QJsonDocument::fromJson(e.value).object().value(
                        QStringLiteral("failed_at")));
                if (set == Schedule)
                    at = libraryqueue::epochMs(QJsonDocument::fromJson(e.value).object().value(
                        QStringLiteral("created_at")));
                JobRow row = sidekiqRow(e.value, at);
                row.ref = e.score + '-' + row.id;
                page.rows.append(row);
            }
            return JobRead::done(page);
        });
}

JobRead SidekiqUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    if (const auto entry = libraryqueue::parseEntryRef(job))
        return libraryqueue::entryDetail(job, *entry, QStringLiteral("Enqueued job."));
    const std::pair<QByteArray, QByteArray> named = scoreAndJid(job);
    const QByteArray jid = named.second;
    const QByteArray needle = "\"jid\":\"" + jid + '"';
    auto gone = [job, jid](const QString &why) {
        JobListing detail;
        detail.job = job;
        detail.ok = false;
        detail.message = why.isEmpty() ? QStringLiteral("Job %1 moved on (it ran, or was "
                                                        "retried, deleted or killed).")
                                             .arg(printableBytes(jid, 80))
                                       : why;
        return JobRead::done(detail);
    };
    if (!named.first.isEmpty()) {
        // A sorted-set job: the entries at its score in retry, schedule, dead.
        JobRead read;
        const QList<Shared> sets{Retry, Schedule, Dead};
        for (Shared s : sets)
            read.commands.append(
                {"ZRANGEBYSCORE", keyOf(o, s), named.first, named.first, "LIMIT", "0", "20"});
        read.next = [job, needle, gone, sets](const QList<RedisValue> &r) {
            for (qsizetype i = 0; i < r.size(); ++i) {
                for (const RedisValue &v : r.at(i).elements()) {
                    if (v.bytes().contains(needle))
                        return JobRead::done(libraryqueue::jsonDetail(
                            job, v.bytes(),
                            QStringLiteral("In the %1 set.")
                                .arg(QString::fromLatin1(SharedNames[sets.at(i)]))));
                }
            }
            return gone({});
        };
        return read;
    }
    // A bare jid: in flight on a process.
    return busyWork(nsOf(o), keyOf(o, Processes), QStringLiteral("busy"),
                    [job, needle, gone](qint64, QList<QByteArray> work) {
                        for (const QByteArray &w : work) {
                            const auto payload = workPayload(w);
                            if (payload.first.contains(needle) || w.contains(needle))
                                return JobRead::done(libraryqueue::jsonDetail(
                                    job, w, QStringLiteral("In flight (its process's work).")));
                        }
                        return gone({});
                    });
}

} // namespace gatehouse
