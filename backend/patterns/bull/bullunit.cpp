// SPDX-License-Identifier: MIT
#include "bullunit.h"

#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/matchcounter.h>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(BullUnit::Kind, BullFamilyUnit::judgement());

namespace {

constexpr int CountedStates = 7; // wait .. failed: Bull's own state names
// The probe's replies: the counts, two flags, the active jobs, then
// jobTimesProbe's three.
constexpr qsizetype JobTimesAt = CountedStates + 3;
constexpr qsizetype ProbedReplies = JobTimesAt + 3;

QByteArray keyOf(const PatternObject &o, BullUnit::State s)
{
    return BullUnit::keys().keyOf(o, s);
}

// Keys Bull's scripts take that are no state of the queue: the "meta" hash
// Bull's pause writes for BullMQ's sake, and the rate limiter's index.
void addKey(ScriptCall &call, const PatternObject &o, const char *suffix, const char *type)
{
    call.keys << o.key + ':' + suffix;
    call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(suffix),
                                                 QString::fromLatin1(type));
}

// bee-queue's own keys under a base that also has an "id" counter, active
// and delayed as Bull's (bee-queue lib/queue.js): its jobs hash, or its
// stall check's set or guard.
bool isBeeQueueBase(const QByteArray &jobsType, const QByteArray &stallingType,
                    const QByteArray &stallBlockType)
{
    return jobsType == "hash" || stallingType == "set" || stallBlockType == "string";
}

QByteArray typeIn(const ClaimPool &pool, const QByteArray &key)
{
    const ClaimPool::Entry *e = pool.find(key);
    return e ? e->shape.type : QByteArray("none");
}

} // namespace

const BullFamilyUnit::Layout &BullUnit::keys()
{
    static const Layout layout{Kind,
                               {{"wait", "list"},
                                {"active", "list"},
                                {"paused", "list"},
                                {"priority", "zset"},
                                {"delayed", "zset"},
                                {"completed", "zset"},
                                {"failed", "zset"},
                                {"stalled", "set"},
                                {"stalled-check", "string"},
                                {"id", "string"},
                                {"meta-paused", "string"}}};
    return layout;
}

QList<PatternUnit::Command> BullUnit::identifyProbe(const QByteArray &target) const
{
    return {{"TYPE", target + ":id"},          {"TYPE", target + ":meta"},
            {"TYPE", target + ":meta-paused"}, {"TYPE", target + ":jobs"},
            {"TYPE", target + ":stalling"},    {"TYPE", target + ":stallBlock"}};
}

bool BullUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    // No BullMQ meta hash; or the one Bull's own pause writes beside its
    // "meta-paused". Not bee-queue's base, which has an "id" counter too but
    // keeps every job in a "jobs" hash and runs a stall check of its own.
    return r.size() == 6 && r.at(0).bytes() == "string"
           && (r.at(1).bytes() != "hash" || r.at(2).bytes() == "string")
           && !isBeeQueueBase(r.at(3).bytes(), r.at(4).bytes(), r.at(5).bytes());
}

QList<QByteArray> BullUnit::scanGlobs(const ProfileRule &rule) const
{
    return {rule.match + ":id"};
}

QList<PatternObject> BullUnit::groupClaims(ClaimPool &pool) const
{
    // A base with Bull's id counter and one of the names only Bull keeps
    // (wait, paused, priority, completed and failed sorted sets, stalled,
    // stalled-check, meta-paused) or a job's lock: "id", "active" and
    // "delayed" alone are bee-queue's names too. BullMQ's and bee-queue's
    // queues, which group first, are gone from the pool by now; a base with
    // bee-queue's own keys is never Bull's.
    struct Base
    {
        int keys = 0;
        bool id = false;
        bool own = false;
    };
    QMap<QByteArray, Base> bases;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (pool.roleOf(key, Kind).isEmpty())
            continue;
        Base &b = bases[key.left(key.lastIndexOf(':'))];
        ++b.keys;
        const int s = keys().stateOf(key, pool.find(key)->shape.type);
        b.id = b.id || s == Id;
        b.own = b.own || (s >= 0 && s != Id && s != Active && s != Delayed);
    }
    QList<PatternObject> out;
    for (auto it = bases.cbegin(); it != bases.cend(); ++it) {
        const QByteArray &base = it.key();
        if (it->keys < 2 || !it->id
            || isBeeQueueBase(typeIn(pool, base + ":jobs"), typeIn(pool, base + ":stalling"),
                              typeIn(pool, base + ":stallBlock")))
            continue;
        const QList<QByteArray> under = pool.under(base + ':');
        if (!it->own && std::none_of(under.cbegin(), under.cend(), [](const QByteArray &k) {
                return k.endsWith(":lock");
            }))
            continue;
        PatternObject o = objectForBase(base);
        o.source = QStringLiteral("autodetected");
        for (const QByteArray &key : under)
            pool.take(key);
        out.append(o);
    }
    return out;
}

qsizetype BullUnit::probedReplies() const
{
    return ProbedReplies;
}

QList<PatternUnit::Command> BullUnit::probe(const PatternObject &o, const ProbeContext &c) const
{
    QList<Command> cmds;
    for (int s = 0; s < CountedStates; ++s)
        cmds.append({keys().type(s) == "list" ? "LLEN" : "ZCARD", keyOf(o, State(s))});
    cmds.append({"EXISTS", keyOf(o, MetaPaused)});
    cmds.append({"EXISTS", keyOf(o, Id)});
    if (auto active = activeJobsProbe(o, Active, c)) {
        cmds.append(*active);
        cmds.append(jobTimesProbe(o, Completed, Failed, Wait, c));
    }
    return cmds;
}

Reading BullUnit::read(const PatternObject &o, const QList<RedisValue> &replies,
                       const ProbeContext &c) const
{
    // Read by id, the replies as SORT would have given them.
    const QList<RedisValue> r = asSorted(o, replies, c);
    QList<QByteArray> replyKeys;
    for (int s = 0; s < CountedStates; ++s)
        replyKeys << keyOf(o, State(s));
    replyKeys << keyOf(o, MetaPaused) << keyOf(o, Id);
    QList<QByteArray> allKeys = replyKeys;
    const bool sorts = activeJobsProbe(o, Active, c).has_value();
    if (sorts) // and the job times' reads
        allKeys << keyOf(o, Active) << keyOf(o, Completed) << keyOf(o, Failed) << keyOf(o, Wait);
    if (r.size() < allKeys.size()) {
        if (auto f = failure(o, r, allKeys, c.nowMs))
            return *f;
    }
    if (auto f = failure(o, r.mid(0, replyKeys.size()), replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    qint64 total = 0;
    for (int s = 0; s < CountedStates; ++s) {
        // The priority set indexes jobs that wait (or are paused): not a
        // state of its own, and not added to them (getJobCounts has none).
        reading.editLibrary().counts.append(
            {s == Priority ? QStringLiteral("prioritised") : QString::fromLatin1(keys().suffix(s)),
             r.at(s).toInteger()});
        total = saturatingAdd(total, r.at(s).toInteger()); // sizes from replies (fuzz_patternread)
    }
    const bool metaPaused = r.at(CountedStates).toInteger() == 1;
    if (total == 0 && !metaPaused && r.at(CountedStates + 1).toInteger() == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No Bull keys under \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    // Bull keeps a prioritised job's id in wait too: queued is wait + paused.
    reading.editQueue().length
        = saturatingAdd(reading.library().countOf(u"wait"), reading.library().countOf(u"paused"));
    reading.editQueue().inFlight = reading.library().countOf(u"active");
    reading.editQueue().deadLength = reading.library().countOf(u"failed");
    reading.editLibrary().paused = metaPaused;
    if (sorts && r.size() > CountedStates + 2 && !r.at(CountedStates + 2).isError()) {
        readActiveJobs(reading, r.at(CountedStates + 2), o, reading.queue().inFlight, c.nowMs);
    } else {
        if (sorts && r.size() > CountedStates + 2)
            noteSortRefused(reading, r.at(CountedStates + 2));
        reading.editQueue().stuckIsLowerBound = true;
        reading.message
            = sorts && r.size() > CountedStates + 2
                  ? QStringLiteral("Cannot read the active jobs' locks (%1): stalled jobs are "
                                   "not known.")
                        .arg(r.at(CountedStates + 2).errorMessage())
                  : QStringLiteral("The queue's name holds '*' or \"->\": stalled jobs are not "
                                   "read.");
    }
    if (sorts && r.size() >= ProbedReplies)
        readJobTimes(reading, r, JobTimesAt, ProbedReplies, reading.library().countOf(u"wait"),
                     c.nowMs);
    return reading;
}

namespace {

// bull_clean (KEYS[1] the cleaned ZSET, ARGV[2] grace ms, ARGV[3] batch):
// the finished jobs scored before the cut-off; a count-only run is not
// counted.
[[maybe_unused]] const bool s_cleanCounted = MatchCounter::add(
    QStringLiteral("bull_clean"),
    MatchCounter::scoredBefore(QStringLiteral("queue.clean"), 0, 1, 2,
                               QStringLiteral("locked ones are left; up to %1 will be removed")));

// bull_promote with no job (KEYS[1] delayed ZSET, ARGV[3] batch): every
// delayed job.
[[maybe_unused]] const bool s_promoteCounted = MatchCounter::add(
    QStringLiteral("bull_promote"), MatchCounter::wholeSet(0, 1, 2, QStringLiteral("promoted")));

// bull_retry with no job (KEYS[4] the finished ZSET, ARGV[3] batch): every
// failed (or completed) job.
[[maybe_unused]] const bool s_retryCounted = MatchCounter::add(
    QStringLiteral("bull_retry"), MatchCounter::wholeSet(3, 1, 2, QStringLiteral("retried")));

} // namespace
namespace {

using namespace libraryqueue;

QByteArray cutArg()
{
    return QByteArray::number(ScriptCall::ReplyCutBytes);
}

QByteArray batchArg()
{
    return QByteArray::number(BullUnit::Batch);
}

RequeueSpec requeueSpec()
{
    RequeueSpec requeue;
    requeue.stuckLabel = QStringLiteral("Every stalled job");
    requeue.olderThanRefusal
        = QStringLiteral("A Bull job is stalled when its lock is gone, whatever its age: queue "
                         "requeue takes no --older-than for a Bull queue.");
    requeue.build = [](const ActionRequest &r) {
        ScriptCall call = BullUnit::keys().call(r.object, QStringLiteral("queue.requeue"),
                                                QStringLiteral("bull_requeue"),
                                                {BullUnit::Wait, BullUnit::Active, BullUnit::Paused,
                                                 BullUnit::MetaPaused, BullUnit::Stalled});
        const QByteArray id = r.input(QStringLiteral("job"));
        call.args = {r.object->key + ':', id, batchArg(), cutArg()};
        if (!id.isEmpty()) {
            call.summary = QStringLiteral("Move Bull job %1 of \"%2\" from active back to wait, "
                                          "only if its lock is gone (stalled), as Bull's stall "
                                          "check does.")
                               .arg(printableBytes(id, 80), printableBytes(r.object->key));
            call.meaning = BullFamilyUnit::jobReply(id, QStringLiteral("was requeued to wait"),
                                                    QStringLiteral("active"));
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Move every stalled Bull job of \"%1\" (active without "
                                          "a lock) back to wait, up to %2 per run, as Bull's "
                                          "stall check does.")
                               .arg(printableBytes(r.object->key))
                               .arg(BullUnit::Batch);
            batchRun(call, BullUnit::Batch, QStringLiteral("Requeued %1 stalled jobs."));
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
            ScriptCall call = BullUnit::keys().call(
                r.object, QStringLiteral("queue.retry"), QStringLiteral("bull_retry"),
                {BullUnit::Wait, BullUnit::Paused, BullUnit::MetaPaused,
                 completed ? BullUnit::Completed : BullUnit::Failed});
            const QByteArray id = r.input(QStringLiteral("job"));
            call.args = {r.object->key + ':', id, batchArg(), cutArg()};
            if (!id.isEmpty()) {
                call.summary
                    = QStringLiteral("Retry Bull job %1 of \"%2\": from %3 back to wait, "
                                     "as Bull's Job#retry does.")
                          .arg(printableBytes(id, 80), printableBytes(r.object->key), state);
                call.meaning
                    = BullFamilyUnit::jobReply(id, QStringLiteral("was moved back to wait"), state);
            } else {
                call.summary = QStringLiteral("Retry every %1 Bull job of \"%2\", oldest first, up "
                                              "to %3 per run.")
                                   .arg(state, printableBytes(r.object->key))
                                   .arg(BullUnit::Batch);
                batchRun(call, BullUnit::Batch, QStringLiteral("Retried %1 jobs."));
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
            ScriptCall call = BullUnit::keys().call(
                r.object, QStringLiteral("queue.promote"), QStringLiteral("bull_promote"),
                {BullUnit::Delayed, BullUnit::Wait, BullUnit::Paused, BullUnit::MetaPaused,
                 BullUnit::Priority});
            const QByteArray id = r.input(QStringLiteral("job"));
            call.args = {r.object->key + ':', id, batchArg(), cutArg()};
            if (!id.isEmpty()) {
                call.summary = QStringLiteral("Run delayed Bull job %1 of \"%2\" now, as Bull's "
                                              "Job#promote does.")
                                   .arg(printableBytes(id, 80), printableBytes(r.object->key));
                call.meaning = BullFamilyUnit::jobReply(id, QStringLiteral("was promoted to wait"),
                                                        QStringLiteral("delayed"));
            } else {
                call.summary = QStringLiteral("Run every delayed Bull job of \"%1\" now, soonest "
                                              "first, up to %2 per run, as Bull's Job#promote "
                                              "does for each.")
                                   .arg(printableBytes(r.object->key))
                                   .arg(BullUnit::Batch);
                batchRun(call, BullUnit::Batch, QStringLiteral("Promoted %1 jobs."));
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
            ScriptCall call = BullUnit::keys().call(
                r.object, QStringLiteral("queue.remove"), QStringLiteral("bull_remove"),
                {BullUnit::Active, BullUnit::Wait, BullUnit::Delayed, BullUnit::Paused,
                 BullUnit::Completed, BullUnit::Failed, BullUnit::Priority});
            addKey(call, r.object, "limiter:index", "hash");
            const QByteArray id = r.input(QStringLiteral("job"));
            call.args = {r.object->key + ':', id};
            call.summary = QStringLiteral("Remove Bull job %1 of \"%2\" and its keys, unless a "
                                          "worker holds its lock, as Bull's Job#remove does.")
                               .arg(printableBytes(id, 80), printableBytes(r.object->key));
            call.meaning = BullFamilyUnit::jobReply(id, QStringLiteral("was removed"),
                                                    QStringLiteral("in the queue"));
            return call;
        });
    return remove;
}

PatternAction cleanFinishedAction()
{
    PatternAction clean = cleanAction([](const ActionRequest &r) {
        ScriptCall call = BullUnit::keys().call(
            r.object, QStringLiteral("queue.clean"), QStringLiteral("bull_clean"),
            {cleansCompleted(r) ? BullUnit::Completed : BullUnit::Failed, BullUnit::Priority});
        addKey(call, r.object, "limiter:index", "hash");
        const bool count = r.has(QStringLiteral("count-only"));
        call.args
            = {r.object->key + ':', QByteArray::number(r.integer(QStringLiteral("older-than"))),
               batchArg(), count ? QByteArray("count") : QByteArray()};
        finishClean(call, r, QStringLiteral("Bull"), QStringLiteral("as Bull's Queue#clean does"),
                    BullUnit::Batch);
        return call;
    });
    return clean;
}

PatternAction pausing(bool pause)
{
    return pauseAction(pause, [pause](const ActionRequest &r) {
        ScriptCall call = BullUnit::keys().call(
            r.object, pause ? QStringLiteral("queue.pause") : QStringLiteral("queue.resume"),
            QStringLiteral("bull_pause"), {BullUnit::Wait, BullUnit::Paused, BullUnit::MetaPaused});
        addKey(call, r.object, "meta", "hash");
        call.args = {pause ? "paused" : "resumed", r.object->key + ':'};
        call.summary = pause ? QStringLiteral("Pause Bull queue \"%1\" globally: its wait "
                                              "list becomes paused and workers take no new "
                                              "job until it is resumed, as Bull's "
                                              "Queue#pause does.")
                                   .arg(printableBytes(r.object->key))
                             : QStringLiteral("Resume Bull queue \"%1\", as Bull's "
                                              "Queue#resume does.")
                                   .arg(printableBytes(r.object->key));
        const auto meaning = pauseMeaning(pause);
        call.meaning = [meaning](const RedisValue &v) {
            if (v.toInteger() == -3)
                return ReplyMeaning{false, QStringLiteral("Both the wait and the paused list "
                                                          "hold jobs: Bull's RENAME would "
                                                          "drop one of them; nothing "
                                                          "changed.")};
            return meaning(v);
        };
        return call;
    });
}

} // namespace

QList<PatternAction> BullUnit::actions() const
{
    return libraryqueue::requeueActions(requeueSpec())
           + QList<PatternAction>{retryAction(),         promoteAction(), removeAction(),
                                  cleanFinishedAction(), pausing(true),   pausing(false)};
}

QList<LibraryQueueUnit::JobState> BullUnit::states() const
{
    return {{QStringLiteral("wait")},
            {QStringLiteral("active"), JobStage::InFlight},
            {QStringLiteral("paused")},
            {QStringLiteral("delayed")},
            {QStringLiteral("completed"), JobStage::Finished},
            {QStringLiteral("failed"), JobStage::Dead}};
}

LibraryQueueUnit::StuckRule BullUnit::stuckRule() const
{
    return {QStringLiteral("inFlight"), QStringLiteral("stalled (active without a lock)"), {}};
}

QList<QByteArray> BullUnit::detailFields() const
{
    return {"name",           "timestamp", "processedOn", "finishedOn", "attemptsMade",
            "stalledCounter", "delay",     "priority",    "retriedOn"};
}

QList<Figure> BullUnit::figures() const
{
    return QList<Figure>{{QStringLiteral("length"), QStringLiteral("Waiting"), false,
                          [](const Reading &r, qint64) {
                              return double(r.queue().length);
                          }},
                         {QStringLiteral("inFlight"), QStringLiteral("Active"), false,
                          [](const Reading &r, qint64) {
                              return double(r.queue().inFlight);
                          }},
                         stuckFigure(QStringLiteral("Stalled")),
                         countFigure(QStringLiteral("completed"), QStringLiteral("Completed"),
                                     QStringLiteral("completed")),
                         countFigure(QStringLiteral("failed"), QStringLiteral("Failed"),
                                     QStringLiteral("failed"))}
           + libraryqueue::latencyFigures();
}

QList<Chart> BullUnit::charts() const
{
    return QList<Chart>{{QStringLiteral("Over time"),
                         QString(),
                         {{QStringLiteral("length"), QStringLiteral("Waiting")},
                          {QStringLiteral("inFlight"), QStringLiteral("Active")},
                          {QStringLiteral("stuck"), QStringLiteral("Stalled")}}}}
           + libraryqueue::latencyCharts()
           + QList<Chart>{libraryqueue::throughputChart(QStringLiteral("completed"),
                                                        QStringLiteral("failed"))};
}

} // namespace gatehouse
