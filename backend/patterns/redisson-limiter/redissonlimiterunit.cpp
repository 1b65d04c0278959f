// SPDX-License-Identifier: MIT
#include "redissonlimiterunit.h"

#include <patterns/limiterdata.h>
#include <patterns/limiterdemo.h>
#include <patterns/objecthealth.h>

#include <patterns/globmatch.h>
#include <patterns/sliding-window/slidingwindowunit.h>

#include <QtEndian>

#include <algorithm>

namespace gatehouse {

namespace {
// The interval the probe uses before the hash has been read: the profile's.
qint64 intervalOf(const PatternObject &o)
{
    return o.params.windowMs > 0 ? o.params.windowMs : 0;
}
} // namespace

qint64 RedissonLimiterUnit::permitsInGrant(const QByteArray &member)
{
    // Lua's struct.pack on x86-64: little endian, no padding, a 4-byte
    // unsigned last. Redisson now packs 'Bc0I' (a length byte, that many
    // random bytes, 16 from Redisson, then the permits); the seed's older
    // Redisson packed 'fI' (a 4-byte float, then the permits).
    const qsizetype n = member.size();
    const bool lengthFirst = n >= 5 && quint8(member.at(0)) == n - 5;
    if (!lengthFirst && n != 8)
        return 1;
    return qFromLittleEndian<quint32>(member.constData() + n - 4);
}

QByteArray RedissonLimiterUnit::suffixed(const QByteArray &name, const char *suffix)
{
    // RedissonObject.suffixName: a name with a hash tag keeps it.
    if (name.contains('{'))
        return name + ':' + suffix;
    return '{' + name + "}:" + suffix;
}

QList<PatternUnit::Command> RedissonLimiterUnit::probe(const PatternObject &o,
                                                       const ProbeContext &c) const
{
    const qint64 interval = intervalOf(o);
    const QByteArray lo = interval > 0 ? '(' + number(c.nowMs - interval) : QByteArray("-inf");
    const QByteArray permits = o.relatedKey(1);
    return {
        {"HMGET", o.key, "rate", "interval", "type"},
        {"GETRANGE", o.relatedKey(0), "0", "31"},
        {"ZCOUNT", permits, lo, "+inf"},
        {"ZRANGEBYSCORE", permits, lo, "+inf", "WITHSCORES", "LIMIT", "0",
         number(std::max(1, o.params.pageSize))},
    };
}

Reading RedissonLimiterUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                                  const ProbeContext &c) const
{
    if (auto f = failure(o, r, {o.key, o.relatedKey(0), o.relatedKey(1), o.relatedKey(1)}, c.nowMs))
        return *f;
    Reading reading;
    LimiterData &lim = LimiterData::in(reading);
    reading.atMs = c.nowMs;
    const RedisValue &config = r.at(0);
    bool rateOk = false;
    bool intervalOk = false;
    const qint64 rate = config.size() == 3 ? config.at(0).toInteger(&rateOk) : 0;
    const qint64 interval = config.size() == 3 ? config.at(1).toInteger(&intervalOk) : 0;
    if (!rateOk || !intervalOk) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Redisson limiter \"%1\" is not initialised (no rate "
                                         "or interval in its hash).")
                              .arg(printableBytes(o.key));
        return reading;
    }
    reading.limit = rate;
    lim.windowMs = interval;
    const qint64 grants = r.at(2).toInteger();
    const auto &page = r.at(3).elements();
    qint64 permits = 0;
    qint64 oldest = -1;
    for (qsizetype i = 0; i + 1 < page.size(); i += 2) {
        permits += permitsInGrant(page.at(i).bytes());
        const qint64 t = page.at(i + 1).bytes().toLongLong();
        if (oldest < 0 || t < oldest)
            oldest = t;
    }
    const qint64 pageGrants = page.size() / 2;
    if (grants > pageGrants) // beyond the page, count one permit per grant
        permits = saturatingAdd(permits, grants - pageGrants);
    reading.inWindow = permits;
    lim.stored = grants;
    if (oldest >= 0) {
        lim.oldestAgeMs = std::max<qint64>(0, saturatingSub(c.nowMs, oldest));
        if (permits >= rate)
            lim.retryHorizonMs
                = std::max<qint64>(0, saturatingSub(saturatingAdd(oldest, interval), c.nowMs));
    }
    if (config.at(2).bytes() == "1")
        reading.message = QStringLiteral("PER_CLIENT limiter: figures are for the shared "
                                         "value/permits keys only.");
    if (o.params.windowMs > 0 && o.params.windowMs != interval)
        reading.message = QStringLiteral("The interval changed to %1 ms; the next reading uses it.")
                              .arg(interval);
    return reading;
}

QList<QByteArray> RedissonLimiterUnit::scanGlobs(const ProfileRule &rule) const
{
    // The value and permits keys are the name's, suffixed (suffixed()).
    return {rule.match, suffixed(rule.match, "*")};
}

std::optional<PatternObject> RedissonLimiterUnit::objectFor(const ProfileRule &rule,
                                                            const QByteArray &key) const
{
    std::optional<PatternObject> o = PatternUnit::objectFor(rule, key);
    if (o)
        o->related = {valueKey(key), permitsKey(key)};
    return o;
}

PatternObject RedissonLimiterUnit::conventionalObject(const QByteArray &key) const
{
    PatternObject o = PatternUnit::conventionalObject(key);
    o.related = {valueKey(key), permitsKey(key)};
    return o;
}

ScriptCall RedissonLimiterUnit::reset(const PatternObject &o) const
{
    ScriptCall call = SlidingWindowUnit::resetWindow(o);
    call.forceable = false;
    call.forceArg = -1;
    call.refusal = QStringLiteral("Redisson limiters are read-only in Gatehouse: reset it "
                                  "with Redisson's RRateLimiter.delete().");
    return call;
}

namespace {

// Reset is offered (the CLI names it and reports the refusal) but the
// console disables it: the script always refuses a Redisson limiter.
[[maybe_unused]] const bool s_judged
    = registerJudgement(RedissonLimiterUnit::Kind,
                        {{},
                         {},
                         [](const QString &actionId, const ObjectState &) {
                             return actionId == QLatin1String("limiter.reset") ? QStringLiteral(
                                        "Redisson limiters are read-only in Gatehouse: reset it "
                                        "with Redisson's RRateLimiter.delete().")
                                                                               : QString();
                         },
                         {}});

} // namespace

std::optional<KeyClaim> RedissonLimiterUnit::claimKey(const KeyShape &s, qint64) const
{
    // Redisson's layout: the config hash, "{name}:value" and "{name}:permits".
    if (s.type == "hash" && s.hasHashField("rate") && s.hasHashField("interval")
        && s.hasHashField("type"))
        return KeyClaim{QStringLiteral("config"), 90};
    if (s.type == "zset" && s.key.endsWith("}:permits"))
        return KeyClaim{QStringLiteral("permits"), 90};
    if (s.type == "string" && s.key.endsWith("}:value"))
        return KeyClaim{QStringLiteral("value"), 90};
    return std::nullopt;
}

QList<PatternObject> RedissonLimiterUnit::groupClaims(ClaimPool &pool) const
{
    QList<PatternObject> out;
    for (const QByteArray &key : pool.won(Kind)) {
        if (pool.roleOf(key, Kind) != QLatin1String("config"))
            continue;
        const KeyShape &s = pool.find(key)->shape;
        PatternObject o;
        o.kind = Kind;
        o.key = key;
        o.source = QStringLiteral("autodetected");
        o.related = {valueKey(key), permitsKey(key)};
        o.params.windowMs = std::max<qint64>(0, s.hashFieldInteger("interval"));
        const qint64 rate = s.hashFieldInteger("rate");
        o.params.limit = rate >= 0 ? std::optional<qint64>(rate) : std::nullopt;
        for (const QByteArray &k : o.keys())
            pool.take(k);
        out.append(o);
    }
    return out;
}

std::unique_ptr<DemoTraffic> RedissonLimiterUnit::demoTraffic(quint32 seed) const
{
    // One per scale ("<prefix>redisson:0" with "{<prefix>redisson:0}:value"
    // and ":permits"), a client taking a permit 0.8 times a second from 10
    // per 20 s with sim_redisson_acquire.lua (Redisson's acquire, its layout).
    LimiterDemo::Limiters limiters;
    limiters.rates = {0.8};
    limiters.key = [](const DemoDriver &d, int i) -> QByteArray {
        return d.prefix() + "redisson:" + QByteArray::number(i);
    };
    limiters.request = [](DemoDriver &d, const QByteArray &name, QRandomGenerator &rng) {
        d.send(QStringLiteral("sim_redisson_acquire"),
               {name, '{' + name + "}:value", '{' + name + "}:permits"},
               {"10", "20000", "1", QByteArray::number(rng.generateDouble(), 'f', 6)});
    };
    return std::make_unique<LimiterDemo>(seed, std::move(limiters));
}

} // namespace gatehouse
