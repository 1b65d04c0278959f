// SPDX-License-Identifier: MIT
#include "lockunit.h"
#include "lockdemo.h"
#include <patterns/lock/lockdata.h>
#include <patterns/objecthealth.h>

#include <patterns/sections.h>

#include <QSet>

#include <algorithm>
#include <utility>

namespace gatehouse {

namespace {
// lock_release / lock_extend when the lock is not held by the token shown:
// nil (gone), or {the holder's value cut to ReplyCutBytes, its full length}.
ReplyMeaning notHeld(const QString &key, const RedisValue &reply)
{
    if (reply.isNil())
        return {false, QStringLiteral("Lock \"%1\" is gone (expired or released); nothing "
                                      "changed.")
                           .arg(key)};
    const qint64 length = reply.size() == 2 ? reply.at(1).toInteger() : -1;
    const QByteArray value = reply.size() == 2 ? reply.at(0).bytes() : reply.bytes();
    return {false, QStringLiteral("Lock \"%1\" is now held by token \"%2\"%3, not the one "
                                  "shown; nothing changed.")
                       .arg(key, printableBytes(value, 80),
                            length > 80 ? QStringLiteral(" (%1 bytes)").arg(length) : QString())};
}
} // namespace

void LockUnit::observeBehaviour(BehaviourTrack &t, const PatternObject &, const Reading &before,
                                const Reading &after, const QList<RedisValue> &) const
{
    const qint64 elapsed = after.atMs - before.atMs;
    if (std::exchange(t.overwriteUnheard, false)) {
        // Heard since: a release and a new holder whose deletion's event
        // arrived after the reading's reply.
        if (t.deletedSinceRead)
            t.confirm(QStringLiteral("deleted and re-created with a new token"));
        else
            t.argue(QStringLiteral("its value was overwritten in place while its key lived"),
                    t.eventsLive);
    }
    // The earlier holder's TTL had not run out by the later reading: its
    // key cannot have expired in between (a reading's time is its probe's
    // send time, hence the slack).
    const bool lived = before.isOk() && (before.pttlMs == -1 || before.pttlMs > elapsed + 100);
    if (before.isOk() && after.status == Reading::Status::Missing) {
        t.deleted = t.deletedSinceRead || (lived && !t.expiredSinceRead);
        return;
    }
    if (!after.isOk() || LockData::of(after).tokenTruncated)
        return;
    // The first pair, or one after a new value: a write event heard now
    // may be the one that wrote the value the earlier reading showed (it
    // travels on another connection than the reading's reply).
    const bool justWritten = std::exchange(t.valueJustWritten, false) || t.steps == 0;
    if (before.status == Reading::Status::Missing) {
        if (t.deleted)
            t.confirm(QStringLiteral("deleted before its TTL ran out, then taken again with a new "
                                     "token"));
        t.deleted = false;
        t.valueJustWritten = true;
        return;
    }
    if (!before.isOk())
        return;
    if (LockData::of(before).token == LockData::of(after).token) {
        // The same value: the same holder (extending its TTL is what a holder
        // does), or, with keyspace events live, a holder that writes one
        // name for all released it and took it again, or a writer that sets
        // the key again while it lives (a cache's refresh; a holder extends
        // with PEXPIRE, which leaves the value).
        // A deletion heard by now may have come after the later reading (a
        // release and a new holder right after it, whose events arrived
        // before the reading's reply): it stands for the next pair too.
        t.deleted = t.eventsLive && t.deletedSinceRead;
        if (!t.eventsLive)
            return;
        if (t.deletedSinceRead)
            t.confirm(QStringLiteral("deleted and taken again (every holder writes the same "
                                     "value)"));
        else if (t.writtenSinceRead && !t.expiredSinceRead && !justWritten)
            t.argue(QStringLiteral("its value was written again in place while its key lived"),
                    true);
        return;
    }
    t.valueJustWritten = true;
    if (t.deletedSinceRead || t.deleted) {
        t.confirm(QStringLiteral("deleted and re-created with a new token"));
    } else if (lived && !t.expiredSinceRead) {
        // Polled, a release and a new holder between two readings look the
        // same; with keyspace events live, no deletion came between: certain,
        // once the next reading shows no deletion's event arrived late.
        if (t.eventsLive)
            t.overwriteUnheard = true;
        else
            t.argue(QStringLiteral("its value was overwritten in place while its key lived"));
    }
    t.deleted = false;
}

QList<PatternUnit::Command> LockUnit::probe(const PatternObject &o, const ProbeContext &) const
{
    return {{"GETRANGE", o.key, "0", number(MaxTokenBytes)}, {"PTTL", o.key}};
}

Reading LockUnit::readValueAndTtl(const PatternObject &o, const QList<RedisValue> &r, qint64 nowMs)
{
    if (auto f = failure(o, r, {o.key, o.key}, nowMs)) {
        // PTTL answers for any type: a key of another type is there, not gone.
        if (r.size() > 1 && r.at(1).isInteger())
            f->pttlMs = r.at(1).toInteger();
        return *f;
    }
    Reading reading;
    reading.atMs = nowMs;
    reading.pttlMs = r.at(1).toInteger();
    if (reading.pttlMs == -2) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Free: nobody holds the lock.");
        return reading;
    }
    LockData::in(reading).token = r.at(0).bytes();
    return reading;
}

Reading LockUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                       const ProbeContext &c) const
{
    Reading reading = readValueAndTtl(o, r, c.nowMs);
    if (!reading.isOk())
        return reading;
    if (LockData &lock = LockData::in(reading); lock.token.size() > MaxTokenBytes) {
        lock.token.truncate(MaxTokenBytes);
        lock.tokenTruncated = true;
        reading.message = QStringLiteral("The value is longer than %1 bytes; it is not a lock "
                                         "token Gatehouse can compare.")
                              .arg(MaxTokenBytes);
    } else if (reading.pttlMs == -1) {
        reading.message = QStringLiteral("The lock has no TTL: if its holder crashed it is "
                                         "held forever.");
    }
    return reading;
}

qint64 LockUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    // Free (taking it is an event), or held without a TTL.
    if (r.status == Reading::Status::Missing || (r.isOk() && r.pttlMs == -1))
        return Reading::Forever;
    if (!r.isOk())
        return r.atMs;
    return saturatingAdd(r.atMs, r.pttlMs); // due to expire: confirm, the expired event may lag
}

ScriptCall LockUnit::forceRelease(const PatternObject &o, const QByteArray &shownToken)
{
    ScriptCall call;
    call.action = QStringLiteral("lock.force-release");
    call.script = QStringLiteral("lock_release");
    call.keys = {o.key};
    call.args = {shownToken, QByteArray::number(ScriptCall::ReplyCutBytes), QByteArray()};
    call.keyRoles = {QStringLiteral("lock")};
    call.forceable = true;
    call.forceArg = 2;
    call.summary = QStringLiteral("Delete lock \"%1\" only if it still holds token \"%2\".")
                       .arg(printableBytes(o.key), printableBytes(shownToken, 80));
    const QString key = printableBytes(o.key);
    call.meaning = [key](const RedisValue &reply) {
        return reply.isInteger() && reply.toInteger() == 1
                   ? ReplyMeaning{true, QStringLiteral("Released lock \"%1\".").arg(key)}
                   : notHeld(key, reply);
    };
    return call;
}

ScriptCall LockUnit::extend(const PatternObject &o, const QByteArray &shownToken, qint64 ttlMs)
{
    ScriptCall call;
    call.action = QStringLiteral("lock.extend");
    call.script = QStringLiteral("lock_extend");
    call.keys = {o.key};
    call.args
        = {shownToken, QByteArray::number(ttlMs), QByteArray::number(ScriptCall::ReplyCutBytes)};
    call.keyRoles = {QStringLiteral("lock")};
    call.summary = QStringLiteral("Set lock \"%1\" to expire in %2 ms, only if it still holds "
                                  "token \"%3\".")
                       .arg(printableBytes(o.key))
                       .arg(ttlMs)
                       .arg(printableBytes(shownToken, 80));
    const QString key = printableBytes(o.key);
    call.meaning = [key, ttlMs](const RedisValue &reply) {
        return reply.isInteger() && reply.toInteger() == 1
                   ? ReplyMeaning{true, QStringLiteral("Extended lock \"%1\" to %2 ms.")
                                            .arg(key)
                                            .arg(ttlMs)}
                   : notHeld(key, reply);
    };
    return call;
}

Section LockUnit::section() const
{
    return sections::lock();
}

void LockUnit::track(TrackState &t, const Reading &reading, qint64 nowMs) const
{
    trackHolder(t, reading.isOk() ? LockData::of(reading).token : QByteArray(), nowMs);
}

QList<Figure> LockUnit::figures() const
{
    return {
        {QStringLiteral("pttlMs"), QStringLiteral("TTL"), true, [](const Reading &r, qint64 at) {
             return double(r.countdownAt(r.pttlMs, at));
         }}};
}

QList<AlertFigure> LockUnit::alertFigures() const
{
    return PatternUnit::alertFigures() << AlertFigure::heldFor(
               [this](const ObjectState &s) { return !holderToken(s).isEmpty(); });
}

QString LockUnit::ttlText(const ObjectState &s, qint64 now) const
{
    const Reading &r = s.reading;
    if (r.pttlMs < 0)
        return r.pttlMs == -1 ? QStringLiteral("none") : QStringLiteral("–");
    return formatMs(r.countdownAt(r.pttlMs, now)); // counting down from the last reading
}

QList<Column> LockUnit::columns() const
{
    Column token;
    token.header = QStringLiteral("Holder token");
    token.text = [](const ObjectState &s, qint64) -> QString {
        return printableBytes(LockData::of(s.reading).token, 64);
    };
    Column ttl;
    ttl.header = QStringLiteral("TTL");
    ttl.movesWithTime = true;
    ttl.text = [this](const ObjectState &s, qint64 now) -> QString {
        return ttlText(s, now);
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
    return {Column::key(QStringLiteral("Key")), token, ttl, held, Column::status()};
}

void LockUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs, QJsonObject &j) const
{
    j.insert(QStringLiteral("token"), keyToJson(LockData::of(r).token));
    j.insert(QStringLiteral("pttlMs"), double(r.pttlMs));
    j.insert(QStringLiteral("heldForMs"),
             s.heldSinceMs >= 0 ? QJsonValue(double(nowMs - s.heldSinceMs)) : QJsonValue());
}

QHash<QString, QByteArray> LockUnit::shownInputs(const ObjectState &s) const
{
    if (!s.reading.isOk())
        return {};
    return {{QStringLiteral("token"), LockData::of(s.reading).token}};
}

QByteArray LockUnit::holderToken(const ObjectState &s) const
{
    return LockData::of(s.reading).token;
}

QList<PatternAction> LockUnit::actions() const
{
    const ActionInput token{QStringLiteral("token"), QStringLiteral("Holder token"),
                            ActionInput::Source::Shown};
    PatternAction release;
    release.id = QStringLiteral("lock.force-release");
    release.verb = QStringLiteral("release");
    release.label = QStringLiteral("Force release…");
    release.objectName = QStringLiteral("forceReleaseButton");
    release.usage = QStringLiteral("lock release KEY --token T");
    release.inputs = {token};
    release.check = [](const ActionRequest &r) -> QString {
        return r.input(QStringLiteral("token")).isEmpty()
                   ? QStringLiteral("lock release needs --token T: the token you saw holding "
                                    "the lock.")
                   : QString();
    };
    release.build = [](const ActionRequest &r) {
        return forceRelease(r.object, r.input(QStringLiteral("token")));
    };

    PatternAction extendAction;
    extendAction.id = QStringLiteral("lock.extend");
    extendAction.verb = QStringLiteral("extend");
    extendAction.label = QStringLiteral("Extend…");
    extendAction.objectName = QStringLiteral("extendButton");
    extendAction.usage = QStringLiteral("lock extend KEY --token T --ttl MS");
    ActionInput ttl{QStringLiteral("ttl"), QStringLiteral("Time to live (ms)")};
    ttl.integer = true;
    extendAction.inputs = {token, ttl};
    extendAction.check = [](const ActionRequest &r) -> QString {
        const qint64 ms = r.integer(QStringLiteral("ttl"));
        if (r.input(QStringLiteral("token")).isEmpty() || !r.has(QStringLiteral("ttl")))
            return QStringLiteral("lock extend needs --token T and --ttl MS (> 0).");
        if (ms <= 0)
            return QStringLiteral("lock extend --ttl is the new time to live in ms, more than 0 "
                                  "and at most %1 (7 days); got %2.")
                .arg(MaxExtendMs)
                .arg(ms);
        if (ms > MaxExtendMs)
            return QStringLiteral("lock extend --ttl is at most %1 ms (7 days); got %2.")
                .arg(MaxExtendMs)
                .arg(ms);
        return QString();
    };
    extendAction.build = [](const ActionRequest &r) {
        return extend(r.object, r.input(QStringLiteral("token")), r.integer(QStringLiteral("ttl")));
    };
    return {release, extendAction};
}

std::optional<Attention> LockUnit::attention(const ObjectState &state, qint64 nowMs) const
{
    if (state.gone || !state.reading.isOk())
        return std::nullopt;
    const bool known = state.heldSinceMs >= 0;
    const qint64 held = saturatingSub(nowMs, known ? state.heldSinceMs : state.firstSeenMs);
    // Locks held briefly are routine churn (a request's length): listing
    // them would bury the ones that are stuck. A legacy lock past the expiry
    // in its value is always listed: its holder crashed.
    const bool expired = LockData::of(state.reading).expiresAtMs > 0
                         && LockData::of(state.reading).expiresAtMs < nowMs;
    if (held < RoutineHoldMs && !expired)
        return std::nullopt;
    // The longest held first among locks.
    return Attention{1.0 + double(held) / 1e9, QStringLiteral("pttlMs"), true};
}

namespace {

// A lock's states: held with a TTL (ok), held without one (orphaned if its
// holder died), free; the rest as every pattern's.
[[maybe_unused]] const bool s_judged = registerJudgement(
    LockUnit::Kind,
    {[](const ObjectState &s, qint64 nowMs) {
         const ObjectHealth h = defaultHealth(s, nowMs);
         if (h.id == states::Ok && s.reading.pttlMs == -1)
             return ObjectHealth{states::Orphaned,
                                 QStringLiteral("no TTL: held forever if its holder crashed"),
                                 Severity::Warning};
         if (h.id == states::Missing)
             return ObjectHealth{states::Missing, QStringLiteral("free"), Severity::Muted};
         return h;
     },
     [] {
         return QList<StateInfo>{
             {states::Ok, Severity::Ok, QStringLiteral("Held, with a TTL.")},
             {states::Orphaned, Severity::Warning,
              QStringLiteral("Held without a TTL: if its holder crashed nobody releases it.")},
             {states::Stale, Severity::Warning,
              QStringLiteral("The server has not answered: the last reading is shown.")},
             {states::Gone, Severity::Muted, QStringLiteral("Released or expired.")},
             {states::Missing, Severity::Muted, QStringLiteral("Free: nobody holds it.")},
             {states::Error, Severity::Critical,
              QStringLiteral("The key has the wrong type or a probe failed.")},
         };
     },
     {},
     {}});

} // namespace

QString LockUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    // A lock whose pattern judges it expired (a SETNX lock's expiry passed)
    // says so, not how long it has been "held".
    if (const ObjectHealth h = objectHealth(state, nowMs); h.id == states::ExpiredPresent)
        return QStringLiteral("Lock %1 %2").arg(printableBytes(state.object->key), h.words);
    const bool known = state.heldSinceMs >= 0;
    const qint64 held = saturatingSub(nowMs, known ? state.heldSinceMs : state.firstSeenMs);
    return QStringLiteral("Lock %1 held for %2")
        .arg(printableBytes(state.object->key),
             known ? formatMs(held) : formatAgeSinceWatching(held));
}

namespace {

// Whether key has needle (lower case) at i, in any case.
bool hasAt(const QByteArray &key, qsizetype i, const char *needle)
{
    for (; *needle; ++needle, ++i) {
        if (i >= key.size() || (key.at(i) | 0x20) != *needle)
            return false;
    }
    return true;
}

// Words that name a lock in a key ("lock:order:7", "job_lock:7",
// "leader:scheduler", "lease:shard:3"): whole words of the family's literal
// parts, so "blocklist", "clock" and "lockout" are not.
bool hasLockWord(const QByteArray &key)
{
    // Most keys have none of the letters: no allocation, no familyOf().
    bool letters = false;
    for (qsizetype i = 0; i < key.size() && !letters; ++i) {
        const char c = char(key.at(i) | 0x20);
        letters = (c == 'l'
                   && (hasAt(key, i, "lock") || hasAt(key, i, "lea") || hasAt(key, i, "latch")))
                  || (c == 'm' && hasAt(key, i, "mutex"));
    }
    if (!letters)
        return false;
    static const QList<QByteArray> s_words{"lock",  "locks",  "mutex",  "mutexes",
                                           "lease", "leases", "leader", "latch"};
    const QList<QByteArray> words = familyWords(familyOf(key));
    return std::any_of(words.cbegin(), words.cend(),
                       [](const QByteArray &w) { return s_words.contains(w); });
}

// "host-3:4121", "4121@host", "worker.7:4121:12": a name and a number joined
// by ':' or '@' (a process id, a thread).
bool isProcessIdentity(const QByteArray &v)
{
    if (v.size() < 3 || v.size() > 128 || (!v.contains(':') && !v.contains('@')))
        return false;
    bool number = false;
    bool name = false;
    for (const QByteArray &part : v.split(v.contains('@') ? '@' : ':')) {
        if (part.isEmpty())
            return false;
        for (char c : part) {
            const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')
                            || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' || c == '.'
                            || c == ':';
            if (!ok)
                return false;
        }
        if (isInteger(part))
            number = true;
        else
            name = true;
    }
    return number && name;
}

} // namespace

QString LockUnit::holderShape(const QByteArray &head)
{
    // head is GETRANGE 0 63: a longer value is cut (JSON is judged by its start).
    if (head.isEmpty())
        return {};
    if (segmentClass(head) == "uuid")
        return QStringLiteral("a UUID");
    if (isInteger(head))
        return QStringLiteral("an integer");
    if (head.startsWith('{') && head.contains('"') && (head.endsWith('}') || head.size() >= 64))
        return QStringLiteral("JSON");
    if (isProcessIdentity(head))
        return QStringLiteral("a process identity (host:pid)");
    if (looksRandom(head))
        return QStringLiteral("a random token");
    if (head.size() >= 64)
        return {}; // a long value (text, a document): a cache's
    for (char ch : head) {
        const auto c = static_cast<unsigned char>(ch);
        if (c <= ' ' || c >= 0x7f || c == '<' || c == '"')
            return {}; // text, markup, bytes: not a name a holder writes
    }
    return QStringLiteral("a short token");
}

std::optional<KeyClaim> LockUnit::claimKey(const KeyShape &s, qint64) const
{
    if (s.type != "string" || s.pttlMs <= 0)
        return std::nullopt;
    // A random-looking token that expires: SET key token NX PX ttl. Named
    // like a lock, it beats a token family's claim; otherwise a family wins.
    if (!isInteger(s.head) && looksRandom(s.head))
        return KeyClaim{QStringLiteral("holder-token"), namedLikeLock(s.key) ? 30 : 10};
    // Any value a holder writes (a process identity, an integer, a UUID,
    // JSON, a word) under a lock's name, expiring within a day: SET NX PX
    // by a holder whose token is not random. Stronger than a counter's claim
    // (an integer), weaker than a legacy lock's (an expiry time as value).
    if (s.pttlMs <= MaxNamedTtlMs && hasLockWord(s.key) && !holderShape(s.head).isEmpty())
        return KeyClaim{QString::fromLatin1(NamedHolder), 25};
    return std::nullopt;
}

QList<PatternObject> LockUnit::groupClaims(ClaimPool &pool) const
{
    QList<PatternObject> out = eachWonKey(pool);
    // The values of a family of named locks: different between holders, or
    // one name every holder writes. Noted on each instance (Evidence::Family)
    // for familyEvidence(); at most DistinctValues counted per family.
    constexpr qsizetype DistinctValues = 64;
    struct Values
    {
        qint64 keys = 0;
        QSet<QByteArray> distinct;
        QList<Evidence> noted;
    };
    QHash<QByteArray, Values> byFamily;
    for (const PatternObject &o : std::as_const(out)) {
        const ClaimPool::Entry *e = pool.find(o.key);
        if (!e || pool.roleOf(o.key, kind()) != QLatin1String(NamedHolder))
            continue;
        Values &v = byFamily[e->family];
        ++v.keys;
        if (v.distinct.size() < DistinctValues)
            v.distinct.insert(e->shape.head);
    }
    if (byFamily.isEmpty())
        return out;
    for (auto it = byFamily.begin(); it != byFamily.end(); ++it) {
        Values &v = *it;
        if (v.keys < 2)
            continue;
        const QString name = printableBytes(it.key(), 60);
        if (v.distinct.size() > 1)
            v.noted = {{Evidence::Kind::Family, 1,
                        QStringLiteral("%1%2 different values among the %3 keys named %4: each "
                                       "holder writes its own")
                            .arg(v.distinct.size() >= DistinctValues ? QStringLiteral("at least ")
                                                                     : QString())
                            .arg(v.distinct.size())
                            .arg(v.keys)
                            .arg(name)}};
        else
            v.noted = {{Evidence::Kind::Family, 0,
                        QStringLiteral("every one of the %1 keys named %2 holds \"%3\": one "
                                       "name all holders write (the key, not the value, is the "
                                       "lock)")
                            .arg(v.keys)
                            .arg(name, printableBytes(*v.distinct.cbegin(), 40))}};
    }
    for (PatternObject &o : out) {
        const ClaimPool::Entry *e = pool.find(o.key);
        const auto v = e ? byFamily.constFind(e->family) : byFamily.cend();
        if (v != byFamily.cend() && pool.roleOf(o.key, kind()) == QLatin1String(NamedHolder))
            o.evidence = v->noted;
    }
    return out;
}

QList<QByteArray> LockUnit::wordsFor() const
{
    return {"lock", "locks", "mutex", "lease", "leader", "latch", "guard", "exclusive"};
}

QList<Evidence> LockUnit::structureEvidence(const PatternObject &o, const ClaimPool &pool) const
{
    const ClaimPool::Entry *e = pool.find(o.key);
    if (!e)
        return {};
    const KeyShape &s = e->shape;
    const QString role = pool.roleOf(o.key, kind());
    if (role == QLatin1String("holder-token"))
        return {{Evidence::Kind::Structure, 3,
                 QStringLiteral("holds a random token (%1 bytes, not a number or a date) and "
                                "expires in %2 s: SET NX PX")
                     .arg(s.head.size())
                     .arg(double(s.pttlMs) / 1000.0, 0, 'f', 1)}};
    if (role == QLatin1String(NamedHolder))
        // The value alone says little (a cache holds integers and JSON too):
        // the name (judge()) and the family's values weigh with it.
        return {{Evidence::Kind::Structure, 1,
                 QStringLiteral("holds %1, a value a lock's holder writes, and expires in %2 s: "
                                "SET NX PX")
                     .arg(holderShape(s.head))
                     .arg(double(s.pttlMs) / 1000.0, 0, 'f', 1)}};
    return PatternUnit::structureEvidence(o, pool);
}

QList<Evidence> LockUnit::familyEvidence(const PatternObject &o, const ClaimPool &pool) const
{
    QList<Evidence> out = PatternUnit::familyEvidence(o, pool);
    for (const Evidence &e : o.evidence) {
        if (e.kind == Evidence::Kind::Family)
            out.append(e); // groupClaims' note on the family's values
    }
    return out;
}

std::unique_ptr<DemoTraffic> LockUnit::demoTraffic(quint32 seed) const
{
    return std::make_unique<LockDemo>(seed);
}

} // namespace gatehouse
