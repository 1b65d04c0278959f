// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/bullfamilyunit.h>

namespace gatehouse {

// A BullMQ 5 or 6 queue (npm "bullmq"; layout in LIBRARIES.md, read from
// BullMQ's src/classes/queue-keys.ts and its Lua commands): the keys under
// "<prefix>:<queue>:" (prefix "bull" by default, a hash tag such as "{bull}"
// on a Cluster). The object's key is that base, "bull:emails"; related are
// its keys in BullMqUnit::State order. What it shares with Bull is
// BullFamilyUnit's.
//
// Reads the meta hash's small fields, each state's size (LLEN, ZCARD) and,
// with one SORT_RO over "active" (at most a page), every active job's lock,
// processedOn, name and attempts: a job in active whose lock is gone has
// stalled (its worker died or stopped renewing the lock), which is what
// BullMQ's own stall check looks for. Job data, return values and stack
// traces are never read by the monitor.
//
// Acts with Gatehouse's own scripts (lua/bullmq/) that do what BullMQ's own
// commands do, so that BullMQ's workers take the result: requeue stalled
// (moveStalledJobsToWait), retry (reprocessJob), promote, remove (refused for
// a locked job), pause/resume and clean. Each checks the keys' types and that
// meta's "version" is BullMQ 5 or 6 before its first write.
class BullMqUnit final : public BullFamilyUnit
{
public:
    static constexpr PatternKind Kind{"bullmq"};
    static constexpr int Batch = 100; // jobs per script run (requeue/retry/promote all, clean)

    // The keys in related, in this order.
    enum State {
        Meta,
        Wait,
        Active,
        Paused,
        Prioritized,
        Delayed,
        Completed,
        Failed,
        WaitingChildren,
        Events,
        Marker,
        PriorityCounter,
        Id,
        Stalled,
        StalledCheck,
        KeyCount
    };
    static const Layout &keys();
    static PatternObject objectForBase(const QByteArray &base)
    {
        return keys().objectForBase(base);
    }

    BullMqUnit()
        : BullFamilyUnit(keys())
    {}
    QString title() const override { return QStringLiteral("BullMQ queue"); }
    LibraryInfo library() const override
    {
        return {QStringLiteral("bullmq"), QStringLiteral("5-6")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    int groupOrder() const override { return 10; } // takes its queue's keys before anyone
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qsizetype probedReplies() const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QList<PatternAction> actions() const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    libraryqueue::ColumnOptions columnOptions() const override { return {true, true, QString()}; }
    int claimStrength(int s) const override;
    QByteArray attemptsField() const override { return "atm"; }
    QList<QByteArray> detailFields() const override;
};

} // namespace gatehouse
