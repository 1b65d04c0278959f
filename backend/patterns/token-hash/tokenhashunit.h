// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// One-time tokens kept as the fields of one hash, each field with its own TTL
// (HPEXPIRE / HSETEX, Redis 7.4+): "otp:pending" holding a field per code.
// One object per hash: its live fields, the soonest and latest expiry and the
// fields without a TTL, read in a bounded sample (HRANDFIELD, then HPTTL on
// the sample; never HGETALL). Discovery reads per-field TTLs only on servers
// that have them (ServerIdentity::Capability::HashFieldExpiry).
// Object: key = the hash. Reading: count (live fields, extrapolated from the
// sample), withoutTtl, minTtlMs / maxTtlMs (over the sample), fields (HLEN),
// sampledFields (TokenData).
class TokenHashUnit final : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"token-hash"};
    // The most fields one reading samples.
    static constexpr int SampledFields = 100;
    static constexpr int MaxFieldBytes = 512;

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("token hash (per-field expiry)"); }
    QByteArray keyType() const override { return "hash"; }
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<QByteArray> wordsFor() const override;
    QList<QByteArray> wordsAgainst() const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    QList<Figure> figures() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QList<PatternAction> actions() const override;

    // Sampled fields with a TTL (HPTTL > 0) of a hash's shape; the claim needs one.
    static int expiringFields(const KeyShape &shape);

    // A field issued into hash, living ttlMs: HSETEX FNX on servers with it,
    // else HSET + HPEXPIRE in one script; an invalid call (refusal says why)
    // on servers without per-field expiry. Never overwrites a field.
    static ScriptCall issue(const QByteArray &hash, const QByteArray &field,
                            const QByteArray &value, qint64 ttlMs, const ServerIdentity &server);
    // HDEL of one field, the key checked to be a hash first.
    static ScriptCall revoke(const QByteArray &hash, const QByteArray &field);
    // Why a field name is not accepted (empty when it is).
    static QString fieldProblem(const QByteArray &field);
};

} // namespace gatehouse
