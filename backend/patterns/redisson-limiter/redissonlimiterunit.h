// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/limiters.h>

namespace gatehouse {

// Redisson's RRateLimiter (seed 001), read-only: a HASH with rate, interval
// (ms) and type, "{name}:value" holding the permits left, and
// "{name}:permits", a ZSET of grants scored by time whose members are
// struct.pack('Bc0I', #random, random, permits) (older Redisson:
// 'fI', random, permits). Permits used = the sum over grants in
// the last interval; the next permit frees when the oldest grant leaves it.
//
// Object: key = config HASH; related = {value STRING, permits ZSET}.
class RedissonLimiterUnit final : public LimiterUnit
{
public:
    static constexpr PatternKind Kind{"redisson-limiter"};

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("Redisson rate limiter"); }
    QByteArray keyType() const override { return "hash"; }
    // Autodetection (PatternUnit): its evidence and grouping.
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    // The config hash's fields.
    QList<QByteArray> shapeHashFields() const override { return {"rate", "interval", "type"}; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    // Refused (read-only in Gatehouse), and not forceable.
    ScriptCall reset(const PatternObject &object) const override;

    // The permits in one grant member; 1 when the layout is neither of
    // Redisson's ('Bc0I' or 'fI').
    static qint64 permitsInGrant(const QByteArray &member);
    // name's key for suffix as Redisson names it: "{name}:<suffix>", or
    // "name:<suffix>" when name has a hash tag already.
    static QByteArray suffixed(const QByteArray &name, const char *suffix);
    static QByteArray valueKey(const QByteArray &name) { return suffixed(name, "value"); }
    static QByteArray permitsKey(const QByteArray &name) { return suffixed(name, "permits"); }
    std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const override;
};

} // namespace gatehouse
