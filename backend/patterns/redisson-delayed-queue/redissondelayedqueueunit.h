// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// Redisson's RDelayedQueue (layout read from RedissonDelayedQueue.java of
// Redisson 3.52.0 and 4.7.0): offer(e, delay) packs the element as
// struct.pack('Bc0Lc0', #random, random, #value, value) (8 random bytes, so
// equal elements stay apart), ZADDs it to "redisson_delay_queue_timeout:{name}"
// scored by when it is due (ms) and RPUSHes it to "redisson_delay_queue:{name}";
// each Redisson client's transfer task moves the due ones (score <= now, 100
// a run) to the destination queue <name>, a LIST, unpacked. Due items still
// in the ZSET wait for a Redisson client to run that task: Gatehouse shows
// them as stuck and moves them as the task does (queue requeue NAME --stuck).
//
// Reads the counts, the next due time and a page of due items.
// Reading: length = the destination's length; inFlight = delayed items;
// stuck = due items; its own data: until the next item is due (0 when
// one is due); oldestInFlightAgeMs = how long the oldest due item has been
// due; stuckJobs = the due items read (job = the element, cut);
// counts delayed, due, queued.
//
// Object: key = the destination queue's name; related = {timeout ZSET,
// delay LIST, destination LIST}.
class RedissonDelayedQueueUnit final : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"redisson-delayed-queue"};
    static constexpr int Batch = 100; // RedissonDelayedQueue's pushTaskAsync moves 100 a run
    enum Related { Timeouts, Delayed, Destination };

    static QByteArray timeoutKey(const QByteArray &name);
    static QByteArray delayKey(const QByteArray &name);
    static PatternObject objectForName(const QByteArray &name);
    // The element inside one of Redisson's packed members; the member itself
    // when it is not packed so.
    static QByteArray unpack(const QByteArray &member);

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("Redisson delayed queue"); }
    QByteArray keyType() const override { return {}; }
    LibraryInfo library() const override
    {
        return {QStringLiteral("redisson"), QStringLiteral("3-4")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 15; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    QList<Figure> figures() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;

    // Moves the due items to the destination as Redisson's transfer task does.
    static ScriptCall transferDue(const PatternObject &object);
};

} // namespace gatehouse
