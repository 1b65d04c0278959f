// SPDX-License-Identifier: MIT
#include "bullmqunit.h"

#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/matchcounter.h>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(BullMqUnit::Kind, BullFamilyUnit::judgement());

namespace {

// Keys whose name and type alone say "BullMQ": enough for a queue with
// another of its keys beside it.
bool isAnchor(int s)
{
    // Bull 3/4 has wait, active, id and stalled-check too, but no meta hash,
    // events stream or marker.
    return s == BullMqUnit::Meta || s == BullMqUnit::Events || s == BullMqUnit::Marker;
}

// The probe's replies: ten counts and flags, the active jobs, then
// jobTimesProbe's three.
constexpr qsizetype CountsRead = 10;
constexpr qsizetype JobTimesAt = CountsRead + 1;
constexpr qsizetype ProbedReplies = JobTimesAt + 3;

QByteArray keyOf(const PatternObject &o, BullMqUnit::State s)
{
    return BullMqUnit::keys().keyOf(o, s);
}

} // namespace

const BullFamilyUnit::Layout &BullMqUnit::keys()
{
    static const Layout layout{Kind,
                               {{"meta", "hash"},
                                {"wait", "list"},
                                {"active", "list"},
                                {"paused", "list"},
                                {"prioritized", "zset"},
                                {"delayed", "zset"},
                                {"completed", "zset"},
                                {"failed", "zset"},
                                {"waiting-children", "zset"},
                                {"events", "stream"},
                                {"marker", "zset"},
                                {"pc", "string"},
                                {"id", "string"},
                                {"stalled", "set"},
                                {"stalled-check", "string"}}};
    return layout;
}

QList<PatternUnit::Command> BullMqUnit::identifyProbe(const QByteArray &target) const
{
    return {{"TYPE", target + ":meta"},
            {"TYPE", target + ":events"},
            {"TYPE", target + ":meta-paused"}};
}

bool BullMqUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    // Bull 3/4's pause writes a "meta" hash too (for BullMQ's sake) beside
    // its own "meta-paused": that queue is Bull's.
    return r.size() == 3
           && (r.at(1).bytes() == "stream"
               || (r.at(0).bytes() == "hash" && r.at(2).bytes() == "none"));
}

QList<QByteArray> BullMqUnit::scanGlobs(const ProfileRule &rule) const
{
    return {rule.match + ":meta", rule.match + ":id"};
}

int BullMqUnit::claimStrength(int s) const
{
    return isAnchor(s) ? 30 : 10;
}

QList<PatternObject> BullMqUnit::groupClaims(ClaimPool &pool) const
{
    // A base with one of BullMQ's distinctive keys and at least two of its
    // names is a queue; it takes every key under "<base>:" from the pool
    // (job hashes, locks, logs), so none shows as a lock or token of its own.
    // A paused Bull 3/4 queue has a "meta" hash too (Bull's pause writes it
    // for BullMQ's sake) beside its own "meta-paused": without BullMQ's
    // events stream or marker, that base is Bull's.
    struct Base
    {
        int names = 0;
        bool anchored = false;
        bool bullMqOnly = false; // events stream or marker
    };
    QMap<QByteArray, Base> bases;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        const QString role = pool.roleOf(key, Kind);
        if (role.isEmpty())
            continue;
        Base &b = bases[key.left(key.lastIndexOf(':'))];
        ++b.names;
        const int s = keys().stateOf(key, pool.find(key)->shape.type);
        b.anchored = b.anchored || (s >= 0 && isAnchor(s));
        b.bullMqOnly = b.bullMqOnly || s == Events || s == Marker;
    }
    QList<PatternObject> out;
    for (auto it = bases.cbegin(); it != bases.cend(); ++it) {
        if (it->names < 2 || !it->anchored)
            continue;
        if (!it->bullMqOnly && pool.find(it.key() + ":meta-paused"))
            continue;
        PatternObject o = objectForBase(it.key());
        o.source = QStringLiteral("autodetected");
        for (const QByteArray &key : pool.under(it.key() + ':'))
            pool.take(key);
        out.append(o);
    }
    return out;
}

qsizetype BullMqUnit::probedReplies() const
{
    return ProbedReplies;
}

QList<PatternUnit::Command> BullMqUnit::probe(const PatternObject &o, const ProbeContext &c) const
{
    QList<Command> cmds{
        {"HMGET", keyOf(o, Meta), "paused", "concurrency", "max", "duration", "version"},
        {"LLEN", keyOf(o, Wait)},
        {"LLEN", keyOf(o, Active)},
        {"LLEN", keyOf(o, Paused)},
        {"ZCARD", keyOf(o, Prioritized)},
        {"ZCARD", keyOf(o, Delayed)},
        {"ZCARD", keyOf(o, Completed)},
        {"ZCARD", keyOf(o, Failed)},
        {"ZCARD", keyOf(o, WaitingChildren)},
        {"EXISTS", keyOf(o, Id), keyOf(o, Events)},
    };
    if (auto active = activeJobsProbe(o, Active, c)) {
        cmds.append(*active);
        cmds.append(jobTimesProbe(o, Completed, Failed, Wait, c));
    }
    return cmds;
}

Reading BullMqUnit::read(const PatternObject &o, const QList<RedisValue> &replies,
                         const ProbeContext &c) const
{
    // Read by id, the replies as SORT would have given them.
    const QList<RedisValue> r = asSorted(o, replies, c);
    const QList<QByteArray> replyKeys{
        keyOf(o, Meta),      keyOf(o, Wait),        keyOf(o, Active),
        keyOf(o, Paused),    keyOf(o, Prioritized), keyOf(o, Delayed),
        keyOf(o, Completed), keyOf(o, Failed),      keyOf(o, WaitingChildren),
        keyOf(o, Id)};
    QList<QByteArray> allKeys = replyKeys;
    if (activeJobsProbe(o, Active, c)) // and the job times' reads
        allKeys << keyOf(o, Active) << keyOf(o, Completed) << keyOf(o, Failed) << keyOf(o, Wait);
    if (r.size() < allKeys.size()) {
        if (auto f = failure(o, r, allKeys, c.nowMs))
            return *f;
    }
    // A failed read of the active jobs' locks leaves the counts good.
    if (auto f = failure(o, r.mid(0, replyKeys.size()), replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    if (r.at(0).size() != 5) {
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("Unexpected reply reading \"%1\".")
                              .arg(printableBytes(keyOf(o, Meta)));
        return reading;
    }
    const RedisValue &meta = r.at(0);
    reading.editLibrary().paused = !meta.at(0).isNil();
    reading.editLibrary().layoutVersion = QString::fromUtf8(meta.at(4).bytes().left(64));
    reading.editLibrary().layoutKnown
        = reading.editLibrary().layoutVersion.isEmpty()
          || reading.editLibrary().layoutVersion.startsWith(QLatin1String("bullmq:5."))
          || reading.editLibrary().layoutVersion.startsWith(QLatin1String("bullmq:6."));
    const QStringList names = jobStates(); // wait .. waiting-children, as probed
    for (int i = 0; i < 8; ++i)
        reading.editLibrary().counts.append({names.at(i), r.at(1 + i).toInteger()});
    const qint64 wait = r.at(1).toInteger(), active = r.at(2).toInteger(),
                 paused = r.at(3).toInteger(), prioritized = r.at(4).toInteger();
    reading.editQueue().length = saturatingAdd(saturatingAdd(wait, paused), prioritized);
    reading.editQueue().inFlight = active;
    reading.editQueue().deadLength = r.at(7).toInteger();
    qint64 total = 0;
    for (const StateCount &n : std::as_const(reading.editLibrary().counts))
        total = saturatingAdd(total, n.count); // sizes from replies (fuzz_patternread)
    if (total == 0 && meta.at(4).isNil() && r.at(9).toInteger() == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No BullMQ keys under \"%1\".").arg(printableBytes(o.key));
        return reading;
    }

    if (r.size() > CountsRead && r.at(CountsRead).isError()) {
        noteSortRefused(reading, r.at(CountsRead));
        reading.editQueue().stuckIsLowerBound = true;
        reading.message = QStringLiteral("Cannot read the active jobs' locks (%1): stalled jobs "
                                         "are not known.")
                              .arg(r.at(CountsRead).errorMessage());
    } else if (r.size() > CountsRead) {
        readActiveJobs(reading, r.at(CountsRead), o, active, c.nowMs);
    } else {
        reading.editQueue().stuckIsLowerBound = true;
        reading.message = QStringLiteral("The queue's name holds '*' or \"->\": stalled jobs are "
                                         "not read.");
    }
    if (r.size() >= ProbedReplies)
        readJobTimes(reading, r, JobTimesAt, ProbedReplies, wait, c.nowMs);
    if (!reading.editLibrary().layoutKnown)
        reading.message = QStringLiteral("Layout %1 is not one Gatehouse knows (BullMQ 5-6): shown "
                                         "read-only.")
                              .arg(reading.editLibrary().layoutVersion);
    else if (reading.queue().truncated)
        reading.message = QStringLiteral("%1 jobs active; %2 were read.")
                              .arg(active)
                              .arg(reading.queue().items.size());
    return reading;
}

QList<Figure> BullMqUnit::figures() const
{
    return QList<Figure>{
               countFigure(QStringLiteral("wait"), QStringLiteral("Waiting"),
                           QStringLiteral("wait")),
               countFigure(QStringLiteral("inFlight"), QStringLiteral("Active"),
                           QStringLiteral("active")),
               countFigure(QStringLiteral("delayed"), QStringLiteral("Delayed"),
                           QStringLiteral("delayed")),
               countFigure(QStringLiteral("failed"), QStringLiteral("Failed"),
                           QStringLiteral("failed")),
               countFigure(QStringLiteral("completed"), QStringLiteral("Completed"),
                           QStringLiteral("completed")),
               stuckFigure(QStringLiteral("Stalled")),
               oldestFigure(QStringLiteral("Oldest active")),
           }
           + libraryqueue::latencyFigures();
}

QList<Chart> BullMqUnit::charts() const
{
    return QList<Chart>{{QStringLiteral("Jobs by state"),
                         QStringLiteral("jobs"),
                         {{QStringLiteral("wait"), QStringLiteral("waiting")},
                          {QStringLiteral("inFlight"), QStringLiteral("active")},
                          {QStringLiteral("delayed"), QStringLiteral("delayed")},
                          {QStringLiteral("stuck"), QStringLiteral("stalled")}}},
                        oldestChart(QStringLiteral("Oldest active"))}
           + libraryqueue::latencyCharts()
           + QList<Chart>{libraryqueue::throughputChart(QStringLiteral("completed"),
                                                        QStringLiteral("failed"))};
}

QList<LibraryQueueUnit::JobState> BullMqUnit::states() const
{
    return {{QStringLiteral("wait")},
            {QStringLiteral("active"), JobStage::InFlight},
            {QStringLiteral("paused")},
            {QStringLiteral("prioritized")},
            {QStringLiteral("delayed")},
            {QStringLiteral("completed"), JobStage::Finished},
            {QStringLiteral("failed"), JobStage::Dead},
            {QStringLiteral("waiting-children")}};
}

LibraryQueueUnit::StuckRule BullMqUnit::stuckRule() const
{
    return {QStringLiteral("inFlight"), QStringLiteral("stalled (active without a lock)"),
            QStringLiteral("oldest active")};
}

QList<QByteArray> BullMqUnit::detailFields() const
{
    return {"name", "timestamp", "processedOn", "finishedOn", "atm",       "ats",
            "stc",  "delay",     "priority",    "pb",         "parentKey", "rjk"};
}

namespace {

// bullmq_remove as clean (KEYS: the remove keys, then the cleaned ZSET;
// ARGV[3] older than ms, ARGV[4] batch): the finished jobs scored before the
// cut-off; a single job's remove and a count-only run are not counted.
[[maybe_unused]] const bool s_cleanCounted = MatchCounter::add(
    QStringLiteral("bullmq_remove"),
    MatchCounter::scoredBefore(QStringLiteral("queue.clean"), -1, 2, 3,
                               QStringLiteral("locked ones are left; up to %1 will be removed")));

// bullmq_promote with no job (KEYS[9] delayed ZSET, ARGV[3] batch): every
// delayed job.
[[maybe_unused]] const bool s_promoteCounted = MatchCounter::add(
    QStringLiteral("bullmq_promote"), MatchCounter::wholeSet(8, 1, 2, QStringLiteral("promoted")));

// bullmq_retry with no job (KEYS[9] the finished ZSET, ARGV[3] batch): every
// failed (or completed) job.
[[maybe_unused]] const bool s_retryCounted = MatchCounter::add(
    QStringLiteral("bullmq_retry"), MatchCounter::wholeSet(8, 1, 2, QStringLiteral("retried")));

} // namespace

namespace {

using namespace libraryqueue;

QByteArray cutArg()
{
    return QByteArray::number(ScriptCall::ReplyCutBytes);
}

QByteArray batchArg()
{
    return QByteArray::number(BullMqUnit::Batch);
}

const QList<int> RemoveKeys{
    BullMqUnit::Meta,      BullMqUnit::Wait,        BullMqUnit::Active,
    BullMqUnit::Paused,    BullMqUnit::Prioritized, BullMqUnit::Delayed,
    BullMqUnit::Completed, BullMqUnit::Failed,      BullMqUnit::WaitingChildren,
    BullMqUnit::Events};

RequeueSpec requeueSpec()
{
    RequeueSpec requeue;
    requeue.stuckLabel = QStringLiteral("Every stalled job");
    requeue.olderThanRefusal
        = QStringLiteral("A BullMQ job is stalled when its lock is gone, whatever its age: queue "
                         "requeue takes no --older-than for a BullMQ queue.");
    requeue.build = [](const ActionRequest &r) {
        ScriptCall call = BullMqUnit::keys().call(
            r.object, QStringLiteral("queue.requeue"), QStringLiteral("bullmq_requeue"),
            {BullMqUnit::Meta, BullMqUnit::Wait, BullMqUnit::Active, BullMqUnit::Paused,
             BullMqUnit::Marker, BullMqUnit::Events});
        const QByteArray job = r.input(QStringLiteral("job"));
        call.args = {r.object->key + ':', job, batchArg(), cutArg()};
        if (!job.isEmpty()) {
            call.summary = QStringLiteral("Move BullMQ job %1 of \"%2\" from active back to wait, "
                                          "only if its lock is gone (stalled), as BullMQ's stall "
                                          "check does.")
                               .arg(printableBytes(job, 80), printableBytes(r.object->key));
            call.meaning = BullFamilyUnit::jobReply(job, QStringLiteral("was requeued to wait"),
                                                    QStringLiteral("active"));
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Move every stalled BullMQ job of \"%1\" (active without "
                                          "a lock) back to wait, up to %2 per run, as BullMQ's "
                                          "stall check does.")
                               .arg(printableBytes(r.object->key))
                               .arg(BullMqUnit::Batch);
            batchRun(call, BullMqUnit::Batch, QStringLiteral("Requeued %1 stalled jobs."));
        }
        return call;
    };
    return requeue;
}

PatternAction retryAction()
{
    PatternAction retry = jobOrAllAction(
        QStringLiteral("retry"), QStringLiteral("Retry…"), QStringLiteral("all"),
        QStringLiteral("Every failed job"), [](const ActionRequest &r) {
            const bool completed = r.has(QStringLiteral("completed"));
            const QString state
                = completed ? QStringLiteral("completed") : QStringLiteral("failed");
            ScriptCall call = BullMqUnit::keys().call(
                r.object, QStringLiteral("queue.retry"), QStringLiteral("bullmq_retry"),
                {BullMqUnit::Meta, BullMqUnit::Wait, BullMqUnit::Active, BullMqUnit::Paused,
                 BullMqUnit::Marker, BullMqUnit::Events, BullMqUnit::Prioritized,
                 BullMqUnit::PriorityCounter,
                 completed ? BullMqUnit::Completed : BullMqUnit::Failed});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {r.object->key + ':', job, batchArg(), state.toUtf8(), cutArg()};
            if (!job.isEmpty()) {
                call.summary
                    = QStringLiteral("Retry BullMQ job %1 of \"%2\": from %3 back to "
                                     "wait, as BullMQ's Job.retry does.")
                          .arg(printableBytes(job, 80), printableBytes(r.object->key), state);
                call.meaning = BullFamilyUnit::jobReply(
                    job, QStringLiteral("was moved back to wait"), state);
            } else {
                call.summary = QStringLiteral("Retry every %1 BullMQ job of \"%2\", oldest first, "
                                              "up to %3 per run, as BullMQ's retryJobs does.")
                                   .arg(state, printableBytes(r.object->key))
                                   .arg(BullMqUnit::Batch);
                batchRun(call, BullMqUnit::Batch, QStringLiteral("Retried %1 jobs."));
            }
            return call;
        });
    retry.usage = QStringLiteral("queue retry QUEUE (--job ID | --all) [--completed]");
    retry.inputs << flag(QStringLiteral("completed"), QStringLiteral("From completed"));
    retry.inputs[2].console = false;
    return retry;
}

PatternAction promoteAction()
{
    PatternAction promote = jobOrAllAction(
        QStringLiteral("promote"), QStringLiteral("Promote…"), QStringLiteral("all"),
        QStringLiteral("Every delayed job"), [](const ActionRequest &r) {
            ScriptCall call = BullMqUnit::keys().call(
                r.object, QStringLiteral("queue.promote"), QStringLiteral("bullmq_promote"),
                {BullMqUnit::Meta, BullMqUnit::Wait, BullMqUnit::Active, BullMqUnit::Paused,
                 BullMqUnit::Marker, BullMqUnit::Events, BullMqUnit::Prioritized,
                 BullMqUnit::PriorityCounter, BullMqUnit::Delayed});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {r.object->key + ':', job, batchArg(), cutArg()};
            if (!job.isEmpty()) {
                call.summary = QStringLiteral("Run delayed BullMQ job %1 of \"%2\" now, as "
                                              "BullMQ's promote does.")
                                   .arg(printableBytes(job, 80), printableBytes(r.object->key));
                call.meaning = BullFamilyUnit::jobReply(job, QStringLiteral("was promoted to wait"),
                                                        QStringLiteral("delayed"));
            } else {
                call.summary = QStringLiteral("Run every delayed BullMQ job of \"%1\" now, soonest "
                                              "first, up to %2 per run.")
                                   .arg(printableBytes(r.object->key))
                                   .arg(BullMqUnit::Batch);
                batchRun(call, BullMqUnit::Batch, QStringLiteral("Promoted %1 jobs."));
            }
            return call;
        });
    return promote;
}

PatternAction removeAction()
{
    PatternAction remove = oneJobAction(
        QStringLiteral("remove"), QStringLiteral("Remove…"), QStringLiteral("removeButton"),
        [](const ActionRequest &r) {
            ScriptCall call = BullMqUnit::keys().call(r.object, QStringLiteral("queue.remove"),
                                                      QStringLiteral("bullmq_remove"), RemoveKeys);
            // KEYS[11] is the set a clean reads; a removal reads none of it
            // (it looks for the job in every state above).
            call.keys << keyOf(r.object, BullMqUnit::Failed);
            call.keyRoles << QStringLiteral("failed (which a removal does not read) zset");
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {r.object->key + ':', job, "0", "0", ""};
            call.summary = QStringLiteral("Remove BullMQ job %1 of \"%2\" and its keys, unless a "
                                          "worker holds its lock, as BullMQ's removeJob does.")
                               .arg(printableBytes(job, 80), printableBytes(r.object->key));
            call.meaning = BullFamilyUnit::jobReply(job, QStringLiteral("was removed"),
                                                    QStringLiteral("in the queue"));
            return call;
        });
    return remove;
}

PatternAction cleanFinishedAction()
{
    PatternAction clean = cleanAction([](const ActionRequest &r) {
        ScriptCall call = BullMqUnit::keys().call(r.object, QStringLiteral("queue.clean"),
                                                  QStringLiteral("bullmq_remove"), RemoveKeys);
        call.keys << keyOf(r.object,
                           cleansCompleted(r) ? BullMqUnit::Completed : BullMqUnit::Failed);
        call.keyRoles << QStringLiteral("cleaned zset");
        const bool count = r.has(QStringLiteral("count-only"));
        call.args = {r.object->key + ':', QByteArray(),
                     QByteArray::number(r.integer(QStringLiteral("older-than"))), batchArg(),
                     count ? QByteArray("count") : QByteArray()};
        finishClean(call, r, QStringLiteral("BullMQ"), QStringLiteral("as BullMQ's clean does"),
                    BullMqUnit::Batch);
        return call;
    });
    return clean;
}

PatternAction pausing(bool pause)
{
    return pauseAction(pause, [pause](const ActionRequest &r) {
        ScriptCall call = BullMqUnit::keys().call(
            r.object, pause ? QStringLiteral("queue.pause") : QStringLiteral("queue.resume"),
            QStringLiteral("bullmq_pause"),
            {BullMqUnit::Meta, BullMqUnit::Wait, BullMqUnit::Paused, BullMqUnit::Prioritized,
             BullMqUnit::Delayed, BullMqUnit::Marker, BullMqUnit::Events});
        call.args = {pause ? "paused" : "resumed"};
        call.summary = pause ? QStringLiteral("Pause BullMQ queue \"%1\": workers take no new "
                                              "job until it is resumed.")
                                   .arg(printableBytes(r.object->key))
                             : QStringLiteral("Resume BullMQ queue \"%1\".")
                                   .arg(printableBytes(r.object->key));
        call.meaning = pauseMeaning(pause);
        return call;
    });
}

} // namespace

QList<PatternAction> BullMqUnit::actions() const
{
    return libraryqueue::requeueActions(requeueSpec())
           + QList<PatternAction>{retryAction(),         promoteAction(), removeAction(),
                                  cleanFinishedAction(), pausing(true),   pausing(false)};
}

} // namespace gatehouse
