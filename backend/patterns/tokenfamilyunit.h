// SPDX-License-Identifier: MIT
#pragma once

#include "patternunit.h"

namespace gatehouse {

// One-time tokens, read as a family: every "<prefix><random>" key the
// discovery found. One PTTL per member (plus the use counter, for seed 002's
// hashes) gives the live count, the TTL range and the leaks (no TTL).
class TokenFamilyUnit final : public PatternUnit
{
public:
    // A family larger than this is read in a sample of its members per probe.
    static constexpr int MaxMembersPerProbe = 5000;

    PatternKind kind() const override { return PatternKind::TokenFamily; }
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    // The members whose probe replies say they still exist (for pruning).
    static QList<QByteArray> liveMembers(const PatternObject &object,
                                         const QList<RedisValue> &replies);

    // token issue: the longest time to live (366 days), and the longest family
    // prefix and payload accepted.
    static constexpr qint64 MaxTtlSeconds = qint64(366) * 24 * 3600;
    static constexpr int MaxFamilyBytes = 200;
    static constexpr int MaxPayloadBytes = 1024 * 1024;
    // The bytes a family prefix may end with: a token key is the prefix, then
    // the random part, so the prefix must end where the random part starts.
    static constexpr char FamilySeparators[] = ":./-_#|";

    // Why a family prefix cannot be issued into (empty when it can): 1 to
    // MaxFamilyBytes printable bytes without spaces or glob characters, ending
    // with one of FamilySeparators ("code:", "otp.", "reset-").
    static QString familyProblem(const QByteArray &prefix);
    // Why a payload is not accepted (empty when it is): any JSON value
    // (object, array, string, number, true, false, null) up to MaxPayloadBytes.
    static QString payloadProblem(const QByteArray &json);
    // Why a time to live is not accepted (empty when it is).
    static QString ttlProblem(qint64 ttlSeconds);

    // A fresh token: 24 bytes from the system CSPRNG, base64url (32 characters).
    static QByteArray newToken();
    // SET <prefix><token> value NX EX ttl; reports a collision instead of overwriting.
    static ScriptCall issue(const PatternObject &family, const QByteArray &token,
                            const QByteArray &value, qint64 ttlSeconds);
    // Deletes a token (STRING or HASH). families: the prefixes the console
    // knows; a key in none of them is refused unless forced (with no known
    // family, a key whose last segment looks generated is accepted).
    static ScriptCall revoke(const QByteArray &tokenKey, const QList<QByteArray> &families);
};

} // namespace gatehouse
