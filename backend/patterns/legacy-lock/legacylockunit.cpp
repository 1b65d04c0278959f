// SPDX-License-Identifier: MIT
#include "legacylockunit.h"
#include "legacylockdemo.h"
#include <patterns/lock/lockdata.h>
#include <patterns/objecthealth.h>

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
    LockData &lock = LockData::in(reading);
    lock.expiresAtMs = expiryFromValue(lock.token);
    if (lock.expiresAtMs < 0) {
        reading.status = Reading::Status::WrongType;
        reading.message = QStringLiteral("Lock \"%1\" does not hold an expiry time (\"%2\").")
                              .arg(printableBytes(o.key), printableBytes(lock.token, 64));
    } else if (lock.expiresAtMs < c.nowMs) {
        reading.message = QStringLiteral("Expired %1 ms ago and still set: its holder probably "
                                         "crashed; the next client must break it with GETSET.")
                              .arg(saturatingSub(c.nowMs, lock.expiresAtMs));
    }
    return reading;
}

void LegacyLockUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                               QJsonObject &j) const
{
    LockUnit::writeJson(s, r, nowMs, j);
    j.insert(QStringLiteral("expiresAtMs"), double(LockData::of(r).expiresAtMs));
}

QString LegacyLockUnit::ttlText(const ObjectState &s, qint64 now) const
{
    const Reading &r = s.reading;
    if (LockData::of(r).expiresAtMs <= 0)
        return LockUnit::ttlText(s, now);
    const qint64 left = saturatingSub(LockData::of(r).expiresAtMs, now);
    return left < 0 ? QStringLiteral("expired %1 ago").arg(formatMs(-left)) : formatMs(left);
}

namespace {

// The value's expiry has passed but the key is still there: SETNX locks
// never expire by themselves, so its holder crashed and the next client
// breaks it with GETSET. Never "ok". It has no holder token: the lock
// actions are not offered, and the console says why.
[[maybe_unused]] const bool s_judged = registerJudgement(
    LegacyLockUnit::Kind,
    {[](const ObjectState &s, qint64 nowMs) {
         const ObjectHealth h = defaultHealth(s, nowMs);
         const qint64 expiresAtMs = LockData::of(s.reading).expiresAtMs;
         if (h.id == states::Ok && expiresAtMs > 0 && expiresAtMs < nowMs)
             return ObjectHealth{states::ExpiredPresent,
                                 QStringLiteral("expired %1 ago: holder crashed, may be taken over")
                                     .arg(formatMs(saturatingSub(nowMs, expiresAtMs))),
                                 Severity::Warning};
         if (h.id == states::Missing)
             return ObjectHealth{states::Missing, QStringLiteral("free"), Severity::Muted};
         return h;
     },
     [] {
         return QList<StateInfo>{
             {states::Ok, Severity::Ok, QStringLiteral("Held; its expiry is still ahead.")},
             {states::ExpiredPresent, Severity::Warning,
              QStringLiteral("The expiry written in the value has passed: its holder crashed "
                             "and the next client may take it over.")},
             {states::Stale, Severity::Warning,
              QStringLiteral("The server has not answered: the last reading is shown.")},
             {states::Gone, Severity::Muted, QStringLiteral("Released or broken.")},
             {states::Missing, Severity::Muted, QStringLiteral("Free: nobody holds it.")},
             {states::Error, Severity::Critical,
              QStringLiteral("The key has the wrong type or a probe failed.")},
         };
     },
     {},
     [](const QString &) {
         return QStringLiteral("A SETNX lock holds an expiry time, not a holder token: "
                               "Gatehouse cannot check who holds it, so it neither releases "
                               "nor extends it. Once expired, the next client may take it over.");
     }});

} // namespace

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

std::unique_ptr<DemoTraffic> LegacyLockUnit::demoTraffic(quint32 seed) const
{
    Q_UNUSED(seed) // the same every run
    return std::make_unique<LegacyLockDemo>();
}

} // namespace gatehouse
