// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

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
class BullUnit final : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"bull"};

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
    static QByteArray keyOf(const PatternObject &o, State s);
    static PatternObject objectForBase(const QByteArray &base);

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("Bull queue"); }
    QByteArray keyType() const override { return {}; }
    LibraryInfo library() const override { return {QStringLiteral("bull"), QStringLiteral("3-4")}; }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    // Every "<prefix>:<queue>:…" key: its job hashes, logs, locks, meta.
    bool ownsKey(const PatternObject &object, const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 11; } // after BullMQ, which takes its own
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QList<PatternAction> actions() const override;
    // Its jobs are hashes of BullMQ's shape: listed and read as BullMQ's.
    QStringList jobStates() const override;
    JobStage jobStage(const QString &state) const override;
    QList<JobVerb> jobVerbs(const QString &state) const override;
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
};

} // namespace gatehouse
