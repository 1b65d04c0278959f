// SPDX-License-Identifier: MIT
#include "redissonlockunit.h"

#include <patterns/globmatch.h>
#include <patterns/lock/lockdata.h>
#include <patterns/redissonnames.h>
#include <patterns/sections.h>

#include <QJsonArray>

#include <algorithm>

namespace gatehouse {

namespace {
constexpr char QueuePrefix[] = "redisson_lock_queue";
constexpr char TimeoutPrefix[] = "redisson_lock_timeout";
constexpr char LatchPrefix[] = "redisson_unlock_latch";

bool hasState(const Reading &r, QStringView state)
{
    return std::any_of(r.library().counts.cbegin(), r.library().counts.cend(),
                       [state](const StateCount &c) { return c.state == state; });
}

bool isReadWrite(const Reading &r)
{
    return hasState(r, u"readers");
}

QString modeOf(const Reading &r)
{
    if (!isReadWrite(r))
        return {};
    return r.library().countOf(u"writers") > 0 ? QStringLiteral("write") : QStringLiteral("read");
}

// The name of a lock whose queue or timeout set key is; empty otherwise.
QByteArray nameOfPart(const QByteArray &key)
{
    QByteArray name = redisson::nameOfPrefixed(QueuePrefix, key);
    if (name.isEmpty())
        name = redisson::nameOfPrefixed(TimeoutPrefix, key);
    return name;
}

// What the shape shows of a Redisson lock HASH: "lock" (one holder,
// "<uuid>:<thread>" -> hold count), "rwlock" (mode and holders), or none.
QString lockRole(const KeyShape &s)
{
    if (s.type != "hash" || s.pttlMs <= 0 || s.sampleFields.isEmpty())
        return {};
    const QByteArray mode = s.hashFields.value("mode");
    const bool rw = mode == "read" || mode == "write";
    if (!rw && !mode.isEmpty())
        return {};
    int holders = 0;
    for (qsizetype i = 0; i + 1 < s.sampleFields.size(); i += 2) {
        const QByteArray &field = s.sampleFields.at(i);
        if (rw && field == "mode")
            continue;
        bool ok = false;
        const qint64 count = s.sampleFields.at(i + 1).toLongLong(&ok);
        if (!ok || count < 1 || !redisson::isLockHolder(field))
            return {};
        if (!rw && field.endsWith(":write"))
            return {};
        ++holders;
    }
    if (holders == 0)
        return {};
    // An RLock has exactly one holder: HRANDFIELD 2 gave one field.
    if (!rw && s.sampleFields.size() != 2)
        return {};
    return rw ? QStringLiteral("rwlock") : QStringLiteral("lock");
}

ReplyMeaning unlockMeaning(const QString &key, const QString &holder, const RedisValue &reply)
{
    if (reply.isInteger() && reply.toInteger() == 1)
        return {true, QStringLiteral("Unlocked Redisson lock \"%1\" as its forceUnlock does "
                                     "(deleted, unlock message published).")
                          .arg(key)};
    if (reply.isNil())
        return {false, QStringLiteral("Redisson lock \"%1\" is free (released or expired); "
                                      "nothing changed.")
                           .arg(key)};
    return {false, QStringLiteral("Redisson lock \"%1\" is no longer held by \"%2\" (the holder "
                                  "shown); nothing changed. Read it again, or use --force to "
                                  "unlock whoever holds it.")
                       .arg(key, holder)};
}
} // namespace

QByteArray RedissonLockUnit::queueKey(const QByteArray &name)
{
    return redisson::prefixName(QueuePrefix, name);
}

QByteArray RedissonLockUnit::timeoutKey(const QByteArray &name)
{
    return redisson::prefixName(TimeoutPrefix, name);
}

PatternObject RedissonLockUnit::objectForName(const QByteArray &name)
{
    PatternObject o;
    o.kind = Kind;
    o.key = name;
    o.related = {queueKey(name), timeoutKey(name)};
    return o;
}

Section RedissonLockUnit::section() const
{
    return sections::lock();
}

QList<PatternUnit::Command> RedissonLockUnit::identifyProbe(const QByteArray &target) const
{
    // Commands that answer for any type: a wrong-type error would stop the
    // CLI before the other lock patterns are asked.
    return {{"TYPE", target}, {"EXISTS", queueKey(target)}};
}

bool RedissonLockUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    // A HASH (no other lock pattern is one; the script checks its holder),
    // or a free fair lock that still has waiters.
    return r.size() == 2
           && (r.at(0).bytes() == "hash" || (r.at(0).bytes() == "none" && r.at(1).toInteger() > 0));
}

QList<QByteArray> RedissonLockUnit::scanGlobs(const ProfileRule &rule) const
{
    return {rule.match, redisson::prefixName(QueuePrefix, rule.match)};
}

std::optional<PatternObject> RedissonLockUnit::objectFor(const ProfileRule &rule,
                                                         const QByteArray &key) const
{
    QByteArray name = nameOfPart(key);
    if (name.isEmpty()) {
        // Redisson's own bookkeeping keys are never a lock of their own.
        if (key.startsWith("redisson_") || key.contains(":rwlock_timeout:"))
            return std::nullopt;
        name = key;
    }
    if (!globMatch(rule.match, name) || rule.excludes(name))
        return std::nullopt;
    PatternObject o = objectForName(name);
    o.params = rule.params;
    return o;
}

PatternObject RedissonLockUnit::conventionalObject(const QByteArray &key) const
{
    const QByteArray name = nameOfPart(key);
    return objectForName(name.isEmpty() ? key : name);
}

std::optional<KeyClaim> RedissonLockUnit::claimKey(const KeyShape &s, qint64) const
{
    // Redisson's own names (its fair lock's queue and timeouts, read locks'
    // timeouts, unlock latches), and a HASH shaped as its lock: an
    // application's "x:lock" STRING stays a generic lock, an ordinary hash
    // (no "<uuid>:<thread>" -> count field) is nobody's.
    if (const QString role = lockRole(s); !role.isEmpty())
        return KeyClaim{role, 90};
    if (s.type == "list" && !redisson::nameOfPrefixed(QueuePrefix, s.key).isEmpty())
        return KeyClaim{QStringLiteral("queue"), 90};
    if (s.type == "zset" && !redisson::nameOfPrefixed(TimeoutPrefix, s.key).isEmpty())
        return KeyClaim{QStringLiteral("timeout"), 90};
    if (s.type == "string" && s.key.contains(":rwlock_timeout:") && s.key.contains('}'))
        return KeyClaim{QStringLiteral("rwlock-timeout"), 90};
    if (s.type == "string" && s.key.startsWith(QByteArray(LatchPrefix).append(':')))
        return KeyClaim{QStringLiteral("latch"), 90};
    return std::nullopt;
}

QList<PatternObject> RedissonLockUnit::groupClaims(ClaimPool &pool) const
{
    QMap<QByteArray, bool> names;
    QList<QByteArray> bookkeeping;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        const QString role = pool.roleOf(key, Kind);
        if (role == QLatin1String("lock") || role == QLatin1String("rwlock"))
            names.insert(key, true);
        else if (role == QLatin1String("queue") || role == QLatin1String("timeout"))
            names.insert(nameOfPart(key), true);
        else if (!role.isEmpty())
            bookkeeping << key;
    }
    QList<PatternObject> out;
    for (auto it = names.cbegin(); it != names.cend(); ++it) {
        PatternObject o = objectForName(it.key());
        o.source = QStringLiteral("autodetected");
        for (const QByteArray &k : o.keys())
            pool.take(k);
        out.append(o);
    }
    // Read locks' timeouts and unlock latches expire on their own (Redisson
    // sets them with PX); they are its bookkeeping, shown as nothing.
    for (const QByteArray &key : std::as_const(bookkeeping))
        pool.take(key);
    return out;
}

QList<PatternUnit::Command> RedissonLockUnit::probe(const PatternObject &o,
                                                    const ProbeContext &) const
{
    const QByteArray page = number(std::max(1, o.params.pageSize));
    const QByteArray last = number(std::max(1, o.params.pageSize) - 1);
    return {
        {"PTTL", o.key},
        {"HLEN", o.key},
        {"HGET", o.key, "mode"},
        // Bounded: a page of fields (a small hash answers whole).
        {"HSCAN", o.key, "0", "COUNT", page},
        {"LLEN", o.relatedKey(Queue)},
        {"LRANGE", o.relatedKey(Queue), "0", last},
        {"ZCARD", o.relatedKey(Timeout)},
        {"ZRANGE", o.relatedKey(Timeout), "0", last, "WITHSCORES"},
    };
}

Reading RedissonLockUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                               const ProbeContext &c) const
{
    const QByteArray q = o.relatedKey(Queue);
    const QByteArray t = o.relatedKey(Timeout);
    if (auto f = failure(o, r, {o.key, o.key, o.key, o.key, q, q, t, t}, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    reading.pttlMs = r.at(0).toInteger();
    const qint64 fields = r.at(1).toInteger();
    const QByteArray mode = r.at(2).bytes();
    reading.editQueue().length = r.at(4).toInteger(); // waiters
    if (const qint64 timed = r.at(6).toInteger(); timed > 0)
        LockData::in(reading).waitersWithTimeout = timed;
    if (reading.pttlMs == -2 && reading.queue().length == 0
        && LockData::of(reading).waitersWithTimeout == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Free: nobody holds the lock.");
        return reading;
    }
    const bool rw = !mode.isEmpty();
    if (rw && mode != "read" && mode != "write") {
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("Hash \"%1\" has a \"mode\" of \"%2\", not read or "
                                         "write: not a Redisson read-write lock.")
                              .arg(printableBytes(o.key), printableBytes(mode, 40));
        return reading;
    }
    qint64 holdCount = 0;
    qint64 readers = 0;
    qint64 writers = 0;
    const RedisValue &page = r.at(3).size() == 2 ? r.at(3).at(1) : RedisValue();
    for (qsizetype i = 0; i + 1 < page.size(); i += 2) {
        const QByteArray field = page.at(i).bytes();
        if (field == "mode" && rw)
            continue;
        // Every field of a Redisson lock is a holder ("<client uuid>:<thread
        // id>", ":write" for a writer) with its hold count: a hash with any
        // other field (an application's settings or session) is not one,
        // and nothing acts on it as one.
        bool counted = false;
        if (!redisson::isLockHolder(field) || page.at(i + 1).bytes().toLongLong(&counted) < 1
            || !counted) {
            reading.editLibrary().layoutKnown = false;
            reading.message = QStringLiteral("Hash \"%1\" is not a Redisson lock: its field "
                                             "\"%2\" is not a holder (\"<client uuid>:<thread "
                                             "id>\" with a hold count).")
                                  .arg(printableBytes(o.key, 80), printableBytes(field, 40));
            return reading;
        }
        InFlightItem holder;
        holder.job = field.left(256);
        holder.attempts = page.at(i + 1).toInteger();
        holder.source = AgeSource::Library;
        holder.ageMs = -1;
        holder.name = !rw                        ? QByteArray("holder")
                      : field.endsWith(":write") ? QByteArray("writer")
                                                 : QByteArray("reader");
        holdCount = saturatingAdd(holdCount, std::max<qint64>(0, holder.attempts));
        (holder.name == "writer" ? writers : readers) += 1;
        reading.editQueue().items.append(holder);
    }
    // The writer first, then by field: the same holder is shown first each time.
    std::stable_sort(reading.editQueue().items.begin(), reading.editQueue().items.end(),
                     [](const InFlightItem &a, const InFlightItem &b) {
                         return a.name != b.name ? a.name == "writer" : a.job < b.job;
                     });
    const qint64 holders = std::max<qint64>(0, fields - (rw ? 1 : 0));
    reading.editQueue().truncated = holders > reading.queue().items.size();
    reading.editQueue().inFlight = holders;
    if (!reading.queue().items.isEmpty())
        LockData::in(reading).token = reading.queue().items.first().job;
    // Waiters in queue order, each with its timeout from the page read.
    QHash<QByteArray, qint64> timeouts;
    const RedisValue &scored = r.at(7);
    for (qsizetype i = 0; i + 1 < scored.size(); i += 2)
        timeouts.insert(scored.at(i).bytes(), redisson::scoreMs(scored.at(i + 1).bytes()));
    const auto &queue = r.at(5).elements();
    for (qsizetype i = 0; i < queue.size(); ++i) {
        LibraryPart w;
        w.kind = QStringLiteral("waiter");
        w.name = queue.at(i).bytes().left(256);
        w.count = i + 1;
        w.limit = timeouts.value(queue.at(i).bytes(), -1);
        w.alive = w.limit < 0 || w.limit > c.nowMs;
        reading.editLibrary().parts.append(w);
    }
    reading.editLibrary().counts = {{QStringLiteral("holders"), holders},
                                    {QStringLiteral("holdCount"), holdCount},
                                    {QStringLiteral("waiters"), reading.queue().length}};
    if (rw) {
        reading.editLibrary().counts.append({QStringLiteral("readers"), readers});
        reading.editLibrary().counts.append({QStringLiteral("writers"), writers});
    }
    if (reading.pttlMs == -1 && fields > 0)
        reading.message = QStringLiteral("The lock has no lease (no TTL): if its holder "
                                         "crashed it is held until forceUnlock.");
    else if (reading.queue().truncated)
        reading.message = QStringLiteral("%1 holders; the first %2 are listed.")
                              .arg(holders)
                              .arg(reading.queue().items.size());
    return reading;
}

QString RedissonLockUnit::redissonType(const Reading &r)
{
    if (isReadWrite(r))
        return QStringLiteral("RReadWriteLock");
    return r.queue().length > 0 || LockData::of(r).waitersWithTimeout > 0
               ? QStringLiteral("RFairLock")
               : QStringLiteral("RLock");
}

QString RedissonLockUnit::redissonTypeText(const Reading &r)
{
    const QString type = redissonType(r);
    return type == QLatin1String("RLock")
               ? QStringLiteral("RLock (or an RFairLock with no waiters)")
               : type;
}

qint64 RedissonLockUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    if (r.status == Reading::Status::Missing)
        return Reading::Forever; // taking it is an event
    if (!r.isOk())
        return r.atMs;
    qint64 until = r.pttlMs > 0 ? saturatingAdd(r.atMs, r.pttlMs) : Reading::Forever;
    // A waiter turning stale changes what the table says.
    for (const LibraryPart &w : r.library().parts) {
        if (w.limit > r.atMs)
            until = std::min(until, w.limit);
    }
    return until;
}

void RedissonLockUnit::track(TrackState &t, const Reading &reading, qint64 nowMs) const
{
    trackHolder(t, reading.isOk() ? LockData::of(reading).token : QByteArray(), nowMs);
}

QList<AlertFigure> RedissonLockUnit::alertFigures() const
{
    return PatternUnit::alertFigures() << AlertFigure::heldFor(
               [this](const ObjectState &s) { return !holderToken(s).isEmpty(); });
}

QList<Figure> RedissonLockUnit::figures() const
{
    return {
        {QStringLiteral("pttlMs"), QStringLiteral("Lease left"), true,
         [](const Reading &r, qint64 at) {
             return double(r.countdownAt(r.pttlMs, at));
         }},
        {QStringLiteral("holdCount"), QStringLiteral("Hold count"), false,
         [](const Reading &r, qint64) {
             return double(r.library().countOf(u"holdCount"));
         }},
        {QStringLiteral("waiters"), QStringLiteral("Waiters"), false, [](const Reading &r, qint64) {
             return double(r.queue().length);
         }}};
}

QList<Column> RedissonLockUnit::columns() const
{
    Column holder;
    holder.header = QStringLiteral("Holder token");
    holder.text = [](const ObjectState &s, qint64) -> QString {
        const Reading &r = s.reading;
        QString text = printableBytes(LockData::of(r).token, 64);
        if (!r.queue().items.isEmpty() && r.queue().items.first().attempts > 1)
            text += QStringLiteral(" (×%1)").arg(r.queue().items.first().attempts);
        if (r.queue().inFlight > 1)
            text += QStringLiteral(" +%1 more").arg(r.queue().inFlight - 1);
        return text;
    };
    Column ttl;
    ttl.header = QStringLiteral("TTL");
    ttl.toolTip = QStringLiteral("The lease left (Redisson's watchdog renews it every 10 s "
                                 "while its holder lives).");
    ttl.movesWithTime = true;
    ttl.text = [](const ObjectState &s, qint64 now) -> QString {
        const Reading &r = s.reading;
        if (r.pttlMs < 0)
            return r.pttlMs == -1 ? QStringLiteral("none") : QStringLiteral("–");
        return formatMs(r.countdownAt(r.pttlMs, now));
    };
    ttl.sort = [](const ObjectState &s, qint64 now) {
        return QVariant(double(s.reading.countdownAt(s.reading.pttlMs, now)));
    };
    Column held;
    held.header = QStringLiteral("Held for");
    held.movesWithTime = true;
    held.text = [](const ObjectState &s, qint64 now) -> QString {
        return s.heldSinceMs < 0 ? QStringLiteral("–") : formatMs(now - s.heldSinceMs);
    };
    held.sort = [](const ObjectState &s, qint64 now) {
        return QVariant(double(s.heldSinceMs < 0 ? -1 : now - s.heldSinceMs));
    };
    // The library and which of its lock types the keys show.
    Column library = Column::library(QStringLiteral("redisson"));
    library.text = [text = library.text](const ObjectState &s, qint64 now) -> QString {
        return text(s, now) + QStringLiteral(" · ") + redissonTypeText(s.reading);
    };
    return {Column::key(QStringLiteral("Key")),
            holder,
            ttl,
            held,
            library,
            Column::counts(),
            Column::status()};
}

void RedissonLockUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                                 QJsonObject &j) const
{
    j.insert(QStringLiteral("keys"), keysToJson(s.object->related));
    j.insert(QStringLiteral("redissonType"), redissonType(r));
    j.insert(QStringLiteral("redissonTypeText"), redissonTypeText(r));
    const QString mode = modeOf(r);
    j.insert(QStringLiteral("mode"), mode.isEmpty() ? QJsonValue() : QJsonValue(mode));
    j.insert(QStringLiteral("token"), keyToJson(LockData::of(r).token));
    j.insert(QStringLiteral("pttlMs"), double(r.pttlMs));
    j.insert(QStringLiteral("heldForMs"),
             s.heldSinceMs >= 0 ? QJsonValue(double(nowMs - s.heldSinceMs)) : QJsonValue());
    QJsonArray holders;
    for (const InFlightItem &h : r.queue().items) {
        holders.append(QJsonObject{{QStringLiteral("holder"), keyToJson(h.job)},
                                   {QStringLiteral("holdCount"), double(h.attempts)},
                                   {QStringLiteral("role"), QString::fromLatin1(h.name)}});
    }
    j.insert(QStringLiteral("holders"), holders);
    j.insert(QStringLiteral("holdersTruncated"), r.queue().truncated);
    QJsonArray waiters;
    for (const LibraryPart &w : r.library().parts) {
        waiters.append(QJsonObject{
            {QStringLiteral("waiter"), keyToJson(w.name)},
            {QStringLiteral("position"), double(w.count)},
            {QStringLiteral("timeoutAtMs"),
             w.limit < 0 ? QJsonValue() : QJsonValue(double(w.limit))},
            {QStringLiteral("timeoutInMs"),
             w.limit < 0 ? QJsonValue() : QJsonValue(double(saturatingSub(w.limit, nowMs)))},
            {QStringLiteral("stale"), w.limit >= 0 && w.limit <= nowMs}});
    }
    j.insert(QStringLiteral("waiters"), waiters);
}

QStringList RedissonLockUnit::itemHeaders() const
{
    return {QStringLiteral("Holder or waiter"), QStringLiteral("Role"),
            QStringLiteral("Hold count / place"), QStringLiteral("Waiter's timeout")};
}

QList<QStringList> RedissonLockUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &h : s.reading.queue().items)
        rows.append({printableBytes(h.job, 120), QString::fromLatin1(h.name),
                     QString::number(h.attempts), QStringLiteral("–")});
    for (const LibraryPart &w : s.reading.library().parts) {
        const qint64 left = saturatingSub(w.limit, nowMs);
        rows.append({printableBytes(w.name, 120), QStringLiteral("waiter"),
                     QString::number(w.count),
                     w.limit < 0 ? QStringLiteral("–")
                     : left > 0  ? QStringLiteral("in %1").arg(formatMs(left))
                                 : QStringLiteral("passed %1 ago (stale)").arg(formatMs(-left))});
    }
    return rows;
}

QHash<QString, QByteArray> RedissonLockUnit::shownInputs(const ObjectState &s) const
{
    if (!s.reading.isOk() || LockData::of(s.reading).token.isEmpty())
        return {};
    return {{QStringLiteral("token"), LockData::of(s.reading).token}};
}

QByteArray RedissonLockUnit::holderToken(const ObjectState &s) const
{
    return LockData::of(s.reading).token;
}

QHash<QString, QByteArray> RedissonLockUnit::itemInputs(const ObjectState &s, int i) const
{
    if (i < 0 || i >= s.reading.queue().items.size())
        return shownInputs(s);
    return {{QStringLiteral("token"), s.reading.queue().items.at(i).job}};
}

std::optional<Attention> RedissonLockUnit::attention(const ObjectState &state, qint64 nowMs) const
{
    if (state.gone || !state.reading.isOk() || LockData::of(state.reading).token.isEmpty())
        return std::nullopt;
    const bool known = state.heldSinceMs >= 0;
    const qint64 held = saturatingSub(nowMs, known ? state.heldSinceMs : state.firstSeenMs);
    if (held <= 1000)
        return std::nullopt;
    return Attention{1.0 + double(held) / 1e9, QStringLiteral("pttlMs"), true};
}

QString RedissonLockUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const bool known = state.heldSinceMs >= 0;
    const qint64 held = saturatingSub(nowMs, known ? state.heldSinceMs : state.firstSeenMs);
    return QStringLiteral("%1 %2 held for %3 (%4 waiting)")
        .arg(redissonTypeText(state.reading), printableBytes(state.object->key),
             known ? formatMs(held) : formatAgeSinceWatching(held))
        .arg(state.reading.queue().length);
}

ScriptCall RedissonLockUnit::forceUnlock(const PatternObject &o, const QByteArray &holder)
{
    ScriptCall call;
    call.action = QStringLiteral("lock.force-release");
    call.script = QStringLiteral("redisson_force_unlock");
    call.keys = {o.key, redisson::prefixName("redisson_lock__channel", o.key), o.relatedKey(Queue),
                 o.relatedKey(Timeout), redisson::prefixName("redisson_rwlock", o.key)};
    call.keyRoles
        = {QStringLiteral("Redisson lock hash"), QStringLiteral("its unlock channel"),
           QStringLiteral("fair lock queue list"), QStringLiteral("fair lock timeouts zset"),
           QStringLiteral("its read-write unlock channel")};
    call.args = {holder, QByteArray()};
    call.forceable = true;
    call.forceArg = 1;
    call.summary = QStringLiteral("Unlock Redisson lock \"%1\" as its forceUnlock does (DEL, then "
                                  "PUBLISH the unlock message), only if \"%2\" still holds it.")
                       .arg(printableBytes(o.key), printableBytes(holder, 80));
    const QString key = printableBytes(o.key);
    const QString shown = printableBytes(holder, 80);
    call.meaning = [key, shown](const RedisValue &reply) {
        return unlockMeaning(key, shown, reply);
    };
    return call;
}

QList<PatternAction> RedissonLockUnit::actions() const
{
    PatternAction release;
    release.id = QStringLiteral("lock.force-release");
    release.verb = QStringLiteral("release");
    release.label = QStringLiteral("Force release…");
    release.objectName = QStringLiteral("forceReleaseButton");
    release.usage = QStringLiteral("lock release KEY --token T");
    release.inputs
        = {{QStringLiteral("token"), QStringLiteral("Holder token"), ActionInput::Source::Shown}};
    release.check = [](const ActionRequest &r) -> QString {
        return r.input(QStringLiteral("token")).isEmpty()
                   ? QStringLiteral("lock release needs --token T: for a Redisson lock, the "
                                    "holder \"<uuid>:<threadId>\" you saw (snapshot --json, "
                                    "\"token\"); --force unlocks whoever holds it.")
                   : QString();
    };
    release.build = [](const ActionRequest &r) {
        return forceUnlock(r.object, r.input(QStringLiteral("token")));
    };
    return {release};
}

} // namespace gatehouse
