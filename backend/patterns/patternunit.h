// SPDX-License-Identifier: MIT
#pragma once

#include "patternobject.h"
#include "reading.h"
#include "scriptcall.h"

#include <redis/redisvalue.h>

#include <functional>

namespace gatehouse {

// What a probe needs besides the object: the server's time (never the
// desktop's), whether the object is shown in detail (the window strip, the
// in-flight items), and for queues without a claims set, when Gatehouse first
// saw an item in the processing list.
struct ProbeContext
{
    qint64 nowMs = 0;
    bool detail = false;
    std::function<qint64(const QByteArray &job)> firstSeenMs; // -1 when never seen
};

// One pattern's knowledge: which bounded commands read one instance cheaply
// (they are pipelined with every other object's), and how their replies
// become a Reading. Stateless; one instance per kind.
class PatternUnit
{
public:
    using Command = QList<QByteArray>;

    virtual ~PatternUnit() = default;
    virtual PatternKind kind() const = 0;

    // Only bounded commands: counts, single members, pages of pageSize.
    virtual QList<Command> probe(const PatternObject &object,
                                 const ProbeContext &context) const = 0;
    // replies answer probe(object, context), in order.
    virtual Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                         const ProbeContext &context) const = 0;

    // Until when (server time) reading.at(t) is exact, if no write touches
    // the object's keys (keyspace events tell): TTLs count down and ages grow,
    // but an entry leaving a window, a job turning stuck or a key expiring
    // changes what only Redis knows. Reading::Forever when nothing but a write
    // can change it; reading.atMs to be read every tick (the default, for
    // patterns not modelled).
    virtual qint64 validUntilMs(const PatternObject &object, const Reading &reading) const;

    static const PatternUnit &of(PatternKind kind);

protected:
    // A Reading for the first failed reply, if any: WRONGTYPE becomes
    // WrongType naming the key, anything else Error.
    static std::optional<Reading> failure(const PatternObject &object,
                                          const QList<RedisValue> &replies,
                                          const QList<QByteArray> &replyKeys, qint64 nowMs);
    static QByteArray number(qint64 v) { return QByteArray::number(v); }
    // Score bound for "newer than t" in the object's score unit: "(t".
    static QByteArray after(qint64 tMs, qint64 unitMs);
    // Scores of a WITHSCORES reply, converted to ms.
    static QList<qint64> scoresMs(const RedisValue &withScores, qint64 unitMs);
};

} // namespace gatehouse
