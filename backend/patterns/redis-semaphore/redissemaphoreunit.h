// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// npm redis-semaphore 5 (swarthy/redis-semaphore): Semaphore and
// MultiSemaphore keep their holders in one ZSET `semaphore:<key>`
// (RedisSemaphore.js): member = the holder's identifier (a random UUID,
// with `-<identifierSuffix>` when given), score = its acquire or last refresh
// time (the client's Date.now(), ms); a MultiSemaphore holder of N permits
// is N members `<identifier>_0` .. `<identifier>_<N-1>` of one score
// (multiSemaphore/acquire/lua.js). Every acquire and refresh PEXPIREs the key
// to the lock timeout (default 10 s); refreshes come every 0.8 x timeout.
// Holders older than the timeout are stale (their process stopped
// refreshing) and are pruned by the next acquire or refresh of any holder
// (zremrangebyscore in both scripts).
// The limit is an argument of each acquire, not stored: the profile's.
// The timeout is the profile's, or else PTTL + the newest holder's age (the
// key's TTL was set to it by that holder's acquire or refresh).
// `mutex:<key>` (RedisMutex: SET identifier NX PX) is a plain lock, read by
// the lock pattern.
//
// Reads ZCARD, PTTL, one page of the oldest members and the newest one:
// bounded. Items: the holders of the page, one per identifier
// (InFlightItem::job = identifier, attempts = a MultiSemaphore holder's
// permits, 0 for a Semaphore holder, locked = not stale).
// Action: release one holder (all its permits), only if it still holds them
// with the acquire time shown (redis_semaphore_release.lua).
//
// Object: key = the ZSET. Profile rule: "match", "limit", "timeout" (ms).
class RedisSemaphoreUnit final : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"redis-semaphore"};

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("redis-semaphore semaphore"); }
    QByteArray keyType() const override { return "zset"; }
    LibraryInfo library() const override
    {
        return {QStringLiteral("redis-semaphore"), QStringLiteral("5")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;
    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;

    // Whether member is one redis-semaphore writes: a UUID, optionally
    // followed by "-<suffix>" and, for a MultiSemaphore, "_<permit>".
    static bool isIdentifier(const QByteArray &member);
    static bool inNamespace(const QByteArray &key) { return key.startsWith("semaphore:"); }
};

} // namespace gatehouse
