// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// A lock taken with SET key token NX PX ttl. Reads the token (bounded) and
// PTTL. Release, force-release and extend compare the token first, so an
// operator never deletes a lock that expired and was taken by someone else.
// Object: key = lock STRING.
class LockUnit : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"lock"};
    static constexpr int MaxTokenBytes = 512;
    // lock extend: the longest time to live an operator may give (7 days).
    static constexpr qint64 MaxExtendMs = qint64(7) * 24 * 3600 * 1000;

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QByteArray keyType() const override { return "string"; }
    bool actsOnlyOnClaimedKeys() const override { return true; }
    // Autodetection (PatternUnit): its evidence and grouping. A key is a
    // lock's by a random token that expires ("holder-token"), or by a lock's
    // word in its name, a TTL of at most MaxNamedTtlMs and any value a holder
    // writes (NamedHolder: holderShape()); then the name and the family's
    // values weigh as much as the value's shape.
    static constexpr const char *NamedHolder = "named-holder";
    static constexpr qint64 MaxNamedTtlMs = qint64(24) * 3600 * 1000;
    // What a value (a key's first 64 bytes) is as a holder's token: "a UUID",
    // "an integer", "JSON", "a process identity (host:pid)", "a random
    // token", "a short token"; empty when no holder writes it (text, markup).
    static QString holderShape(const QByteArray &head);
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    // Also notes, on each named-holder instance (Evidence::Family), whether
    // its family's values differ between holders: familyEvidence() adds it.
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<QByteArray> wordsFor() const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;
    QList<Evidence> familyEvidence(const PatternObject &object,
                                   const ClaimPool &pool) const override;
    void observeBehaviour(BehaviourTrack &track, const PatternObject &object, const Reading &before,
                          const Reading &after, const QList<RedisValue> &replies) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    // Held-for: since the first reading with the current token (unknown for a
    // lock already held when Gatehouse first read it).
    void track(TrackState &state, const Reading &reading, qint64 nowMs) const override;
    QList<Figure> figures() const override;
    QList<AlertFigure> alertFigures() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QList<PatternAction> actions() const override;
    // Held for RoutineHoldMs or longer (since the holder took it, or at least
    // since Gatehouse first saw it), or a legacy lock past its expiry.
    static constexpr qint64 RoutineHoldMs = 10000;
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> shownInputs(const ObjectState &state) const override;
    QByteArray holderToken(const ObjectState &state) const override;

    // The read shared with LegacyLockUnit: replies {GETRANGE, PTTL} give the
    // value and PTTL, or a reading that is already final (failed, free).
    static Reading readValueAndTtl(const PatternObject &object, const QList<RedisValue> &replies,
                                   qint64 nowMs);

    // Deletes the lock only if it still holds shownToken.
    static ScriptCall forceRelease(const PatternObject &object, const QByteArray &shownToken);
    static ScriptCall extend(const PatternObject &object, const QByteArray &shownToken,
                             qint64 ttlMs);

    std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const override;

protected:
    // The TTL column's text (the legacy lock's comes from its value).
    virtual QString ttlText(const ObjectState &state, qint64 nowMs) const;
};

} // namespace gatehouse
