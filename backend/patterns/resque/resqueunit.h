// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// A Resque deployment (Ruby Resque 2, read from resque/resque's
// lib/resque/{data_store,worker,failure/redis,job}.rb at v2.6.0; npm
// node-resque 9, read from its dist/core/{queue,worker}.js at 9.7.1): every
// key under one namespace ("resque" by default). One object per namespace,
// as for Sidekiq: its failed list, workers and stats are shared by its
// queues. Its key is "<ns>:queues" (SET of queue names); members are its
// "<ns>:queue:<name>" lists (JSON {class, args}, node-resque also "queue"),
// as found by the scan and as "queues" lists them.
//
// Resque's own keys besides: "<ns>:failed" LIST of JSON failures (payload,
// exception, error, backtrace, worker, queue, failed_at), "<ns>:workers" SET
// of worker ids ("host:pid:queues"), "<ns>:worker:<id>" STRING (JSON
// {queue, run_at, payload}: what it works on) and ":started",
// "<ns>:stat:processed|failed[:<id>]" counters, Resque 2's
// "<ns>:workers:heartbeat" HASH (id -> time), node-resque's
// "<ns>:worker:ping:<name>"; resque-scheduler and node-resque's delayed jobs:
// "<ns>:delayed_queue_schedule" ZSET (timestamp, s) and "<ns>:delayed:<ts>"
// LISTs, node-resque's "<ns>:timestamps:<job>" SETs.
//
// A namespace is Resque's only with a part no other library writes (its
// failed LIST, a worker STRING, its heartbeat HASH, the delayed schedule);
// "queues" with "queue:" lists and "stat:" counters alone are Sidekiq's
// shape too. A queue whose next job is not Resque's {class, args} without a
// "jid" makes the layout unknown: shown read-only.
//
// Stuck: a worker whose job started (run_at) longer ago than stuckAfter:
// node-resque's cleanOldWorkers(age) rule, Resque's prune of a worker gone
// quiet. Acts with lua/resque/: retry a failed job (Failure::Redis
// requeue_and_remove, node-resque retryAndRemoveFailed), remove one
// (Failure::Redis.remove), requeue a stuck worker's job (node-resque
// forceCleanWorker, then retryAndRemoveFailed of the failure it wrote).
// Code: resqueunit.cpp (claims, probe), resqueread.cpp (reading, how it is
// shown), resqueactions.cpp, resquejobs.cpp (the job browser).
class ResqueUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"resque"};
    static constexpr int Batch = 100; // workers per script run (requeue --stuck)

    // The namespace's shared keys, in related (after the key, "queues").
    enum Shared {
        Queues,
        Failed,
        Workers,
        Heartbeat,
        Schedule,
        Processed,
        FailedStat,
        SharedCount
    };
    // "resque:queues" -> "resque:"; nullopt when key is not a "queues" name
    // under a namespace.
    static std::optional<QByteArray> namespaceOf(const QByteArray &key);
    static QByteArray keyOf(const PatternObject &o, Shared s);
    static PatternObject objectForKey(const QByteArray &queuesKey);

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("Resque deployment"); }
    QByteArray keyType() const override { return "set"; }
    LibraryInfo library() const override
    {
        return {QStringLiteral("resque"), QStringLiteral("2; node-resque 9")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    // Before Sidekiq (11), which shares the "queues" + "queue:" shape, and
    // RQ (10), whose "rq:workers" SET resembles Resque's.
    int groupOrder() const override { return 9; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    bool merge(PatternObject &current, const PatternObject &found) const override;
    std::optional<PatternObject> afterRead(const PatternObject &probed,
                                           const PatternObject &current,
                                           const QList<RedisValue> &replies) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    // "Resque resque" (its namespace), not its `queues` key.
    QString displayName(const PatternObject &object) const override;
    QList<PatternAction> actions() const override;
    // Its jobs by Resque's state names: queued (every queue, by name),
    // working (each worker's job), failed (the failed list; a job named
    // "<index>:<sha1 of the entry>", as the actions take it), delayed.
    QList<JobVerb> jobVerbs(const QString &state) const override;
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    QString attentionSubject(const PatternObject &object) const override
    {
        return displayName(object);
    }
    libraryqueue::ColumnOptions columnOptions() const override { return {true, true, QString()}; }
    QJsonArray jsonKeys(const PatternObject &object) const override;
    // Its queues (size), workers (what each works on), stats, delayed.
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
