// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// One-time tokens, read as a family: every "<prefix><random>" key the
// discovery found. One PTTL per member (plus the use counter, for seed 002's
// hashes) gives the live count, the TTL range and the leaks (no TTL).
// Object: key = the family prefix (e.g. "code:"); members = token keys.
class TokenFamilyUnit final : public PatternUnit
{
public:
    // A family larger than this is read in a sample of its members per probe.
    static constexpr int MaxMembersPerProbe = 5000;

    static constexpr PatternKind Kind{"token-family"};

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("token family"); }
    QByteArray keyType() const override { return {}; }
    QString keyField() const override { return QStringLiteral("prefix"); }
    // Autodetection (PatternUnit): its evidence and grouping.
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    // A counted token's use counter, under its default name.
    QList<QByteArray> shapeHashFields() const override { return {PatternParams().countField}; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<QByteArray> wordsFor() const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;
    QList<Evidence> familyEvidence(const PatternObject &object,
                                   const ClaimPool &pool) const override;
    ProfileRule suggestRule(const PatternObject &object) const override;
    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    void observeBehaviour(BehaviourTrack &track, const PatternObject &object, const Reading &before,
                          const Reading &after, const QList<RedisValue> &replies) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    bool merge(PatternObject &current, const PatternObject &found) const override;
    std::optional<PatternObject> afterRead(const PatternObject &probed,
                                           const PatternObject &current,
                                           const QList<RedisValue> &replies) const override;
    // A busy family sees tens of new tokens a second: read by the tick.
    bool rereadOnEvent() const override { return false; }
    QList<Figure> figures() const override;
    QList<Column> columns() const override;
    // The token section's columns (family, live, TTL range, no TTL, status),
    // shared by every unit listed under Tokens.
    static QList<Column> tokenColumns();
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QList<PatternAction> actions() const override;

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

    std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const override;

private:
    // Whether a family prefix's words name a token ("otp", "code", ...).
    bool prefixNamedLikeToken(const QByteArray &prefix) const;
};

} // namespace gatehouse
