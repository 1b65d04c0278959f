// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/limiters.h>

namespace gatehouse {

// The Redis storage of Python's `limits` (2.x; Flask-Limiter and SlowAPI use
// it), as limits/storage/redis.py and limits/strategies.py write it. A key is
// `LIMITER/<identifiers...>/<amount>/<multiples>/<granularity>`
// (RateLimitItem.key_for): the limit and the window are in the name.
// - fixed window (and fixed window with elastic expiry): a STRING counter,
//   INCRBY then EXPIRE (seconds) on the first hit (on every hit when elastic);
//   reset = its TTL;
// - moving window: a LIST of hit times (epoch seconds, float), newest first,
//   LPUSH then LTRIM to the limit and EXPIRE the window (acquire_moving_window.lua);
//   in the window = the leading entries newer than now - window
//   (moving_window.lua), reset = the oldest of them + window.
// Reads TYPE, PTTL, GET and LRANGE of at most the limit (1000 at most): bounded.
// A `LIMITER/` key whose name does not end in amount/multiples/granularity, or
// whose value is not the library's, is shown read-only (layoutKnown false).
//
// Object: key = the counter or list. Profile rule: "match" (the limit and
// window come from the name).
class PythonLimitsUnit final : public LimiterUnit
{
public:
    static constexpr PatternKind Kind{"python-limits"};

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("Python limits limiter"); }
    QByteArray keyType() const override { return "string"; } // or a list: identifies()
    LibraryInfo library() const override
    {
        return {QStringLiteral("python-limits"), QStringLiteral("2")};
    }
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 40; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QList<PatternAction> actions() const override;
    ScriptCall reset(const PatternObject &object) const override { return resetCall(object, {}); }

    // The reset of key, checked to still be of type shownType ("string",
    // "list"; empty: either).
    static ScriptCall resetCall(const PatternObject &object, const QByteArray &shownType);

    // What a key's name says: the limit and the window (ms); nullopt when the
    // name is not RateLimitItem.key_for's.
    struct KeyName
    {
        qint64 limit = 0;
        qint64 windowMs = 0;
        QByteArray granularity; // "second", "minute", ...
    };
    static std::optional<KeyName> parseKey(const QByteArray &key);
    static bool inNamespace(const QByteArray &key) { return key.startsWith("LIMITER/"); }
};

} // namespace gatehouse
