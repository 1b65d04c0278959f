// SPDX-License-Identifier: MIT
#include "patternunit.h"

#include "fixedwindowunit.h"
#include "legacylockunit.h"
#include "lockunit.h"
#include "redissonlimiterunit.h"
#include "reliablequeueunit.h"
#include "slidingwindowunit.h"
#include "tokenfamilyunit.h"

#include <cmath>

namespace gatehouse {

qint64 PatternUnit::validUntilMs(const PatternObject &, const Reading &from) const
{
    return from.atMs;
}

const PatternUnit &PatternUnit::of(PatternKind kind)
{
    static const SlidingWindowUnit s_sliding(PatternKind::SlidingWindow);
    static const SlidingWindowUnit s_resource(PatternKind::ResourceConsumer);
    static const FixedWindowUnit s_fixed;
    static const RedissonLimiterUnit s_redisson;
    static const LockUnit s_lock;
    static const LegacyLockUnit s_legacy;
    static const TokenFamilyUnit s_tokens;
    static const ReliableQueueUnit s_queue;
    switch (kind) {
    case PatternKind::SlidingWindow:
        return s_sliding;
    case PatternKind::ResourceConsumer:
        return s_resource;
    case PatternKind::FixedWindow:
        return s_fixed;
    case PatternKind::RedissonLimiter:
        return s_redisson;
    case PatternKind::Lock:
        return s_lock;
    case PatternKind::LegacyLock:
        return s_legacy;
    case PatternKind::TokenFamily:
        return s_tokens;
    case PatternKind::ReliableQueue:
        return s_queue;
    }
    Q_UNREACHABLE();
}

std::optional<Reading> PatternUnit::failure(const PatternObject &object,
                                            const QList<RedisValue> &replies,
                                            const QList<QByteArray> &replyKeys, qint64 nowMs)
{
    for (qsizetype i = 0; i < replies.size(); ++i) {
        const RedisValue &r = replies.at(i);
        if (!r.isError())
            continue;
        Reading reading;
        reading.atMs = nowMs;
        const QByteArray key = i < replyKeys.size() ? replyKeys.at(i) : object.key;
        if (r.errorCode() == "WRONGTYPE") {
            reading.status = Reading::Status::WrongType;
            reading.message = QStringLiteral("Key \"%1\" holds a different type than a %2 needs; "
                                             "check the profile's key pattern.")
                                  .arg(printableBytes(key), patternId(object.kind));
        } else {
            reading.status = Reading::Status::Error;
            reading.message = QStringLiteral("Reading \"%1\" failed: %2")
                                  .arg(printableBytes(key), r.errorMessage());
        }
        return reading;
    }
    if (replies.size() < replyKeys.size()) {
        Reading reading;
        reading.atMs = nowMs;
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("Reading \"%1\" got %2 replies for %3 commands.")
                              .arg(printableBytes(object.key))
                              .arg(replies.size())
                              .arg(replyKeys.size());
        return reading;
    }
    return std::nullopt;
}

QByteArray PatternUnit::after(qint64 tMs, qint64 unitMs)
{
    if (unitMs <= 1)
        return '(' + QByteArray::number(tMs);
    return '(' + QByteArray::number(double(tMs) / double(unitMs), 'f', 3);
}

QList<qint64> PatternUnit::scoresMs(const RedisValue &withScores, qint64 unitMs)
{
    QList<qint64> out;
    const auto &e = withScores.elements();
    out.reserve(e.size() / 2);
    for (qsizetype i = 1; i < e.size(); i += 2)
        out.append(qint64(std::llround(e.at(i).bytes().toDouble() * double(unitMs))));
    return out;
}

} // namespace gatehouse
