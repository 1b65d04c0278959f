// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// An RQ queue (python-rq; layout in LIBRARIES.md, read from RQ 1.13's
// rq/queue.py, rq/registry.py, rq/job.py and rq/worker_registration.py):
// the list "rq:queue:<name>" of job ids and the queue's registries, sorted
// sets scored by expiry (s): "rq:wip:<name>" (started), "rq:finished:",
// "rq:failed:", "rq:scheduled:", "rq:deferred:", "rq:canceled:"; its
// workers in "rq:workers:<name>" (keys of "rq:worker:<w>" hashes that expire
// unless the worker heartbeats). The object's key is "rq:queue:<name>",
// whether or not that list exists (it is gone while the queue is empty);
// related are the keys in RqUnit::State order.
//
// Reads every size, the started registry's first page (by score: the most
// overdue first) with each job's started_at through one SORT_RO, and the
// queue's workers' heartbeats through another. A started job whose score is
// in the past is abandoned: its worker died (or overran its timeout) and no
// one holds it; RQ's own cleanup would move it to the failed registry. RQ 1.x
// keeps job ids there, RQ 2.x (read from 2.10's rq/registry.py and
// rq/executions.py) "job_id:execution_id" with an "rq:execution:<member>"
// hash and the job's "rq:executions:<id>" ZSET; both are read and written.
// RQ 2's intermediate queue ("rq:queue:<name>:intermediate") belongs to its
// queue.
//
// Acts with Gatehouse's own scripts (lua/rq/) that do what RQ's own API does:
// requeue abandoned and failed jobs (BaseRegistry.requeue; an RQ 2 job's dead
// executions ended as Execution.delete does), cancel (Job.cancel) and delete
// (Job.delete) a job. Code: rqunit.cpp (claims, probe, reading),
// rqactions.cpp, rqjobs.cpp (the job browser).
class RqUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"rq"};
    static constexpr int Batch = 100; // jobs per script run (requeue --stuck, retry --all)

    // The keys in related, in this order.
    enum State {
        Queue,
        Started,
        Finished,
        Failed,
        Scheduled,
        Deferred,
        Canceled,
        Workers,         // rq:workers:<name>
        CleanRegistries, // rq:clean_registries:<name>, RQ's cleaning guard
        SchedulerLock,   // rq:scheduler-lock:<name>
        Queues,          // rq:queues (every queue's)
        AllWorkers,      // rq:workers
        Suspended,       // rq:suspended (every worker's)
        KeyCount
    };
    // "rq:wip:" for Started; the shared keys' whole names.
    static QByteArray prefixOf(State s);
    static QByteArray keyOf(const PatternObject &o, State s);
    // The queue's name in any of its per-queue keys ("rq:wip:emails" ->
    // "emails"); empty when key is none of them.
    static QByteArray nameOf(const QByteArray &key);
    static PatternObject objectForName(const QByteArray &name);

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("RQ queue"); }
    LibraryInfo library() const override { return {QStringLiteral("rq"), QStringLiteral("1-2")}; }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 10; } // takes RQ's keys before anyone
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    // The newest finished and failed jobs' enqueued_at, started_at and
    // ended_at, and the oldest queued job's enqueued_at (appended to the
    // probe), and their replies into the reading's job times.
    static QList<Command> jobTimesProbe(const PatternObject &object);
    static void readJobTimes(Reading &reading, const QList<RedisValue> &replies, qsizetype followAt,
                             qint64 nowMs);
    // The started page's and the finished pages' jobs' times.
    QList<Command> followUp(const PatternObject &object, const QList<RedisValue> &replies,
                            const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;
    // RQ's states' jobs, a page at a time (the job hash's description,
    // times and the exception its exc_info ends with), and one job's hash
    // (exc_info inflated, from the hash or, RQ 1.12+ on Redis 5+, the
    // latest entry of its results stream; cut to JobFieldCutBytes; pickled
    // data by size).
    QList<JobVerb> jobVerbs(const QString &state) const override;
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    libraryqueue::JsonOptions jsonOptions() const override;
    // Its workers and those with a heartbeat.
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
