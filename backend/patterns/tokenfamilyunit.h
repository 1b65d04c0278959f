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

    // A fresh token: 24 bytes from the system CSPRNG, base64url (32 characters).
    static QByteArray newToken();
    // SET <prefix><token> value NX EX ttl; reports a collision instead of overwriting.
    static ScriptCall issue(const PatternObject &family, const QByteArray &token,
                            const QByteArray &value, qint64 ttlSeconds);
    static ScriptCall revoke(const QByteArray &tokenKey);
};

} // namespace gatehouse
