// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/bullfamilyunit.h>

namespace gatehouse {

// A Bull 3 or 4 queue (npm "bull", OptimalBits/bull; LIBRARIES.md): keys
// under "<prefix>:<queue>:" as BullMQ's, but no meta hash, events stream or
// marker: "meta-paused" says paused, "priority" holds priorities (the ids
// also in wait), events go over PUBLISH. The object's key is the base.
//
// Reads its counts by Bull's state names and its active jobs with their
// locks (stalled = active without a lock, as Bull's own stall check says); a
// Bull queue's keys (completed/failed sets, stall guard, job locks) are never
// shown as limiters, locks or tokens. Acts as Bull 4.16.5's own scripts do
// (lua/bull/, each citing Bull's lib/commands file): requeue stalled
// (moveStalledJobsToWait), retry (reprocessJob), promote, remove (refused
// for a locked job; removeJob), pause/resume (pause) and clean completed or
// failed jobs older than a grace period, counted first (cleanJobsInSet).
class BullUnit final : public BullFamilyUnit
{
public:
    static constexpr PatternKind Kind{"bull"};
    static constexpr int Batch = 100; // jobs per script run (requeue/retry/promote all, clean)

    // The keys in related, in this order.
    enum State {
        Wait,
        Active,
        Paused,
        Priority,
        Delayed,
        Completed,
        Failed,
        Stalled,
        StalledCheck,
        Id,
        MetaPaused,
        KeyCount
    };
    static const Layout &keys();
    static PatternObject objectForBase(const QByteArray &base)
    {
        return keys().objectForBase(base);
    }

    BullUnit()
        : BullFamilyUnit(keys())
    {}
    QString title() const override { return QStringLiteral("Bull queue"); }
    LibraryInfo library() const override { return {QStringLiteral("bull"), QStringLiteral("3-4")}; }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    int groupOrder() const override { return 11; } // after BullMQ, which takes its own
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qsizetype probedReplies() const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QList<PatternAction> actions() const override;

protected:
    // Its jobs are hashes of BullMQ's shape: listed and read the same way.
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    int claimStrength(int s) const override { return s == Id || s == MetaPaused ? 25 : 9; }
    QByteArray attemptsField() const override { return "attemptsMade"; }
    QList<QByteArray> detailFields() const override;
};

} // namespace gatehouse
