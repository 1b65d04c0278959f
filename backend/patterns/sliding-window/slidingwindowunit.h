// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/limiters.h>

namespace gatehouse {

// Seed 000's sliding window (ZSET of request times in ms, plus a ZSET of
// future retry slots whose last score is the Retry-After horizon). Reads counts
// with ZCOUNT/ZCARD and single members; the window strip (detail) is one
// bounded page of the newest entries. Seed 003's resource/consumer windows
// have the same shape (ResourceConsumerUnit).
//
// Object: key = window ZSET; related = {retry ZSET or empty}.
class SlidingWindowUnit : public LimiterUnit
{
public:
    static constexpr PatternKind Kind{"sliding-window"};

    SlidingWindowUnit()
        : m_kind(Kind)
    {}
    PatternKind kind() const override { return m_kind; }
    QString title() const override { return QStringLiteral("sliding-window limiter"); }
    QByteArray keyType() const override { return "zset"; }
    // Autodetection (PatternUnit): its evidence and grouping.
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;
    ProfileRule suggestRule(const PatternObject &object) const override;
    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    void observeBehaviour(BehaviourTrack &track, const PatternObject &object, const Reading &before,
                          const Reading &after, const QList<RedisValue> &replies) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    QList<PatternAction> actions() const override;
    ScriptCall reset(const PatternObject &object) const override { return resetWindow(object); }

    static ScriptCall resetWindow(const PatternObject &object);
    static ScriptCall clearRetrySlots(const PatternObject &object);

    std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const override;

protected:
    explicit SlidingWindowUnit(PatternKind kind)
        : m_kind(kind)
    {}

private:
    PatternKind m_kind;
};

} // namespace gatehouse
