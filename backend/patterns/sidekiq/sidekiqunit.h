// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// A Sidekiq 6, 7 or 8 deployment (Ruby "sidekiq"; layout in LIBRARIES.md, read
// from Sidekiq's lib/sidekiq/{api,client,launcher,processor,fetch}.rb): every
// key of one Redis database (or of one redis-namespace prefix) that Sidekiq
// writes. One object per deployment, not per queue: its processes, retry,
// schedule and dead sets are shared by all its queues, and a dead process's
// in-flight work spans queues. Its key is the "queues" SET ("ns:queues" under
// a namespace); related are "processes", "schedule", "retry" and "dead" (the
// rest of SidekiqUnit::Shared, in its order);
// members are its "queue:<name>" lists and its processes' heartbeat hashes
// ("<host>:<pid>:<hex>"), as found by the scan and as "queues" and "processes"
// list them (afterRead adds new ones, a page at most).
//
// Reads each queue's size and latency (the oldest job, at the right end, by
// LINDEX -1), the sets' sizes, each process's heartbeat fields and its
// in-flight work ("<identity>:workers" in 6, "<identity>:work" in 7 and 8;
// HSCAN, one page). Work of a process whose heartbeat hash is gone, or whose
// beat is older than DeadAfterMs, is stuck: with the basic fetch no one else
// will ever run it, and it is gone for good when the work hash expires (60 s
// after the last beat: its PTTL is the countdown). "busy" is what
// Sidekiq::Stats#workers_size counts: the "busy" field of every member of
// "processes" whose hash exists, a process killed -9 included. Timestamps are
// seconds in 6 and 7, ms in 8 (by magnitude). Code: sidekiqunit.cpp (claims,
// probe), sidekiqread.cpp (the reading, how it is shown), sidekiqactions.cpp,
// sidekiqjobs.cpp (the job browser).
//
// Acts with lua/sidekiq/: recover a dead process's work to its queues (as
// Sidekiq's BasicFetch#bulk_requeue does at shutdown), and Sidekiq Web's
// retry, add to queue, delete and kill on the retry, schedule and dead sets.
class SidekiqUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"sidekiq"};
    SidekiqUnit();                    // registers workLostInMs as a countdown (CountdownFigures)
    static constexpr int Batch = 100; // jobs per script run (requeue --stuck)
    // A heartbeat comes every 5 s (Launcher::BEAT_PAUSE) and its hash lives
    // 60 s: four beats missed is a dead process whose work is still readable.
    static constexpr qint64 DeadAfterMs = 20000;

    enum Shared { Queues, Processes, Schedule, Retry, Dead, SharedCount };
    // "myapp:queues" -> "myapp:"; "queues" -> ""; nullopt when key is not a
    // "queues" name.
    static std::optional<QByteArray> namespaceOf(const QByteArray &key);
    static QByteArray keyOf(const PatternObject &o, Shared s);
    static PatternObject objectForKey(const QByteArray &queuesKey);
    // The soonest a dead process's in-flight work expires with its hash
    // (gone for good with the basic fetch), at nowMs; -1 when none is at risk.
    static qint64 soonestLossMs(const Reading &r, qint64 nowMs);

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("Sidekiq deployment"); }
    QByteArray keyType() const override { return "set"; }
    LibraryInfo library() const override
    {
        return {QStringLiteral("sidekiq"), QStringLiteral("6-8")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 11; } // takes its keys before the generic patterns
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    // The queues "queues" lists that the object does not read yet (an empty
    // queue has no key for the scan to find): their size and next job, in
    // the same reading (LLEN, LINDEX -1 each); and the processes "processes"
    // lists that it does not read yet: their last beat (HGET).
    QList<Command> followUp(const PatternObject &object, const QList<RedisValue> &replies,
                            const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    bool merge(PatternObject &current, const PatternObject &found) const override;
    std::optional<PatternObject> afterRead(const PatternObject &probed,
                                           const PatternObject &current,
                                           const QList<RedisValue> &replies) const override;

    QList<Figure> figures() const override;
    // Besides the figures: "workLostInMs", the soonest a dead process's work
    // expires (a rule "workLostInMs < 61s" fires as soon as one dies).
    QList<AlertFigure> alertFigures() const override;
    // "sidekiq-work-lost": workLostInMs below 61 s, critical.
    QList<BuiltInAlert> builtInAlerts() const override;
    QList<Chart> charts() const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    bool itemUrgent(const ObjectState &state, int i, qint64 nowMs) const override;
    // The stuck rule's sentence, and how soon the work is lost for good.
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    // "Sidekiq" (or "Sidekiq myapp" under a namespace), not its `queues` key.
    QString displayName(const PatternObject &object) const override;
    QList<PatternAction> actions() const override;
    // Its jobs a page at a time by Sidekiq's state names: enqueued (every
    // queue, by name), scheduled, retry and dead (a sorted-set job named
    // "<score>-<jid>" as Sidekiq Web and the actions name it), busy (each
    // process's work, a page of each); id = jid, name = class, attempts =
    // retry_count, error = error_message. A job's detail: its record.
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
    // Its keys with its queues and processes.
    QJsonArray jsonKeys(const PatternObject &object) const override;
    // Its queues (size, latency) and processes (alive, work, when it is lost).
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
