// SPDX-License-Identifier: MIT
#include "fixedwindowunit.h"

#include <patterns/limiterdata.h>
#include <patterns/limiterdemo.h>

namespace gatehouse {

QList<PatternUnit::Command> FixedWindowUnit::probe(const PatternObject &o,
                                                   const ProbeContext &) const
{
    // GETRANGE, not GET: a key misclassified as a counter may be large.
    return {{"GETRANGE", o.key, "0", "31"}, {"PTTL", o.key}};
}

void FixedWindowUnit::observeBehaviour(BehaviourTrack &t, const PatternObject &,
                                       const Reading &before, const Reading &after,
                                       const QList<RedisValue> &) const
{
    const qint64 elapsed = after.atMs - before.atMs;
    // The earlier reading's window ended in between (its TTL ran out).
    const bool boundary = t.expiredSinceRead
                          || (before.isOk() && before.pttlMs > 0 && elapsed + 100 >= before.pttlMs);
    if (before.isOk() && after.status == Reading::Status::Missing) {
        t.deleted = boundary; // expired at its window's end
        return;
    }
    if (!after.isOk())
        return;
    const bool fresh = after.pttlMs > 0 && (!before.isOk() || after.pttlMs > before.pttlMs);
    if ((before.status == Reading::Status::Missing && t.deleted)
        || (before.isOk() && after.inWindow < before.inWindow && boundary && fresh)) {
        t.confirm(QStringLiteral("its count started again from %1 with a new TTL when its "
                                 "window ended")
                      .arg(after.inWindow));
    } else if (before.isOk() && after.inWindow < before.inWindow && !boundary
               && !t.deletedSinceRead) {
        t.argue(QStringLiteral("its count went down from %1 to %2 within its window (adjusted "
                               "in place)")
                    .arg(before.inWindow)
                    .arg(after.inWindow),
                t.eventsLive);
    }
    t.deleted = false;
}

Reading FixedWindowUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                              const ProbeContext &c) const
{
    if (auto f = failure(o, r, {o.key, o.key}, c.nowMs))
        return *f;
    Reading reading;
    LimiterData &lim = LimiterData::in(reading);
    reading.atMs = c.nowMs;
    reading.limit = o.params.limit;
    lim.windowMs = o.params.windowMs;
    reading.pttlMs = r.at(1).toInteger();
    if (reading.pttlMs == -2) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Idle: the counter does not exist (window over).");
        return reading;
    }
    bool ok = false;
    reading.inWindow = r.at(0).bytes().toLongLong(&ok);
    if (!ok) {
        reading.status = Reading::Status::WrongType;
        reading.message = QStringLiteral("Counter \"%1\" does not hold an integer (\"%2\").")
                              .arg(printableBytes(o.key), printableBytes(r.at(0).bytes(), 32));
        return reading;
    }
    lim.stored = reading.inWindow;
    lim.resetMs = reading.pttlMs;
    if (reading.pttlMs == -1)
        reading.message = QStringLiteral("The counter has no TTL: its window never resets.");
    if (reading.limit && reading.inWindow >= *reading.limit && reading.pttlMs > 0)
        lim.retryHorizonMs = reading.pttlMs;
    return reading;
}

qint64 FixedWindowUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    if (r.status == Reading::Status::Missing || (r.isOk() && r.pttlMs == -1))
        return Reading::Forever; // the next window's first request arrives as an event
    if (!r.isOk())
        return r.atMs;
    return saturatingAdd(r.atMs, r.pttlMs); // the window is over: Redis expires the counter
}

ScriptCall FixedWindowUnit::resetCounter(const PatternObject &o)
{
    ScriptCall call;
    call.action = QStringLiteral("limiter.reset");
    call.script = QStringLiteral("limiter_reset");
    call.keys = {o.key};
    call.keyRoles = {QStringLiteral("counter")};
    call.args = {QByteArray(), "1", "counter"}; // limiter_reset.lua: force, unit, shape
    call.forceable = true;
    call.forceArg = 0;
    call.summary = QStringLiteral("Delete counter \"%1\": its window starts again at zero.")
                       .arg(printableBytes(o.key));
    const QByteArray key = call.keys.value(0);
    call.meaning = [key](const RedisValue &reply) {
        return limiterKeysDeleted(key, reply);
    };
    return call;
}

bool FixedWindowUnit::parseRule(RuleReader &r, const QJsonObject &o, ProfileRule &rule) const
{
    return r.limitAndWindow(o, &rule.params);
}

void FixedWindowUnit::writeRule(const ProfileRule &r, QJsonObject &o) const
{
    writeLimitAndWindow(r.params, o);
}

void FixedWindowUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                                QJsonObject &j) const
{
    LimiterUnit::writeJson(s, r, nowMs, j);
    j.insert(QStringLiteral("resetMs"), double(LimiterData::of(r).resetMs));
}

std::optional<KeyClaim> FixedWindowUnit::claimKey(const KeyShape &s, qint64) const
{
    // A counter: an integer that expires (INCR then EXPIRE on first use).
    if (s.type == "string" && isInteger(s.head) && s.pttlMs > 0)
        return KeyClaim{QStringLiteral("counter"), 10};
    return std::nullopt;
}

QList<PatternObject> FixedWindowUnit::groupClaims(ClaimPool &pool) const
{
    return eachWonKey(pool, [](PatternObject &o, const KeyShape &s) {
        o.params.windowMs = guessWindowMs(s.pttlMs);
    });
}

QList<Evidence> FixedWindowUnit::structureEvidence(const PatternObject &o,
                                                   const ClaimPool &pool) const
{
    const ClaimPool::Entry *e = pool.find(o.key);
    if (!e)
        return {};
    const KeyShape &s = e->shape;
    QList<Evidence> out{{Evidence::Kind::Structure, 2,
                         QStringLiteral("an integer counter (%1) that expires in %2 s (INCR, "
                                        "then EXPIRE)")
                             .arg(QString::fromLatin1(s.head.left(20)))
                             .arg(double(s.pttlMs) / 1000.0, 0, 'f', 1)}};
    // A rate-limit window is seconds to an hour or so; a day or more is a
    // retention period (stats, caches of counts).
    constexpr qint64 dayMs = 24LL * 3600 * 1000;
    if (s.pttlMs > dayMs)
        out.append({Evidence::Kind::Structure, -2,
                    QStringLiteral("it lives %1 h: longer than a rate-limit window")
                        .arg(double(s.pttlMs) / 3600000.0, 0, 'f', 0)});
    return out;
}

std::unique_ptr<DemoTraffic> FixedWindowUnit::demoTraffic(quint32 seed) const
{
    // Two counters per scale ("<prefix>throttle:user:0") of 50 per 30 s, one
    // client at 1 request a second (below) and one at 2.5 (above).
    LimiterDemo::Limiters counters;
    counters.perScale = 2;
    counters.rates = {1.0, 2.5};
    counters.key = [](const DemoDriver &d, int i) -> QByteArray {
        return d.prefix() + "throttle:user:" + QByteArray::number(i);
    };
    counters.request = [](DemoDriver &d, const QByteArray &key, QRandomGenerator &) {
        d.send(QStringLiteral("fixed_window"), {key}, {"50", "30000"});
    };
    return std::make_unique<LimiterDemo>(seed, std::move(counters));
}

} // namespace gatehouse
