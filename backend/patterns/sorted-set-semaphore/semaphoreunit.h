// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// A counting semaphore kept as a sorted set of holders: member = holder id,
// score = acquire time in ms (server time); holders older than the timeout
// are expired and trimmed by score before counting (lua/sorted-set-semaphore/
// semaphore_acquire.lua is the reference client); the limit is the profile's.
//
// Reads the live holders (ZCOUNT above now - timeout), every member stored
// (ZCARD: expired ones not yet trimmed included), the oldest live holder and
// one page of the oldest holders: bounded however many hold it.
// Live figures: holders vs limit, the oldest holder's age, expired holders
// still present. Action: release one holder, only if it still holds the slot
// with the acquire time shown (semaphore_release.lua).
//
// Object: key = the semaphore ZSET. Profile rule: "match", "limit",
// "timeout" (ms; 0 or absent: holders never expire).
class SemaphoreUnit final : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"sorted-set-semaphore"};

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("sorted-set semaphore"); }
    QByteArray keyType() const override { return "zset"; }
    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    // Nearly or fully taken: holders >= 80 % of the limit.
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    QList<PatternAction> actions() const override;
    // Autodetection (PatternUnit): its evidence and grouping.
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<QByteArray> wordsFor() const override;
    std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const override;

    // Removes holder only if it still holds the slot acquired at scoreMs.
    static ScriptCall release(const PatternObject &object, const QByteArray &holder,
                              qint64 scoreMs);
    // The acquire time of a holder in a reading (its score, in ms).
    static qint64 acquiredAtMs(const Reading &reading, const InFlightItem &holder)
    {
        return saturatingSub(reading.atMs, holder.ageMs);
    }
};

} // namespace gatehouse
