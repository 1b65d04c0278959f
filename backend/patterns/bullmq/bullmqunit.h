// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// A BullMQ 5 or 6 queue (npm "bullmq"; layout in LIBRARIES.md, read from
// BullMQ's src/classes/queue-keys.ts and its Lua commands): the keys under
// "<prefix>:<queue>:" (prefix "bull" by default, a hash tag such as "{bull}"
// on a Cluster). The object's key is that base, "bull:emails"; related are
// its keys in BullMqUnit::State order.
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
class BullMqUnit final : public PatternUnit
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
    static QByteArray suffix(State s);
    static QByteArray keyOf(const PatternObject &o, State s);
    // "bull:emails:meta" -> "bull:emails"; empty when key has no BullMQ suffix.
    static QByteArray baseOf(const QByteArray &key);
    static PatternObject objectForBase(const QByteArray &base);

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("BullMQ queue"); }
    QByteArray keyType() const override { return {}; }
    LibraryInfo library() const override
    {
        return {QStringLiteral("bullmq"), QStringLiteral("5-6")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    // Every "<prefix>:<queue>:…" key: its job hashes, logs, locks, meta.
    bool ownsKey(const PatternObject &object, const QByteArray &key) const override
    {
        return (key.size() > object.key.size() + 1 && key.startsWith(object.key)
                && key.at(object.key.size()) == ':')
               || PatternUnit::ownsKey(object, key);
    }

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 10; } // takes its queue's keys before anyone
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    bool goneWhenMissing() const override { return true; }

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;
    // Its states' jobs, a page at a time, and one job's hash (data, opts,
    // return value, stack trace each cut to JobFieldCutBytes).
    QStringList jobStates() const override;
    JobStage jobStage(const QString &state) const override;
    QList<JobVerb> jobVerbs(const QString &state) const override;
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;
    // Shared with Bull, whose states and failed set work the same way: the
    // stage of a state, and the failed set's verbs (Job.retry back from it,
    // Queue.clean(grace, limit, "failed") to purge it by age; neither library
    // fails a job from outside a worker, whose lock token moveToFailed needs,
    // so there is no dead-letter verb).
    static JobStage stageOfState(const QString &state);
    static QList<JobVerb> failedSetVerbs(const QString &state);
    // Shared with Bull, whose jobs are hashes of the same shape: a page of
    // the state held in key (a LIST, or a ZSET read newest first or next
    // first) with each job's name, time, attempts (attemptsField) and short
    // failed reason; and one job's small fields and cut large ones.
    static JobRead listJobs(const PatternObject &object, const QString &state,
                            const QByteArray &key, bool isList, bool newestFirst, qint64 offset,
                            int count, const QByteArray &attemptsField);
    // What a one-job reply of lua/bullmq (and lua/bull) means: 1 did, 0 not
    // in state, -1 locked, -2 no such job, -4 part of a flow.
    static ReplyMeaning jobMeaning(qint64 reply, const QByteArray &job, const QString &did,
                                   const QString &state);
    static JobRead readJob(const PatternObject &object, const QByteArray &job,
                           const QList<QByteArray> &smallFields);
};

} // namespace gatehouse
