// SPDX-License-Identifier: MIT
#include "reliablequeueunit.h"

#include <algorithm>

namespace gatehouse {

QByteArray ReliableQueueUnit::claimsKey(const PatternObject &o)
{
    // The scripts take the claims key even when the queue has none (ZREM on
    // a missing key is a no-op); a name next to the queue keeps it in the
    // same hash slot when the queue's keys are hash-tagged.
    const QByteArray k = o.relatedKey(1);
    return k.isEmpty() ? o.key + ":claims" : k;
}

QByteArray ReliableQueueUnit::deadKey(const PatternObject &o)
{
    const QByteArray k = o.relatedKey(2);
    return k.isEmpty() ? o.key + ":dead" : k;
}

QList<PatternUnit::Command> ReliableQueueUnit::probe(const PatternObject &o,
                                                     const ProbeContext &c) const
{
    const QByteArray page = number(std::max(1, o.params.pageSize));
    QList<Command> cmds{
        {"LLEN", o.key},
        {"LLEN", processingKey(o)},
        {"LRANGE", processingKey(o), '-' + page, "-1"},
    };
    if (!o.relatedKey(1).isEmpty()) {
        cmds.append({"ZCOUNT", o.relatedKey(1), "-inf", number(c.nowMs - o.params.stuckAfterMs)});
        cmds.append({"ZRANGE", o.relatedKey(1), "0", number(std::max(1, o.params.pageSize) - 1),
                     "WITHSCORES"});
    }
    if (!o.relatedKey(2).isEmpty())
        cmds.append({"LLEN", o.relatedKey(2)});
    return cmds;
}

Reading ReliableQueueUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                                const ProbeContext &c) const
{
    const bool hasClaims = !o.relatedKey(1).isEmpty();
    QList<QByteArray> replyKeys{o.key, processingKey(o), processingKey(o)};
    if (hasClaims)
        replyKeys << o.relatedKey(1) << o.relatedKey(1);
    if (!o.relatedKey(2).isEmpty())
        replyKeys << o.relatedKey(2);
    if (auto f = failure(o, r, replyKeys, c.nowMs))
        return *f;

    Reading reading;
    reading.atMs = c.nowMs;
    reading.length = r.at(0).toInteger();
    reading.inFlight = r.at(1).toInteger();
    const auto &page = r.at(2).elements(); // oldest at the end
    int next = 3;
    qint64 claimedStuck = 0;
    const RedisValue *claims = nullptr;
    if (hasClaims) {
        claimedStuck = r.at(next++).toInteger();
        claims = &r.at(next++);
    }
    if (!o.relatedKey(2).isEmpty())
        reading.deadLength = r.at(next++).toInteger();

    if (claims && !claims->elements().isEmpty()) {
        const auto &e = claims->elements();
        for (qsizetype i = 0; i + 1 < e.size(); i += 2) {
            const qint64 at = e.at(i + 1).bytes().toLongLong();
            reading.items.append({e.at(i).bytes(), std::max<qint64>(0, saturatingSub(c.nowMs, at)),
                                  AgeSource::ClaimsSet});
        }
        reading.stuck = claimedStuck;
    } else {
        for (qsizetype i = page.size() - 1; i >= 0; --i) {
            const QByteArray &job = page.at(i).bytes();
            const qint64 seen = c.firstSeenMs ? c.firstSeenMs(job) : -1;
            const qint64 age = seen < 0 ? 0 : std::max<qint64>(0, saturatingSub(c.nowMs, seen));
            reading.items.append({job, age, AgeSource::FirstSeen});
            if (age >= o.params.stuckAfterMs)
                ++reading.stuck;
        }
        reading.stuckIsLowerBound = reading.inFlight > page.size();
    }
    for (const InFlightItem &item : std::as_const(reading.items))
        reading.oldestInFlightAgeMs = std::max(reading.oldestInFlightAgeMs, item.ageMs);
    reading.truncated = reading.inFlight > reading.items.size();
    if (reading.truncated && reading.inFlight > o.params.pageSize)
        reading.message = QStringLiteral("%1 jobs in flight; the oldest %2 were read.")
                              .arg(reading.inFlight)
                              .arg(reading.items.size());
    else if (reading.length == 0 && reading.inFlight == 0)
        reading.message = QStringLiteral("Empty: nothing queued, nothing in flight.");
    return reading;
}

qint64 ReliableQueueUnit::validUntilMs(const PatternObject &o, const Reading &r) const
{
    if (!r.isOk())
        return r.status == Reading::Status::Missing ? Reading::Forever : r.atMs;
    if (r.items.isEmpty() && r.inFlight == 0)
        return Reading::Forever; // ages and the stuck count need jobs in flight
    if (r.items.isEmpty() || r.stuckIsLowerBound)
        return r.atMs;
    // A job turns stuck when its age reaches the threshold. Jobs beyond the
    // page read are younger than the youngest read: once that one is stuck,
    // they may turn stuck at any time.
    const qint64 stuckAfter = o.params.stuckAfterMs;
    qint64 until = Reading::Forever;
    qint64 youngest = r.items.first().ageMs;
    for (const InFlightItem &item : r.items) {
        youngest = std::min(youngest, item.ageMs);
        if (item.ageMs < stuckAfter)
            until = std::min(until, saturatingAdd(r.atMs, stuckAfter - item.ageMs));
    }
    if (r.truncated)
        until = std::min(until, saturatingAdd(r.atMs, std::max<qint64>(0, stuckAfter - youngest)));
    return until;
}

ScriptCall ReliableQueueUnit::requeue(const PatternObject &o, const QByteArray &job)
{
    ScriptCall call;
    call.action = QStringLiteral("queue.requeue");
    call.script = QStringLiteral("queue_requeue");
    call.keys = {o.key, processingKey(o), claimsKey(o)};
    call.keyRoles = {QStringLiteral("queue"), QStringLiteral("processing list"),
                     QStringLiteral("claims set")};
    call.args = {job};
    call.summary = QStringLiteral("Move job \"%1\" from \"%2\" back to \"%3\" (next to be taken), "
                                  "only if it is still in flight.")
                       .arg(printableBytes(job, 80), printableBytes(processingKey(o)),
                            printableBytes(o.key));
    return call;
}

ScriptCall ReliableQueueUnit::deadLetter(const PatternObject &o, const QByteArray &job)
{
    ScriptCall call;
    call.action = QStringLiteral("queue.dead-letter");
    call.script = QStringLiteral("queue_dead_letter");
    call.keys = {processingKey(o), deadKey(o), claimsKey(o)};
    call.keyRoles = {QStringLiteral("processing list"), QStringLiteral("dead-letter list"),
                     QStringLiteral("claims set")};
    call.forceable = true; // past a refusal only: the script's type checks always hold
    call.args = {job};
    call.summary = QStringLiteral("Move job \"%1\" from \"%2\" to dead-letter list \"%3\", only "
                                  "if it is still in flight.")
                       .arg(printableBytes(job, 80), printableBytes(processingKey(o)),
                            printableBytes(deadKey(o)));
    return call;
}

ScriptCall ReliableQueueUnit::requeueStuck(const PatternObject &o, qint64 olderThanMs, int most)
{
    if (o.relatedKey(1).isEmpty())
        return {};
    ScriptCall call;
    call.action = QStringLiteral("queue.requeue-stuck");
    call.script = QStringLiteral("queue_requeue_stuck");
    call.keys = {o.key, processingKey(o), o.relatedKey(1)};
    call.keyRoles = {QStringLiteral("queue"), QStringLiteral("processing list"),
                     QStringLiteral("claims set")};
    call.args = {QByteArray::number(olderThanMs), QByteArray::number(most), QByteArray(),
                 QByteArray::number(ScriptCall::ReplyCutBytes)};
    call.summary = QStringLiteral("Requeue up to %1 jobs of \"%2\" claimed more than %3 ms ago.")
                       .arg(most)
                       .arg(printableBytes(o.key))
                       .arg(olderThanMs);
    return call;
}

} // namespace gatehouse
