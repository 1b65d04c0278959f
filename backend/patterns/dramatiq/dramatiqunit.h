// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// A Dramatiq queue on its Redis broker (Python; layout read from Dramatiq
// 1.17.1's dramatiq/brokers/redis.py and dramatiq/brokers/redis/dispatch.lua),
// in the default namespace "dramatiq": the LIST "dramatiq:<q>" of message ids
// and the HASH "dramatiq:<q>.msgs" of id -> message (JSON); its delay queue
// "dramatiq:<q>.DQ" (+ ".DQ.msgs"), whose messages workers hold until their
// eta; its dead letters, the ZSET "dramatiq:<q>.XQ" (scored by when, ms) and
// "dramatiq:<q>.XQ.msgs"; the shared ZSET "dramatiq:__heartbeats__" of worker
// ids scored by their last command (ms); and per worker and queue the SET
// "dramatiq:__acks__.<worker>.<q>" (and "...<q>.DQ") of messages fetched and
// not yet acked. The object's key is the queue's list; related are the keys
// in DramatiqUnit::State order, then the ack sets discovery found.
//
// Orphans: messages in the ack set of a worker whose heartbeat is older than
// the heartbeat timeout (the rule's stuckAfterMs; Dramatiq's default 60 s)
// or gone: dispatch.lua's maintenance puts them back on their queue. Acts
// with Gatehouse's own scripts (lua/dramatiq/): requeue orphans as that
// maintenance step does, and retry dead letters. Code: dramatiqunit.cpp,
// dramatiqactions.cpp, dramatiqjobs.cpp.
class DramatiqUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"dramatiq"};
    static constexpr int Batch = 100; // workers or messages per script run
    static constexpr int MaxAckSets = 100;

    enum State { Queue, Msgs, Delayed, DelayedMsgs, Dead, DeadMsgs, Heartbeats, KeyCount };
    static QByteArray keyOf(const PatternObject &o, State s);
    // The queue's name in any of its keys ("dramatiq:default.XQ" ->
    // "default"; an ack set's queue); empty when none.
    static QByteArray nameOf(const QByteArray &key);
    static PatternObject objectForName(const QByteArray &name);

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("Dramatiq queue"); }
    LibraryInfo library() const override
    {
        return {QStringLiteral("dramatiq"), QStringLiteral("1.x")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 10; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    // Ack sets found again are added (a worker that started since), up to
    // MaxAckSets; one read empty whose worker has no heartbeat left is
    // dropped (Dramatiq's maintenance removes a heartbeat once the worker's
    // ack sets are gone).
    bool merge(PatternObject &current, const PatternObject &found) const override;
    std::optional<PatternObject> afterRead(const PatternObject &probed,
                                           const PatternObject &current,
                                           const QList<RedisValue> &replies) const override;

    // The probe's replies: the queue's counts and samples (replies before
    // OldestReply), the queue's head (OldestReply), then three per ack set
    // from AckReplies; the follow-up reads the head's message.
    static constexpr int OldestReply = 11;
    static constexpr int AckReplies = 12;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    QList<Command> followUp(const PatternObject &object, const QList<RedisValue> &replies,
                            const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;
    // A page of a state's ids, and a message's record (dramatiqjobs.cpp).
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    libraryqueue::ColumnOptions columnOptions() const override;
    libraryqueue::JsonOptions jsonOptions() const override;
    // In flight per worker, with each worker's heartbeat.
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
