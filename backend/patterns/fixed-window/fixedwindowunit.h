// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/limiters.h>

namespace gatehouse {

// Seed 002's fixed-window counter: a STRING incremented per request, with a
// PEXPIRE set on the first hit. GET + PTTL. Object: key = counter STRING.
class FixedWindowUnit final : public LimiterUnit
{
public:
    static constexpr PatternKind Kind{"fixed-window"};

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("fixed-window counter"); }
    QByteArray keyType() const override { return "string"; }
    bool actsOnlyOnClaimedKeys() const override { return true; }
    // Autodetection (PatternUnit): its evidence and grouping.
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;
    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    void observeBehaviour(BehaviourTrack &track, const PatternObject &object, const Reading &before,
                          const Reading &after, const QList<RedisValue> &replies) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    ScriptCall reset(const PatternObject &object) const override { return resetCounter(object); }

    static ScriptCall resetCounter(const PatternObject &object);
    std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const override;
};

} // namespace gatehouse
