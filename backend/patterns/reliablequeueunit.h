// SPDX-License-Identifier: MIT
#pragma once

#include "patternunit.h"

namespace gatehouse {

// Seed 004's reliable queue: producers LPUSH to a LIST, workers move the next
// job (right end) into a processing LIST with LMOVE/RPOPLPUSH and LREM it
// when done. Gatehouse's claim script also scores each claim in a claims
// ZSET, which gives stuck jobs a real age; without one, ages count from the
// first time Gatehouse saw the job (ProbeContext::firstSeenMs).
//
// Reads LLENs, one page of the oldest claims and one page of the oldest
// processing items (the right end): bounded however long the lists are.
class ReliableQueueUnit final : public PatternUnit
{
public:
    PatternKind kind() const override { return PatternKind::ReliableQueue; }
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    static QByteArray processingKey(const PatternObject &o) { return o.relatedKey(0); }
    static QByteArray claimsKey(const PatternObject &o);
    static QByteArray deadKey(const PatternObject &o);

    static ScriptCall requeue(const PatternObject &object, const QByteArray &job);
    static ScriptCall deadLetter(const PatternObject &object, const QByteArray &job);
    // Needs a claims set; invalid otherwise (then requeue the stuck items one by one).
    static ScriptCall requeueStuck(const PatternObject &object, qint64 olderThanMs, int most);
};

} // namespace gatehouse
