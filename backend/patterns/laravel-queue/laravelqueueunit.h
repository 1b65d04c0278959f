// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// A Laravel Redis queue (illuminate/queue; read from 8.83's
// src/Illuminate/Queue/RedisQueue.php and LuaScripts.php): the LIST
// "<prefix>queues:<name>" of JSON job payloads (RPUSHed by push, LPOPed by
// pop), the ZSETs "<prefix>queues:<name>:delayed" (score: when the job is
// due, epoch s) and "<prefix>queues:<name>:reserved" (a popped job, its
// "attempts" already counted; score: the reservation's expiry, pop time +
// retry_after, epoch s) and the LIST "<prefix>queues:<name>:notify" (one
// "1" per job ready, for BLPOP). <prefix> is the application's Redis prefix
// (config database.redis.options.prefix, "laravel_database_" by default;
// possibly empty); on a Cluster the queue's name carries the hash tag
// ("{default}"). The object's key is the queue's LIST, whether or not it
// exists; related are the keys in State order.
//
// Recognised with no profile when a queue has its notify list or a
// delayed or reserved sorted set beside it (a bare "queues:<name>" list is
// any application's); a layout whose keys have other types, or whose jobs
// are not Laravel payloads (JSON with "job", "id" and "attempts"), is shown
// read-only as unknown. Stuck: a reserved job whose expiry is at or before
// now: its worker died or overran retry_after, and the next pop by any
// worker (RedisQueue::migrate) would put it back on the queue.
//
// Acts with lua/laravel-queue/: release expired reservations as
// RedisQueue::migrateExpiredJobs does, and remove one job. Code:
// laravelqueueunit.cpp (claims, probe, reading), laravelqueueactions.cpp,
// laravelqueuejobs.cpp (the job browser).
class LaravelQueueUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"laravel-queue"};
    static constexpr int Batch = 100;        // jobs per release run (as Laravel's chunks)
    static constexpr int ListSearch = 10000; // entries remove searches in the queue's list

    enum State { Queue, Delayed, Reserved, Notify, KeyCount };

    // "<prefix>queues:<name>" for any of its keys; empty when key is none.
    static QByteArray queueOf(const QByteArray &key);
    static State stateOf(const QByteArray &key);
    static PatternObject objectForQueue(const QByteArray &queueKey);
    static QByteArray keyOf(const PatternObject &o, State s);
    // The payload id a job browser row's ref names (what remove and requeue
    // take): a pending entry's place or a set member's "<score>\x1e<id>".
    static QByteArray jobIdOf(const QByteArray &ref);

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("Laravel queue"); }
    LibraryInfo library() const override
    {
        return {QStringLiteral("laravel"), QStringLiteral("8")};
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
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;
    // Its jobs by Laravel's state names: pending (the list, from its head),
    // delayed and reserved (the sets by score); each row's id is its
    // payload's "id", its detail the payload with data.command decoded.
    // Failed jobs live in Laravel's database, not in Redis.
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    libraryqueue::ColumnOptions columnOptions() const override;
    libraryqueue::JsonOptions jsonOptions() const override;
    // The oldest pending job's wait, when its payload says when it was
    // pushed (Horizon's "pushedAt", Laravel 11's "createdAt").
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
