// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/lock/lockunit.h>

namespace gatehouse {

// Seed 004's SETNX/GETSET lock, read-only: the value is the Unix time at
// which the lock stops being valid (s, or ms when it is that large), usually
// with no TTL. An expiry in the past means its holder likely crashed and the
// next client must break it with GETSET. Object: key = lock STRING.
class LegacyLockUnit final : public LockUnit
{
public:
    static constexpr PatternKind Kind{"legacy-lock"};

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("SETNX lock"); }
    // Autodetection (PatternUnit): its evidence (grouped as a lock's: one key each).
    // No behaviour notes: a SETNX lock is taken over by GETSET, in place.
    void observeBehaviour(BehaviourTrack &, const PatternObject &, const Reading &, const Reading &,
                          const QList<RedisValue> &) const override
    {}
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override
    {
        return PatternUnit::validUntilMs(object, reading);
    }
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QList<PatternAction> actions() const override { return {}; }

    // The expiry in ms since the epoch written in a value, or -1.
    static qint64 expiryFromValue(const QByteArray &value);

    std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const override;

protected:
    QString ttlText(const ObjectState &state, qint64 nowMs) const override;
};

} // namespace gatehouse
