// SPDX-License-Identifier: MIT
#include "pythonlimitsunit.h"

#include <patterns/limiterdata.h>

#include <QJsonArray>

#include <cmath>

namespace gatehouse {

namespace {

// limits/limits.py TIME_TYPES: a month is 30 days, a year 12 of them.
qint64 granularitySeconds(const QByteArray &name)
{
    static const QList<std::pair<QByteArray, qint64>> seconds{
        {"second", 1},  {"minute", 60},          {"hour", 3600},
        {"day", 86400}, {"month", 86400LL * 30}, {"year", 86400LL * 30 * 12}};
    for (const auto &[n, s] : seconds) {
        if (n == name)
            return s;
    }
    return 0;
}

bool positiveInteger(const QByteArray &s, qint64 *out)
{
    bool ok = false;
    const qint64 v = s.toLongLong(&ok);
    if (!ok || v <= 0 || s.startsWith('+') || s.startsWith('0'))
        return false;
    *out = v;
    return true;
}

// A moving window's entry: Python's str(time.time()), epoch seconds.
std::optional<qint64> entryMs(const QByteArray &entry)
{
    bool ok = false;
    const double s = entry.toDouble(&ok);
    if (!ok || !std::isfinite(s) || s < 1e9 || s > 1e11)
        return std::nullopt;
    return qint64(std::llround(s * 1000.0));
}

} // namespace

std::optional<PythonLimitsUnit::KeyName> PythonLimitsUnit::parseKey(const QByteArray &key)
{
    if (!inNamespace(key))
        return std::nullopt;
    const QList<QByteArray> parts = key.split('/');
    if (parts.size() < 4)
        return std::nullopt;
    KeyName name;
    qint64 multiples = 0;
    name.granularity = parts.at(parts.size() - 1);
    const qint64 seconds = granularitySeconds(name.granularity);
    if (seconds == 0 || !positiveInteger(parts.at(parts.size() - 2), &multiples)
        || !positiveInteger(parts.at(parts.size() - 3), &name.limit) || multiples > 1000000)
        return std::nullopt;
    name.windowMs = seconds * multiples * 1000;
    return name;
}

bool PythonLimitsUnit::identifies(const QByteArray &target, const QList<RedisValue> &replies) const
{
    if (replies.isEmpty() || !inNamespace(target))
        return false;
    const QByteArray type = replies.first().bytes();
    return type == "string" || type == "list";
}

std::optional<KeyClaim> PythonLimitsUnit::claimKey(const KeyShape &s, qint64) const
{
    // The library's namespace and '/' separators, a TTL (it always sets
    // EXPIRE), and its value types: beats a fixed window's counter claim and
    // the list claims of queues. The name's tail decides whether the layout
    // is known (read()).
    if (!inNamespace(s.key) || s.pttlMs <= 0)
        return std::nullopt;
    if (s.type == "string" && isInteger(s.head))
        return KeyClaim{QStringLiteral("window counter"), 30};
    if (s.type == "list" && s.size > 0)
        return KeyClaim{QStringLiteral("moving window"), 30};
    return std::nullopt;
}

QList<PatternObject> PythonLimitsUnit::groupClaims(ClaimPool &pool) const
{
    return eachWonKey(pool);
}

QList<Evidence> PythonLimitsUnit::structureEvidence(const PatternObject &o,
                                                    const ClaimPool &pool) const
{
    const ClaimPool::Entry *e = pool.find(o.key);
    const QString type = e ? QString::fromLatin1(e->shape.type) : QString();
    const QString what = type == QLatin1String("list")
                             ? QStringLiteral("a list of hit times (its moving window)")
                             : QStringLiteral("an integer counter (its fixed window)");
    if (parseKey(o.key))
        return {{Evidence::Kind::Structure, 5,
                 QStringLiteral("Python limits' own key: the LIMITER namespace, '/' separators, "
                                "and the limit, multiples and granularity at the end of the "
                                "name; %1 that expires")
                     .arg(what)}};
    return {{Evidence::Kind::Structure, 3,
             QStringLiteral("under Python limits' LIMITER namespace, %1 that expires, but its "
                            "name does not end in amount/multiples/granularity: an unknown "
                            "layout, read-only")
                 .arg(what)}};
}

QList<PatternUnit::Command> PythonLimitsUnit::probe(const PatternObject &o,
                                                    const ProbeContext &) const
{
    const std::optional<KeyName> name = parseKey(o.key);
    // The library trims the list to the limit: one page holds the window.
    const qint64 page = std::clamp<qint64>(name ? name->limit : o.params.pageSize, 1, 1000);
    // Every command is sent whatever the type: the one of the other type
    // answers WRONGTYPE, which read() expects.
    return {{"TYPE", o.key},
            {"PTTL", o.key},
            {"GETRANGE", o.key, "0", "31"},
            {"LRANGE", o.key, "0", number(page - 1)}};
}

Reading PythonLimitsUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                               const ProbeContext &c) const
{
    if (auto f = failure(o, r.mid(0, 2), {o.key, o.key}, c.nowMs))
        return *f;
    if (r.size() < 4)
        return *failure(o, r, {o.key, o.key, o.key, o.key}, c.nowMs);
    Reading reading;
    LimiterData &lim = LimiterData::in(reading);
    reading.atMs = c.nowMs;
    const std::optional<KeyName> name = parseKey(o.key);
    reading.limit = name ? std::optional<qint64>(name->limit) : o.params.limit;
    lim.windowMs = name ? name->windowMs : o.params.windowMs;
    reading.pttlMs = r.at(1).toInteger();
    const QByteArray type = r.at(0).bytes();
    if (type == "none" || reading.pttlMs == -2) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Idle: no hit in the current window.");
        return reading;
    }
    bool known = name.has_value() && reading.pttlMs > 0;
    if (type == "string") {
        reading.editLibrary().layoutVersion = QStringLiteral("limits: fixed window");
        bool ok = false;
        reading.inWindow = r.at(2).bytes().toLongLong(&ok);
        known = known && ok;
        lim.stored = reading.inWindow;
        lim.resetMs = reading.pttlMs;
    } else if (type == "list") {
        reading.editLibrary().layoutVersion = QStringLiteral("limits: moving window");
        const QList<RedisValue> &entries = r.at(3).elements();
        lim.stored = entries.size();
        const qint64 from = saturatingSub(c.nowMs, lim.windowMs);
        qint64 oldest = -1;
        for (const RedisValue &e : entries) {
            const std::optional<qint64> at = entryMs(e.bytes());
            known = known && at.has_value();
            if (!at || *at < from)
                break; // newest first: the rest are older (moving_window.lua)
            ++reading.inWindow;
            oldest = *at;
            lim.windowTimes.prepend(*at);
        }
        lim.oldestAgeMs = oldest < 0 ? -1 : std::max<qint64>(0, saturatingSub(c.nowMs, oldest));
        lim.resetMs = oldest < 0
                          ? 0
                          : std::max<qint64>(
                              0, saturatingSub(saturatingAdd(oldest, lim.windowMs), c.nowMs));
    } else {
        reading.status = Reading::Status::WrongType;
        reading.message = QStringLiteral("Key \"%1\" holds a %2, not a limits counter or moving "
                                         "window.")
                              .arg(printableBytes(o.key), QString::fromLatin1(type));
        return reading;
    }
    reading.editLibrary().counts = {{QStringLiteral("hits"), reading.inWindow}};
    if (reading.limit && reading.inWindow >= *reading.limit)
        lim.retryHorizonMs = lim.resetMs;
    reading.editLibrary().layoutKnown = known;
    if (!known)
        reading.message = name ? QStringLiteral("Its value or TTL is not what Python limits "
                                                "writes: an unknown layout, shown read-only.")
                               : QStringLiteral("Its name does not end in amount/multiples/"
                                                "granularity (RateLimitItem.key_for): an "
                                                "unknown layout, shown read-only; the limit is "
                                                "not in Redis.");
    return reading;
}

qint64 PythonLimitsUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    if (r.status == Reading::Status::Missing)
        return Reading::Forever; // the next hit arrives as an event
    if (!r.isOk())
        return r.atMs;
    // A fixed window resets when the key expires; a moving window's count
    // drops when its oldest hit leaves the window.
    return saturatingAdd(r.atMs, LimiterData::of(r).resetMs > 0 ? LimiterData::of(r).resetMs
                                                                : std::max<qint64>(r.pttlMs, 0));
}

QList<Column> PythonLimitsUnit::columns() const
{
    QList<Column> cols = LimiterUnit::columns();
    cols.insert(2, Column::library(QStringLiteral("limits")));
    cols.insert(cols.size() - 1,
                LimiterData::countdown(QStringLiteral("Resets in"), &LimiterData::resetMs));
    return cols;
}

void PythonLimitsUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                                 QJsonObject &j) const
{
    LimiterUnit::writeJson(s, r, nowMs, j);
    const QString strategy = r.library().layoutVersion.section(QStringLiteral(": "), 1);
    j.insert(QStringLiteral("strategy"), strategy.isEmpty() ? QJsonValue() : QJsonValue(strategy));
    j.insert(QStringLiteral("resetMs"), double(LimiterData::of(r).resetMs));
    j.insert(QStringLiteral("stored"), double(LimiterData::of(r).stored));
}

QList<PatternAction> PythonLimitsUnit::actions() const
{
    QList<PatternAction> out = LimiterUnit::actions();
    for (PatternAction &a : out) {
        a.check = [](const ActionRequest &r) -> QString {
            if (!parseKey(r.object->key))
                return QStringLiteral("\"%1\" is not a Python limits key (LIMITER/.../amount/"
                                      "multiples/granularity): shown read-only.")
                    .arg(printableBytes(r.object->key));
            if (r.shown && !r.shown->reading.library().layoutKnown)
                return QStringLiteral("\"%1\" does not hold what Python limits writes: shown "
                                      "read-only.")
                    .arg(printableBytes(r.object->key));
            return QString();
        };
        a.build = [](const ActionRequest &r) {
            QByteArray type;
            if (r.shown && r.shown->reading.isOk())
                type = r.shown->reading.library().layoutVersion.endsWith(
                           QLatin1String("moving window"))
                           ? "list"
                           : "string";
            return resetCall(r.object, type);
        };
    }
    return out;
}

ScriptCall PythonLimitsUnit::resetCall(const PatternObject &o, const QByteArray &shownType)
{
    ScriptCall call;
    call.action = QStringLiteral("limiter.reset");
    call.script = QStringLiteral("limits_reset");
    call.keys = {o.key};
    call.keyRoles = {QStringLiteral("window")};
    call.args = {shownType};
    call.summary = QStringLiteral("Delete Python limits key \"%1\" (its fixed-window counter or "
                                  "moving-window list), as the library's clear() does: its "
                                  "window starts again at zero.")
                       .arg(printableBytes(o.key));
    const QByteArray key = o.key;
    call.meaning = [key](const RedisValue &reply) {
        return limiterKeysDeleted(key, reply);
    };
    return call;
}

} // namespace gatehouse
