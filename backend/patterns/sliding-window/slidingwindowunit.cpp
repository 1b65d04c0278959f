// SPDX-License-Identifier: MIT
#include "slidingwindowunit.h"

#include <redis/hashslot.h>

#include <patterns/limiterdata.h>
#include <patterns/limiterdemo.h>

#include <patterns/globmatch.h>

#include <algorithm>

namespace gatehouse {

namespace {
QByteArray lowerBound(const PatternObject &o, qint64 nowMs)
{
    if (o.params.windowMs <= 0)
        return "-inf";
    // The scripts trim scores <= now - window: the window is (now - window, +inf).
    const qint64 unit = std::max<qint64>(1, o.params.scoreUnitMs);
    if (unit == 1)
        return '(' + QByteArray::number(nowMs - o.params.windowMs);
    return '(' + QByteArray::number(double(nowMs - o.params.windowMs) / double(unit), 'f', 3);
}
} // namespace

QList<PatternUnit::Command> SlidingWindowUnit::probe(const PatternObject &o,
                                                     const ProbeContext &c) const
{
    const QByteArray lo = lowerBound(o, c.nowMs);
    const QByteArray retry = o.relatedKey(0);
    const QByteArray page = number(std::max(1, o.params.pageSize));
    QList<Command> cmds{
        {"ZCOUNT", o.key, lo, "+inf"},
        {"ZCARD", o.key},
        {"ZRANGEBYSCORE", o.key, lo, "+inf", "WITHSCORES", "LIMIT", "0", "1"},
    };
    if (!retry.isEmpty()) {
        cmds.append({"ZRANGE", retry, "-1", "-1", "WITHSCORES"});
        cmds.append({"ZCOUNT", retry, '(' + number(c.nowMs), "+inf"});
    }
    if (c.detail) {
        cmds.append({"ZREVRANGEBYSCORE", o.key, "+inf", lo, "WITHSCORES", "LIMIT", "0", page});
        if (!retry.isEmpty())
            cmds.append({"ZRANGEBYSCORE", retry, '(' + number(c.nowMs), "+inf", "WITHSCORES",
                         "LIMIT", "0", page});
    }
    return cmds;
}

void SlidingWindowUnit::observeBehaviour(BehaviourTrack &t, const PatternObject &,
                                         const Reading &before, const Reading &after,
                                         const QList<RedisValue> &) const
{
    if (!before.isOk() || !after.isOk() || LimiterData::of(before).oldestAgeMs < 0
        || LimiterData::of(after).oldestAgeMs < 0)
        return;
    const qint64 oldestBefore = saturatingSub(before.atMs, LimiterData::of(before).oldestAgeMs);
    const qint64 oldestAfter = saturatingSub(after.atMs, LimiterData::of(after).oldestAgeMs);
    // The oldest entry read is the oldest in the window (all of them when
    // the window is unknown): it moving forward means an entry left. It
    // left the set, not just the window, when nothing older than the
    // window is stored: trimmed by time.
    if (oldestAfter > oldestBefore
        && (LimiterData::of(after).windowMs <= 0
            || LimiterData::of(after).stored == after.inWindow))
        t.confirm(QStringLiteral("its oldest entries were removed while newer ones stayed "
                                 "(trimmed by time)"));
}

Reading SlidingWindowUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                                const ProbeContext &c) const
{
    const QByteArray retry = o.relatedKey(0);
    QList<QByteArray> replyKeys{o.key, o.key, o.key};
    if (!retry.isEmpty())
        replyKeys << retry << retry;
    if (c.detail) {
        replyKeys << o.key;
        if (!retry.isEmpty())
            replyKeys << retry;
    }
    if (auto f = failure(o, r, replyKeys, c.nowMs))
        return *f;

    const qint64 unit = std::max<qint64>(1, o.params.scoreUnitMs);
    Reading reading;
    LimiterData &lim = LimiterData::in(reading);
    reading.atMs = c.nowMs;
    reading.limit = o.params.limit;
    lim.windowMs = o.params.windowMs;
    reading.inWindow = r.at(0).toInteger();
    lim.stored = r.at(1).toInteger();
    const QList<qint64> oldest = scoresMs(r.at(2), unit);
    if (!oldest.isEmpty())
        lim.oldestAgeMs = std::max<qint64>(0, saturatingSub(c.nowMs, oldest.first()));
    int next = 3;
    bool retryExists = false;
    if (!retry.isEmpty()) {
        const QList<qint64> last = scoresMs(r.at(next++), 1);
        retryExists = !last.isEmpty();
        if (retryExists)
            lim.retryHorizonMs = std::max<qint64>(0, saturatingSub(last.first(), c.nowMs));
        lim.retrySlots = r.at(next++).toInteger();
    }
    if (c.detail) {
        QList<qint64> &window = lim.windowTimes;
        window = scoresMs(r.at(next++), unit);
        std::reverse(window.begin(), window.end());
        if (!retry.isEmpty())
            lim.retryTimes = scoresMs(r.at(next++), 1);
    }
    if (lim.stored == 0 && !retryExists) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Idle: the window key does not exist (no requests, or "
                                         "it expired).");
    } else if (!reading.limit) {
        reading.message = QStringLiteral("The limit is not stored in Redis; set it in the "
                                         "profile to see occupancy.");
    }
    return reading;
}

qint64 SlidingWindowUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    if (r.status == Reading::Status::Missing)
        return Reading::Forever; // idle: the first request arrives as an event
    if (!r.isOk() || !LimiterData::of(r).windowTimes.isEmpty()
        || !LimiterData::of(r).retryTimes.isEmpty())
        return r.atMs; // errors and the detail strip are always read
    qint64 until = Reading::Forever;
    // The window is (now - window, +inf): the oldest entry leaves it when its
    // age reaches the window; the count then drops, and only Redis knows by
    // how much. (1 ms early for scores kept in seconds.)
    if (LimiterData::of(r).oldestAgeMs >= 0 && LimiterData::of(r).windowMs > 0)
        until = saturatingAdd(saturatingSub(r.atMs, LimiterData::of(r).oldestAgeMs),
                              LimiterData::of(r).windowMs - 1);
    // Only the last retry slot's time is read: with more than one future
    // slot the count falls at times Gatehouse does not know.
    if (LimiterData::of(r).retrySlots > 1)
        return r.atMs;
    if (LimiterData::of(r).retrySlots == 1)
        until = std::min(until, saturatingAdd(r.atMs, LimiterData::of(r).retryHorizonMs));
    return until;
}

ScriptCall SlidingWindowUnit::resetWindow(const PatternObject &o)
{
    ScriptCall call;
    call.action = QStringLiteral("limiter.reset");
    call.script = QStringLiteral("limiter_reset");
    call.keys = {o.key};
    call.keyRoles = {QStringLiteral("window")};
    // limiter_reset.lua: ARGV = force, score unit, then what each key must be.
    call.args
        = {QByteArray(), QByteArray::number(std::max<qint64>(1, o.params.scoreUnitMs)), "times"};
    call.forceable = true;
    call.forceArg = 0;
    if (!o.relatedKey(0).isEmpty()) {
        call.keys.append(o.relatedKey(0));
        call.keyRoles.append(QStringLiteral("retry set"));
        call.args.append("mstimes"); // retry slots are ms whatever the window's unit
    }
    call.summary = QStringLiteral("Delete the window%1 of limiter \"%2\": every client starts "
                                  "with a full allowance.")
                       .arg(call.keys.size() > 1 ? QStringLiteral(" and retry slots") : QString(),
                            printableBytes(o.key));
    const QByteArray key = call.keys.value(0);
    call.meaning = [key](const RedisValue &reply) {
        return limiterKeysDeleted(key, reply);
    };
    return call;
}

ScriptCall SlidingWindowUnit::clearRetrySlots(const PatternObject &o)
{
    if (o.relatedKey(0).isEmpty())
        return {};
    ScriptCall call;
    call.action = QStringLiteral("limiter.clear-retry");
    call.script = QStringLiteral("limiter_reset");
    call.keys = {o.relatedKey(0)};
    call.keyRoles = {QStringLiteral("retry set")};
    call.args = {QByteArray(), "1", "mstimes"};
    call.forceable = true;
    call.forceArg = 0;
    call.summary = QStringLiteral("Delete the retry slots of limiter \"%1\"; the window keeps "
                                  "its entries.")
                       .arg(printableBytes(o.key));
    // Said of the limiter, naming its retry set's key.
    const QString limiter = printableBytes(o.key), retry = printableBytes(o.relatedKey(0));
    call.meaning = [limiter, retry](const RedisValue &reply) {
        return reply.toInteger() > 0
                   ? ReplyMeaning{true, QStringLiteral("Deleted the retry slots of limiter "
                                                       "\"%1\" (%2).")
                                            .arg(limiter, retry)}
                   : ReplyMeaning{false, QStringLiteral("Limiter \"%1\" has no retry slots "
                                                        "(\"%2\" does not exist); nothing "
                                                        "changed.")
                                             .arg(limiter, retry)};
    };
    return call;
}

bool SlidingWindowUnit::parseRule(RuleReader &r, const QJsonObject &o, ProfileRule &rule) const
{
    return r.limitAndWindow(o, &rule.params) && r.unit(o, "scoreUnit", &rule.params.scoreUnitMs)
           && r.keyTemplate(o, "retryKey", &rule.retryKey);
}

void SlidingWindowUnit::writeRule(const ProfileRule &r, QJsonObject &o) const
{
    writeLimitAndWindow(r.params, o);
    o.insert(QStringLiteral("scoreUnit"),
             r.params.scoreUnitMs == 1000 ? QStringLiteral("s") : QStringLiteral("ms"));
    if (!r.retryKey.isEmpty())
        o.insert(QStringLiteral("retryKey"), QString::fromUtf8(r.retryKey));
}

std::optional<PatternObject> SlidingWindowUnit::objectFor(const ProfileRule &rule,
                                                          const QByteArray &key) const
{
    if (!globMatch(rule.match, key) || rule.excludes(key))
        return std::nullopt;
    // A window's retry set is not an instance of its own.
    if (!rule.retryKey.isEmpty()) {
        const QByteArray base = baseOfTemplate(rule.retryKey, key);
        if (!base.isEmpty() && globMatch(rule.match, base))
            return std::nullopt;
    }
    PatternObject o = baseObject(rule, key);
    o.related = {rule.retryKey.isEmpty() ? QByteArray() : applyTemplate(rule.retryKey, key)};
    return o;
}

PatternObject SlidingWindowUnit::conventionalObject(const QByteArray &key) const
{
    PatternObject o = PatternUnit::conventionalObject(key);
    o.related = {key + ":retry"};
    return o;
}

namespace {

// A reset on a Cluster whose retry set hashes to another slot than the
// window (no shared hash tag: "rl:x" and "rl:x:retry"): one script reaches
// one slot, so the window alone is reset, and the call says where its retry
// slots went (left, for limiter clear-retry) rather than be refused whole.
ScriptCall withinOneSlot(ScriptCall call, const ActionRequest &r)
{
    if (r.server.mode != QLatin1String("cluster") || call.keys.size() != 2
        || keyHashSlot(call.keys.at(0)) == keyHashSlot(call.keys.at(1)))
        return call;
    const QByteArray window = call.keys.at(0), retry = call.keys.at(1);
    call.keys.removeLast();
    call.keyRoles.removeLast();
    call.args.removeLast();
    const QString apart
        = QStringLiteral(" Its retry set \"%1\" is in another slot of the "
                         "Cluster (%2, the window's %3), which one script cannot "
                         "reach: it is left as it is (Clear retry slots, limiter "
                         "clear-retry %4, deletes it).")
              .arg(printableBytes(retry, 80), QString::number(keyHashSlot(retry)),
                   QString::number(keyHashSlot(window)), printableBytes(window, 80));
    call.summary = QStringLiteral("Delete the window of limiter \"%1\": every client starts "
                                  "with a full allowance.%2")
                       .arg(printableBytes(window), apart);
    call.meaning = [window, apart](const RedisValue &reply) {
        ReplyMeaning m = limiterKeysDeleted(window, reply);
        m.message += apart;
        return m;
    };
    return call;
}

} // namespace

QList<PatternAction> SlidingWindowUnit::actions() const
{
    QList<PatternAction> all = LimiterUnit::actions();
    for (PatternAction &a : all) {
        if (a.id != QLatin1String("limiter.reset"))
            continue;
        a.build = [build = a.build](const ActionRequest &r) {
            return withinOneSlot(build(r), r);
        };
    }
    PatternAction clear;
    clear.id = QStringLiteral("limiter.clear-retry");
    clear.verb = QStringLiteral("clear-retry");
    clear.label = QStringLiteral("Clear retry slots…");
    clear.objectName = QStringLiteral("clearRetryButton");
    clear.usage = QStringLiteral("limiter clear-retry KEY");
    clear.build = [](const ActionRequest &r) {
        ScriptCall call = clearRetrySlots(r.object);
        if (!call.isValid())
            call.refusal = QStringLiteral("Limiter \"%1\" has no retry set in the profile.")
                               .arg(printableBytes(r.object->key, 80));
        return call;
    };
    all.append(clear);
    return all;
}

std::optional<KeyClaim> SlidingWindowUnit::claimKey(const KeyShape &s, qint64 now) const
{
    if (s.type != "zset" || s.size == 0)
        return std::nullopt;
    // A ":retry" set holds future slot times; a window recent request times
    // (in ms, or in s as seed 003 writes them).
    if (s.key.endsWith(":retry") && nearMs(s.lastScore, now))
        return KeyClaim{QStringLiteral("retry"), 80};
    if (nearMs(s.lastScore, now) && nearMs(s.firstScore, now))
        return KeyClaim{QStringLiteral("window"), 10};
    if (nearSeconds(s.lastScore, now) && nearSeconds(s.firstScore, now))
        return KeyClaim{QStringLiteral("window-seconds"), 10};
    return std::nullopt;
}

QList<PatternObject> SlidingWindowUnit::groupClaims(ClaimPool &pool) const
{
    QList<PatternObject> out;
    const QList<QByteArray> keys = pool.won(kind());
    for (const QByteArray &key : keys) {
        const QString role = pool.roleOf(key, kind());
        if (role == QLatin1String("retry"))
            continue; // with its window, below
        const KeyShape &s = pool.find(key)->shape;
        PatternObject o;
        o.kind = kind();
        o.key = key;
        o.source = QStringLiteral("autodetected");
        o.params.scoreUnitMs = role == QLatin1String("window-seconds") ? 1000 : 1;
        o.params.windowMs = guessWindowMs(s.pttlMs);
        const QByteArray retry = key + ":retry";
        o.related = {pool.find(retry) ? retry : QByteArray()};
        pool.take(key);
        if (pool.roleOf(retry, kind()) == QLatin1String("retry"))
            pool.take(retry); // a key merely named so stays another pattern's
        out.append(o);
    }
    // A retry set whose window expired still tells of a limiter.
    for (const QByteArray &key : keys) {
        if (pool.roleOf(key, kind()) != QLatin1String("retry"))
            continue;
        const QByteArray window = key.chopped(6);
        if (pool.find(window) || !pool.take(key))
            continue;
        PatternObject o;
        o.kind = kind();
        o.key = window;
        o.source = QStringLiteral("autodetected");
        o.related = {key};
        out.append(o);
    }
    return out;
}

ProfileRule SlidingWindowUnit::suggestRule(const PatternObject &object) const
{
    ProfileRule rule = PatternUnit::suggestRule(object);
    if (!object.relatedKey(0).isEmpty())
        rule.retryKey = "{key}:retry";
    return rule;
}

QList<Evidence> SlidingWindowUnit::structureEvidence(const PatternObject &o,
                                                     const ClaimPool &pool) const
{
    QList<Evidence> out;
    const ClaimPool::Entry *window = pool.find(o.key);
    const qint64 unit = std::max<qint64>(1, o.params.scoreUnitMs);
    if (window && window->shape.type == "zset" && window->shape.size > 0) {
        const KeyShape &s = window->shape;
        const double spanMs = (s.lastScore - s.firstScore) * double(unit);
        const double agoMs = double(pool.nowMs) - s.lastScore * double(unit);
        out.append({Evidence::Kind::Structure, 2,
                    QStringLiteral("a ZSET of %1 recent times (%2), the newest %3 s ago")
                        .arg(s.size)
                        .arg(unit == 1 ? QStringLiteral("ms") : QStringLiteral("s"))
                        .arg(std::max(0.0, agoMs) / 1000.0, 0, 'f', 1)});
        if (s.pttlMs > 0 && spanMs <= double(s.pttlMs) * 1.1)
            out.append({Evidence::Kind::Structure, 1,
                        QStringLiteral("its times span %1 s, within its %2 s TTL (a window "
                                       "expires when idle)")
                            .arg(spanMs / 1000.0, 0, 'f', 1)
                            .arg(double(s.pttlMs) / 1000.0, 0, 'f', 1)});
    }
    const QByteArray retry = o.relatedKey(0);
    if (!retry.isEmpty() && pool.roleOf(retry, kind()) == QLatin1String("retry"))
        out.append({Evidence::Kind::Structure, window ? 2 : 3,
                    QStringLiteral("%1 holds future retry slots (a limiter's retry horizon)")
                        .arg(printableBytes(retry, 60))});
    return out;
}

std::unique_ptr<DemoTraffic> SlidingWindowUnit::demoTraffic(quint32 seed) const
{
    // Four windows per scale ("<prefix>rl:api:0", its ":retry" beside it), of
    // 20 requests per 10 s, whose clients send 1, 1.8, 4 and 12 a second:
    // below, near, above and far above, so some are told a retry horizon.
    LimiterDemo::Limiters windows;
    windows.perScale = 4;
    windows.rates = {1.0, 1.8, 4.0, 12.0};
    windows.key = [](const DemoDriver &d, int i) -> QByteArray {
        return d.tagged(d.prefix() + "rl:api:", QByteArray::number(i));
    };
    windows.keys = [](const QByteArray &key) {
        return QList<QByteArray>{key, key + ":retry"};
    };
    windows.request = [](DemoDriver &d, const QByteArray &key, QRandomGenerator &) {
        d.send(QStringLiteral("sliding_window"), {key, key + ":retry"},
               {"20", "10000", QByteArray(), "100"});
    };
    return std::make_unique<LimiterDemo>(seed, std::move(windows));
}

} // namespace gatehouse
