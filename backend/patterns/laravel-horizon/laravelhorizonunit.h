// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// Laravel Horizon's bookkeeping (laravel/horizon 5; read from v5.29.1's
// src/Repositories/RedisJobRepository.php, RedisSupervisorRepository.php,
// RedisMasterSupervisorRepository.php and config/horizon.php), under its own
// prefix ("<app>_horizon:", config horizon.prefix): the ZSETs "recent_jobs",
// "pending_jobs", "completed_jobs", "silenced_jobs", "failed_jobs" and
// "recent_failed_jobs" of job ids scored by minus the time they entered
// (microtime * -1, storeJobReference), a HASH per job id (status, payload,
// exception, failed_at, retried_by...; EXPIREAT by the trim settings), the
// ZSETs "supervisors" and "masters" of names scored by their last heartbeat
// (epoch s) with "supervisor:<name>" and "master:<name>" HASHes that expire
// (30 s and 15 s), and the metrics' sets and snapshots ("measured_jobs",
// "measured_queues", "snapshot:job:<name>", "snapshot:queue:<name>",
// "job:<name>", "queue:<name>", "last_snapshot_at", "monitoring").
// The object's key is the prefix; related are the keys in State order.
//
// Recognised by its "recent_jobs" ZSET of negative scores with another of
// its sets beside it; every key under the prefix is Horizon's (its own
// Redis connection prefix). Shows Horizon's counts (ZCARD, as its
// totalRecent and totalFailed) and its supervisors; a supervisor in
// "supervisors" whose heartbeat is older than 29 s is one Horizon's own
// names() no longer lists (gone quiet). Acts: retry a failed job. Code:
// laravelhorizonunit.cpp, laravelhorizonactions.cpp, laravelhorizonjobs.cpp
// (the job browser).
class LaravelHorizonUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"laravel-horizon"};
    static constexpr int PendingJobExpiresSec = 3600; // Horizon's trim.pending default

    enum State {
        Recent,
        Pending,
        Completed,
        Silenced,
        Failed,
        RecentFailed,
        Supervisors,
        Masters,
        KeyCount
    };
    // The prefix of any key whose name is one of Horizon's sets'; empty
    // when none.
    static QByteArray prefixOf(const QByteArray &key);
    static PatternObject objectForPrefix(const QByteArray &prefix);

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("Laravel Horizon"); }
    LibraryInfo library() const override
    {
        return {QStringLiteral("horizon"), QStringLiteral("5")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;
    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 12; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    // Each paged supervisor's status and processes, each sampled recent
    // job's status, the paged jobs' times.
    QList<Command> followUp(const PatternObject &object, const QList<RedisValue> &replies,
                            const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    // retry: a failed job back on its Laravel queue, as RetryFailedJob does
    // (laravelhorizonactions.cpp).
    QList<PatternAction> actions() const override;
    // Its jobs by Horizon's set names, the latest first (the sets' order):
    // each row the job's id with its hash's name, attempts (its payload's)
    // and exception; the detail the job hash, its payload as JSON and
    // data.command decoded.
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    libraryqueue::ColumnOptions columnOptions() const override;
    libraryqueue::JsonOptions jsonOptions() const override;
    // Its supervisors and masters, and those with a fresh heartbeat.
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
