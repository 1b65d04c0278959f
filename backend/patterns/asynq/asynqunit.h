// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// An asynq queue (Go, github.com/hibiken/asynq; layout read from v0.25.1's
// internal/base/base.go, internal/rdb/rdb.go and internal/rdb/inspect.go):
// every per-queue key starts "asynq:{<name>}:" (the hash tag keeps a queue
// in one Cluster slot): the LISTs "pending" and "active", the ZSETs
// "scheduled", "retry", "archived", "completed" (scored by when) and "lease"
// (active task ids scored by their lease's expiry, epoch seconds), the
// STRING "paused", the STRINGs "processed"/"failed" (totals) and
// "processed:<yyyy-mm-dd>"/"failed:<yyyy-mm-dd>" (per UTC day), and a HASH
// "t:<id>" per task with its protobuf "msg" and its "state". Shared are the
// SET "asynq:queues" of queue names and the ZSETs "asynq:servers" and
// "asynq:workers" (keys of each server's info and workers, scored by their
// expiry). The object's key is the queue's "pending" list, whether or not it
// exists; related are the keys in AsynqUnit::State order.
//
// Stuck: an active task whose lease expired 30 s ago or more (asynq's
// recoverer's cutoff, recoverer.go): its worker stopped extending the lease.
// Acts with Gatehouse's own scripts (lua/asynq/) that do what asynq's
// Inspector does: run (RunTask), archive (ArchiveTask), delete (DeleteTask),
// requeue a lease-expired task (rdb.Requeue), pause and unpause. Code:
// asynqunit.cpp (claims, probe, reading), asynqactions.cpp, asynqjobs.cpp.
class AsynqUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"asynq"};
    static constexpr int Batch = 100;             // tasks per script run (requeue --stuck)
    static constexpr qint64 RecovererGraceS = 30; // recoverer.go: cutoff = now - 30 s

    // The keys in related, in this order.
    enum State {
        Pending,
        Active,
        Scheduled,
        Retry,
        Archived,
        Completed,
        Lease,
        Paused,
        Processed, // total
        Failed,    // total
        Groups,    // task groups (aggregating), "groups" SET
        Queues,    // asynq:queues (every queue's)
        Servers,   // asynq:servers
        Workers,   // asynq:workers
        KeyCount
    };
    static QByteArray keyOf(const PatternObject &o, State s);
    // "asynq:{<name>}:"
    static QByteArray prefixOf(const QByteArray &name);
    // The queue's name in any of its per-queue keys ("asynq:{x}:pending" ->
    // "x"); empty when key is none.
    static QByteArray nameOf(const QByteArray &key);
    static PatternObject objectForName(const QByteArray &name);

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("asynq queue"); }
    LibraryInfo library() const override
    {
        return {QStringLiteral("asynq"), QStringLiteral("0.2x")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 10; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    // Each leased task's state.
    QList<Command> followUp(const PatternObject &object, const QList<RedisValue> &replies,
                            const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;
    // A page of a state's ids, and a task's record (asynqjobs.cpp).
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    libraryqueue::JsonOptions jsonOptions() const override;
    // Daily processed/failed, servers alive.
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
