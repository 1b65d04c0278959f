// SPDX-License-Identifier: MIT
#include "legacylockunit.h"

#include <cmath>
#include <patterns/lock/lockunit.h>

namespace gatehouse {

qint64 LegacyLockUnit::expiryFromValue(const QByteArray &value)
{
    bool ok = false;
    const double v = value.trimmed().toDouble(&ok);
    if (!ok || !(v > 0) || v >= 9.0e18) // not a time (or past what qint64 holds)
        return -1;
    // Seconds since 1970 are about 1.7e9 today, ms about 1.7e12.
    if (v >= 1e11)
        return qint64(v);
    return qint64(v * 1000.0);
}

QList<PatternUnit::Command> LegacyLockUnit::probe(const PatternObject &o,
                                                  const ProbeContext &) const
{
    return {{"GETRANGE", o.key, "0", "63"}, {"PTTL", o.key}};
}

Reading LegacyLockUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                             const ProbeContext &c) const
{
    Reading reading = LockUnit::readValueAndTtl(o, r, c.nowMs);
    if (!reading.isOk())
        return reading;
    reading.expiresAtMs = expiryFromValue(reading.token);
    if (reading.expiresAtMs < 0) {
        reading.status = Reading::Status::WrongType;
        reading.message = QStringLiteral("Lock \"%1\" does not hold an expiry time (\"%2\").")
                              .arg(printableBytes(o.key), printableBytes(reading.token, 64));
    } else if (reading.expiresAtMs < c.nowMs) {
        reading.message = QStringLiteral("Expired %1 ms ago and still set: its holder probably "
                                         "crashed; the next client must break it with GETSET.")
                              .arg(saturatingSub(c.nowMs, reading.expiresAtMs));
    }
    return reading;
}

void LegacyLockUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                               QJsonObject &j) const
{
    LockUnit::writeJson(s, r, nowMs, j);
    j.insert(QStringLiteral("expiresAtMs"), double(r.expiresAtMs));
}

QString LegacyLockUnit::ttlText(const ObjectState &s, qint64 now) const
{
    const Reading &r = s.reading;
    if (r.expiresAtMs <= 0)
        return LockUnit::ttlText(s, now);
    const qint64 left = saturatingSub(r.expiresAtMs, now);
    return left < 0 ? QStringLiteral("expired %1 ago").arg(formatMs(-left)) : formatMs(left);
}

std::optional<KeyClaim> LegacyLockUnit::claimKey(const KeyShape &s, qint64 now) const
{
    // SETNX with an expiry timestamp as the value, on a key named like a lock.
    if (s.type != "string" || !isInteger(s.head) || !namedLikeLock(s.key))
        return std::nullopt;
    const qint64 expiry = expiryFromValue(s.head);
    if (expiry > 0 && std::fabs(double(expiry) - double(now)) < 24.0 * 3600 * 1000)
        return KeyClaim{QStringLiteral("expiry"), 30};
    return std::nullopt;
}

} // namespace gatehouse
