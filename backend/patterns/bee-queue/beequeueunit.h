// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// A bee-queue queue (npm "bee-queue" 1.x-2.x; layout read from bee-queue
// 2.0.0's lib/queue.js, lib/job.js and lib/lua/*.lua): keys under
// "<prefix>:<queue>:" (prefix "bq"): "id" STRING (the job id counter),
// "jobs" HASH (id -> JSON {data, options, status, progress}), "waiting" and
// "active" LISTs of ids (BRPOPLPUSH from one to the other), "succeeded" and
// "failed" SETs, "delayed" ZSET (score = due ms), and the stall check's
// "stalling" SET and "stallBlock" STRING (SET NX PX stallInterval). The
// object's key is the base.
//
// Recognised by what only bee-queue writes: the "jobs" hash, "stallBlock"
// and "stalling" beside its state names. A base with bee-queue's names but
// jobs listed and no "jobs" hash, or one of its names with another type, is
// shown read-only as an unknown layout: every script checks the same before
// writing.
//
// Stalled, by bee-queue's own rule (lib/lua/checkStalledJobs.lua): the last
// check copied "active" into "stalling"; a live worker removes its job from
// "stalling" every stallInterval/2; a job still in both once "stallBlock"
// has expired was not renewed for a whole interval, and the next check moves
// it back to "waiting". Acts with lua/bee-queue/: requeue stalled jobs (as
// checkStalledJobs does), retry failed jobs (Job#retry), remove a job
// (Queue#removeJob). Code: beequeueunit.cpp (claims, probe, reading),
// beequeueactions.cpp, beequeuejobs.cpp (the job browser).
class BeeQueueUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"bee-queue"};
    static constexpr int Batch = 100; // jobs per script run (requeue --stuck, retry --all)

    // The keys in related, in this order.
    enum State {
        Waiting,
        Active,
        Succeeded,
        Failed,
        Delayed,
        Stalling,
        StallBlock,
        Jobs,
        Id,
        KeyCount
    };
    static QByteArray suffix(State s);
    static QByteArray type(State s);
    static QByteArray keyOf(const PatternObject &o, State s);
    // "bq:emails:waiting" -> "bq:emails"; empty when key has no such suffix.
    static QByteArray baseOf(const QByteArray &key);
    static PatternObject objectForBase(const QByteArray &base);

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("bee-queue queue"); }
    LibraryInfo library() const override
    {
        return {QStringLiteral("bee-queue"), QStringLiteral("1-2")};
    }
    bool ownsKey(const PatternObject &object, const QByteArray &key) const override;
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 10; } // before Bull, whose names it shares
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    // The oldest waiting job's record, for when it was created or is due.
    QList<Command> followUp(const PatternObject &object, const QList<RedisValue> &replies,
                            const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;
    QList<JobVerb> jobVerbs(const QString &state) const override;
    // A state's job ids, a page at a time (lists from their left, sets by
    // SSCAN order, delayed by due time), with each job's status; and one
    // job's record from the "jobs" hash (cut to JobFieldCutBytes).
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    libraryqueue::JsonOptions jsonOptions() const override;
    // Its newest job id (checkHealth's newestJob) and the stall check's state.
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
