// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/sliding-window/slidingwindowunit.h>

namespace gatehouse {

// Seed 003's resource/consumer windows: a sliding window per resource and one
// per consumer of it ("<resource><marker><consumer>"), scores in s. Read as a
// sliding window; a consumer's object names its resource as parent and has
// the consumers' limit.
class ResourceConsumerUnit final : public SlidingWindowUnit
{
public:
    static constexpr PatternKind Kind{"resource-consumer"};

    ResourceConsumerUnit()
        : SlidingWindowUnit(Kind)
    {}
    QString title() const override { return QStringLiteral("resource/consumer limiter"); }
    // Autodetection (PatternUnit): its evidence and grouping.
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;
    int groupOrder() const override { return 50; } // before sliding windows: takes resources
    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const override;
};

} // namespace gatehouse
