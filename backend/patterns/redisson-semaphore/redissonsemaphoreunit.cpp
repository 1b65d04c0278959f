// SPDX-License-Identifier: MIT
#include "redissonsemaphoreunit.h"

#include <patterns/globmatch.h>
#include <patterns/keyclassifier.h>
#include <patterns/limiters.h>
#include <patterns/redissonnames.h>

#include <QDateTime>
#include <QJsonArray>

#include <algorithm>

namespace gatehouse {

namespace {

// What a Redisson semaphore's reading holds beyond the shared figures: the
// permits its key says are free (negative when more were acquired than set).
struct PermitData : PatternData
{
    qint64 available = 0;
    PatternData *clone() const override { return new PermitData(*this); }
};

qint64 available(const Reading &r)
{
    return r.data<PermitData>().available;
}
QString leaseText(qint64 endMs)
{
    if (endMs < 0 || endMs >= RedissonSemaphoreUnit::NoLease)
        return QStringLiteral("no lease");
    return QDateTime::fromMSecsSinceEpoch(endMs).toUTC().toString(QStringLiteral("HH:mm:ss.zzz"));
}

// A plain RSemaphore's permits as Redisson writes them (RedissonSemaphore's
// trySetPermits / addPermits / release: SET and INCRBY of a number): the
// whole value a decimal integer.
bool isPermitCount(const QByteArray &head)
{
    if (head.isEmpty() || head.size() > 19)
        return false;
    const qsizetype digits = head.startsWith('-') ? 1 : 0;
    return head.size() > digits && std::all_of(head.cbegin() + digits, head.cend(), [](char c) {
               return c >= '0' && c <= '9';
           });
}

// A word of a key's name that says semaphore: one holding "semaphore"
// ("mySemaphore", "semaphores"), the word "sema", or one of "permits"
// ("availablePermits"). "semantic", "permit:<id>" are not.
bool semaphoreWord(const QList<QByteArray> &words)
{
    return std::any_of(words.cbegin(), words.cend(), [](const QByteArray &w) {
        return w.contains("semaphore") || w == "sema" || w == "semas" || w.startsWith("permits")
               || w.endsWith("permits");
    });
}

bool isHex(const QByteArray &s)
{
    return !s.isEmpty() && s.size() % 2 == 0 && std::all_of(s.cbegin(), s.cend(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    });
}
} // namespace

QByteArray RedissonSemaphoreUnit::timeoutKey(const QByteArray &name)
{
    return redisson::suffixName(name, "timeout");
}

QByteArray RedissonSemaphoreUnit::channel(const QByteArray &name)
{
    return redisson::prefixName("redisson_sc", name);
}

PatternObject RedissonSemaphoreUnit::objectForName(const QByteArray &name)
{
    PatternObject o;
    o.kind = Kind;
    o.key = name;
    o.related = {timeoutKey(name)};
    return o;
}

Section RedissonSemaphoreUnit::section() const
{
    // Shared with the sorted-set semaphore (sorted-set-semaphore/semaphoreunit.cpp).
    return {QStringLiteral("semaphore"), QStringLiteral("semaphores"), QStringLiteral("Semaphores"),
            QStringLiteral("semaphore")};
}

QList<PatternUnit::Command> RedissonSemaphoreUnit::identifyProbe(const QByteArray &target) const
{
    // Commands that answer for any type (a wrong-type error would stop the
    // CLI before the sorted-set semaphore is asked); OBJECT ENCODING is "int"
    // for a STRING holding a number, as Redisson's permits are.
    return {{"TYPE", target}, {"OBJECT", "ENCODING", target}, {"TYPE", timeoutKey(target)}};
}

bool RedissonSemaphoreUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    // Its permits ZSET, or a number of permits (a plain RSemaphore); any
    // other STRING is no semaphore of Redisson's.
    return r.size() == 3
           && (r.at(2).bytes() == "zset"
               || (r.at(0).bytes() == "string" && r.at(1).bytes() == "int"));
}

QList<QByteArray> RedissonSemaphoreUnit::scanGlobs(const ProfileRule &rule) const
{
    return {rule.match, timeoutKey(rule.match)};
}

std::optional<PatternObject> RedissonSemaphoreUnit::objectFor(const ProfileRule &rule,
                                                              const QByteArray &key) const
{
    QByteArray name = redisson::nameOfSuffixed(key, "timeout");
    if (name.isEmpty())
        name = key;
    if (!globMatch(rule.match, name) || rule.excludes(name))
        return std::nullopt;
    PatternObject o = objectForName(name);
    o.params = rule.params;
    return o;
}

PatternObject RedissonSemaphoreUnit::conventionalObject(const QByteArray &key) const
{
    const QByteArray name = redisson::nameOfSuffixed(key, "timeout");
    return objectForName(name.isEmpty() ? key : name);
}

std::optional<KeyClaim> RedissonSemaphoreUnit::claimKey(const KeyShape &s, qint64) const
{
    // A plain RSemaphore: an integer STRING like any counter, claimed only
    // when a word of its name says semaphore and none says ordinary data
    // (stats, views, ...) or a day (a dated counter). Its channel
    // redisson_sc:{name} is no key: the name is all there is.
    if (s.type == "string") {
        if (!isPermitCount(s.head))
            return std::nullopt;
        const QByteArray family = familyOf(s.key);
        const QList<QByteArray> words = familyWords(family);
        // A limiter word too (throttle:permits:7) says a limiter's counter:
        // the fixed window's reading, not a semaphore's.
        if (!semaphoreWord(words) || !matchWord(words, ordinaryWords()).isEmpty()
            || !matchWord(words, LimiterUnit::nameWords()).isEmpty() || familyHasDate(family))
            return std::nullopt;
        return KeyClaim{QString::fromLatin1(PlainRole), PlainStrength};
    }
    // "{name}:timeout" scored by lease ends in ms (or Redisson's "no lease"
    // score): its permits. The permits STRING of it is taken with its ZSET.
    if (s.type != "zset" || redisson::nameOfSuffixed(s.key, "timeout").isEmpty())
        return std::nullopt;
    const auto isLeaseEnd = [](double score) {
        return score == double(NoLease) || (score > 1e12 && score < 1e14);
    };
    if (s.size > 0 && (!isLeaseEnd(s.firstScore) || !isLeaseEnd(s.lastScore)))
        return std::nullopt;
    return KeyClaim{QStringLiteral("permits"), 90};
}

QList<PatternObject> RedissonSemaphoreUnit::groupClaims(ClaimPool &pool) const
{
    QList<PatternObject> out;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (pool.roleOf(key, Kind) != QLatin1String("permits"))
            continue;
        PatternObject o = objectForName(redisson::nameOfSuffixed(key, "timeout"));
        o.source = QStringLiteral("autodetected");
        for (const QByteArray &k : o.keys())
            pool.take(k);
        out.append(o);
    }
    // Plain RSemaphores: the integer STRINGs claimed by name that no
    // expirable semaphore took above and no stronger claim wants.
    for (const QByteArray &key : pool.claimed(Kind, PlainStrength)) {
        if (pool.roleOf(key, Kind) != QLatin1String(PlainRole) || !pool.take(key))
            continue;
        PatternObject o = objectForName(key);
        o.source = QStringLiteral("autodetected");
        out.append(o);
    }
    return out;
}

QList<QByteArray> RedissonSemaphoreUnit::wordsFor() const
{
    return {"semaphore", "sema", "permits"};
}

QList<Evidence> RedissonSemaphoreUnit::structureEvidence(const PatternObject &o,
                                                         const ClaimPool &pool) const
{
    const ClaimPool::Entry *e = pool.find(o.key);
    if (!e || pool.roleOf(o.key, Kind) != QLatin1String(PlainRole)
        || pool.roleOf(timeoutKey(o.key), Kind) == QLatin1String("permits"))
        return PatternUnit::structureEvidence(o, pool); // its timeout ZSET: Redisson's layout
    // A plain one: an integer STRING is any counter's shape; with no TTL (a
    // semaphore's permits never expire in Redisson) it is a fair guess that
    // its name decides (wordsFor: +2, shown); with a TTL, a counter of a
    // window as likely (a candidate).
    if (e->shape.pttlMs < 0)
        return {{Evidence::Kind::Structure, 2,
                 QStringLiteral("%1 is an integer STRING with no TTL, as a plain RSemaphore's "
                                "permits are (its channel redisson_sc:{name} is no key)")
                     .arg(printableBytes(o.key, 60))}};
    return {{Evidence::Kind::Structure, 0,
             QStringLiteral("%1 is an integer STRING, but with a TTL: Redisson sets none on a "
                            "semaphore's permits, a window's counter has one")
                 .arg(printableBytes(o.key, 60))}};
}

QList<PatternUnit::Command> RedissonSemaphoreUnit::probe(const PatternObject &o,
                                                         const ProbeContext &c) const
{
    const QByteArray t = o.relatedKey(0);
    return {
        {"GETRANGE", o.key, "0", "31"},
        {"PTTL", o.key},
        {"ZCARD", t},
        // Expired as Redisson counts them: zrangebyscore 0 now.
        {"ZCOUNT", t, "0", number(c.nowMs)},
        {"ZRANGE", t, "0", number(std::max(1, o.params.pageSize) - 1), "WITHSCORES"},
    };
}

Reading RedissonSemaphoreUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                                    const ProbeContext &c) const
{
    const QByteArray t = o.relatedKey(0);
    if (auto f = failure(o, r, {o.key, o.key, t, t, t}, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    reading.pttlMs = r.at(1).toInteger();
    reading.editQueue().inFlight = r.at(2).toInteger();
    reading.editQueue().stuck = r.at(3).toInteger();
    if (reading.pttlMs == -2 && reading.queue().inFlight == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No permits set (trySetPermits was never called, or "
                                         "the semaphore was deleted).");
        return reading;
    }
    const QByteArray value = r.at(0).bytes();
    bool ok = value.isEmpty();
    const qint64 permits = value.isEmpty() ? 0 : value.toLongLong(&ok);
    if (!ok) {
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("\"%1\" holds \"%2\", not a number of permits: not a "
                                         "Redisson semaphore.")
                              .arg(printableBytes(o.key), printableBytes(value, 40));
        return reading;
    }
    const RedisValue &page = r.at(4);
    for (qsizetype i = 0; i + 1 < page.size(); i += 2) {
        InFlightItem permit;
        permit.job = page.at(i).bytes().toHex();
        const qint64 end = redisson::scoreMs(page.at(i + 1).bytes());
        permit.attempts = end >= NoLease ? -1 : end;
        permit.ageMs = -1;
        permit.source = AgeSource::Library;
        permit.locked = permit.attempts < 0 || permit.attempts > c.nowMs;
        if (!permit.locked)
            reading.editLibrary().stuckJobs.append(
                {permit.job,
                 QStringLiteral("lease ended; Redisson gives the permit "
                                "back at the next acquire"),
                 permit.attempts});
        reading.editQueue().items.append(permit);
    }
    reading.editQueue().truncated = reading.queue().inFlight > reading.queue().items.size();
    reading.inWindow = reading.queue().inFlight;
    reading.edit<PermitData>().available = permits;
    reading.limit = saturatingAdd(permits, reading.queue().inFlight);
    reading.editLibrary().counts = {{QStringLiteral("available"), permits},
                                    {QStringLiteral("acquired"), reading.queue().inFlight},
                                    {QStringLiteral("expired"), reading.queue().stuck}};
    if (permits < 0)
        reading.message = QStringLiteral("Fewer than zero permits: more were acquired than set.");
    return reading;
}

qint64 RedissonSemaphoreUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    if (r.status == Reading::Status::Missing)
        return Reading::Forever;
    if (!r.isOk())
        return r.atMs;
    // The next lease to end turns a permit expired.
    qint64 until = r.pttlMs > 0 ? saturatingAdd(r.atMs, r.pttlMs) : Reading::Forever;
    for (const InFlightItem &p : r.queue().items) {
        if (p.attempts > r.atMs)
            until = std::min(until, p.attempts);
    }
    return r.queue().truncated ? r.atMs : until;
}

QList<Figure> RedissonSemaphoreUnit::figures() const
{
    return {
        {QStringLiteral("available"), QStringLiteral("Available"), false,
         [](const Reading &r, qint64) {
             return double(available(r));
         }},
        {QStringLiteral("acquired"), QStringLiteral("Acquired"), false,
         [](const Reading &r, qint64) {
             return double(r.queue().inFlight);
         }},
        {QStringLiteral("expired"), QStringLiteral("Expired"), false, [](const Reading &r, qint64) {
             return double(r.queue().stuck);
         }}};
}

QList<Column> RedissonSemaphoreUnit::columns() const
{
    Column expired;
    expired.header = QStringLiteral("Expired");
    expired.toolTip = QStringLiteral("Permits whose lease ended: Redisson gives them back at "
                                     "the next acquire.");
    expired.text = [](const ObjectState &s, qint64) -> QString {
        return QString::number(s.reading.queue().stuck);
    };
    expired.sort = [](const ObjectState &s, qint64) {
        return QVariant(double(s.reading.queue().stuck));
    };
    return {Column::key(QStringLiteral("Key")),
            Column::usedOfLimit(QStringLiteral("Holders / limit")),
            Column::occupancy(),
            expired,
            Column::library(QStringLiteral("redisson")),
            Column::counts(),
            Column::status()};
}

void RedissonSemaphoreUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                                      QJsonObject &j) const
{
    j.insert(QStringLiteral("keys"), keysToJson(s.object->related));
    j.insert(QStringLiteral("redissonType"), r.queue().inFlight > 0
                                                 ? QStringLiteral("RPermitExpirableSemaphore")
                                                 : QStringLiteral("RSemaphore"));
    j.insert(QStringLiteral("available"), double(available(r)));
    j.insert(QStringLiteral("acquired"), double(r.queue().inFlight));
    j.insert(QStringLiteral("expired"), double(r.queue().stuck));
    j.insert(QStringLiteral("pttlMs"), double(r.pttlMs));
    j.insert(QStringLiteral("truncated"), r.queue().truncated);
    QJsonArray permits;
    for (const InFlightItem &p : r.queue().items) {
        permits.append(QJsonObject{
            {QStringLiteral("permit"), QString::fromLatin1(p.job)},
            {QStringLiteral("leaseEndsAtMs"),
             p.attempts < 0 ? QJsonValue() : QJsonValue(double(p.attempts))},
            {QStringLiteral("leaseLeftMs"),
             p.attempts < 0
                 ? QJsonValue()
                 : QJsonValue(double(std::max<qint64>(0, saturatingSub(p.attempts, nowMs))))},
            {QStringLiteral("expired"), p.attempts >= 0 && p.attempts <= nowMs}});
    }
    j.insert(QStringLiteral("permits"), permits);
}

QStringList RedissonSemaphoreUnit::itemHeaders() const
{
    // The section's (the sorted-set semaphore's) headers come first; these
    // fill the same columns.
    return {QStringLiteral("Holder"), QStringLiteral("Held for"), QStringLiteral("Acquired at"),
            QStringLiteral("State")};
}

QList<QStringList> RedissonSemaphoreUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &p : s.reading.queue().items) {
        const bool expired = p.attempts >= 0 && p.attempts <= nowMs;
        rows.append({QString::fromLatin1(p.job), QStringLiteral("–"),
                     QStringLiteral("lease ends %1").arg(leaseText(p.attempts)),
                     expired ? QStringLiteral("expired") : QStringLiteral("holding")});
    }
    return rows;
}

QHash<QString, QByteArray> RedissonSemaphoreUnit::itemInputs(const ObjectState &s, int i) const
{
    if (i < 0 || i >= s.reading.queue().items.size())
        return {};
    return {{QStringLiteral("holder"), s.reading.queue().items.at(i).job}};
}

std::optional<Attention> RedissonSemaphoreUnit::attention(const ObjectState &state, qint64) const
{
    if (state.gone || !state.reading.isOk() || state.reading.queue().stuck <= 0)
        return std::nullopt;
    // Expired permits are capacity nobody can use until a client acquires.
    return Attention{1.0 + double(std::min<qint64>(state.reading.queue().stuck, 999)) / 1000.0,
                     QStringLiteral("expired")};
}

QString RedissonSemaphoreUnit::attentionText(const ObjectState &state, qint64) const
{
    return QStringLiteral("Redisson semaphore %1: %2 permits expired, %3 available")
        .arg(printableBytes(state.object->key))
        .arg(state.reading.queue().stuck)
        .arg(available(state.reading));
}

ScriptCall RedissonSemaphoreUnit::releaseExpired(const PatternObject &o, const QByteArray &hex)
{
    ScriptCall call;
    call.action = QStringLiteral("semaphore.release");
    call.script = QStringLiteral("redisson_release_expired");
    call.keys = {o.key, o.relatedKey(0), channel(o.key)};
    call.keyRoles = {QStringLiteral("Redisson semaphore permits string"),
                     QStringLiteral("its permits' leases zset"), QStringLiteral("its channel")};
    call.args = {QByteArray::fromHex(hex), QByteArray::number(Batch)};
    const QString key = printableBytes(o.key);
    if (!hex.isEmpty()) {
        call.summary = QStringLiteral("Give expired permit %1 back to Redisson semaphore \"%2\" "
                                      "(only if its lease has ended), as Redisson's reclaim of "
                                      "expired permits does.")
                           .arg(QString::fromLatin1(hex), key);
        const QString permit = QString::fromLatin1(hex);
        call.meaning = [key, permit](const RedisValue &v) {
            const qint64 done = v.size() >= 2 ? v.at(1).toInteger() : 0;
            if (done == 1)
                return ReplyMeaning{true, QStringLiteral("Gave expired permit %1 back to "
                                                         "\"%2\": %3 permits available.")
                                              .arg(permit, key)
                                              .arg(v.size() >= 3 ? v.at(2).toInteger() : -1)};
            if (v.size() >= 3 && v.at(2).bytes() == "leased")
                return ReplyMeaning{false, QStringLiteral("Permit %1 of \"%2\" is still leased: "
                                                          "its holder releases it; nothing "
                                                          "changed.")
                                               .arg(permit, key)};
            return ReplyMeaning{false, QStringLiteral("Permit %1 is not acquired from \"%2\" "
                                                      "(released or reclaimed); nothing "
                                                      "changed.")
                                           .arg(permit, key)};
        };
    } else {
        call.summary = QStringLiteral("Give every expired permit back to Redisson semaphore "
                                      "\"%1\", up to %2 per run, as Redisson's reclaim of "
                                      "expired permits does.")
                           .arg(key)
                           .arg(Batch);
        call.batch = Batch;
        call.batchSummary = QStringLiteral("Gave %1 expired permits back.");
        call.meaning = [](const RedisValue &v) {
            const qint64 done = v.size() >= 2 ? v.at(1).toInteger() : 0;
            return done > 0
                       ? ReplyMeaning{true,
                                      QStringLiteral("Gave %1 expired permits back.").arg(done)}
                       : ReplyMeaning{false, QStringLiteral("No permit has expired; nothing "
                                                            "changed.")};
        };
    }
    return call;
}

QList<PatternAction> RedissonSemaphoreUnit::actions() const
{
    PatternAction release;
    release.id = QStringLiteral("semaphore.release");
    release.verb = QStringLiteral("release");
    release.label = QStringLiteral("Release holder…");
    release.objectName = QStringLiteral("releaseHolderButton");
    release.usage = QStringLiteral("semaphore release KEY (--holder PERMIT | --all)");
    ActionInput holder{QStringLiteral("holder"), QStringLiteral("Holder"),
                       ActionInput::Source::Item};
    holder.required = false;
    ActionInput all{QStringLiteral("all"), QStringLiteral("Every expired permit"),
                    ActionInput::Source::Flag};
    all.required = false;
    all.console = false;
    release.inputs = {holder, all};
    release.check = [](const ActionRequest &r) -> QString {
        const QByteArray permit = r.input(QStringLiteral("holder"));
        if (permit.isEmpty() == !r.has(QStringLiteral("all")))
            return QStringLiteral("semaphore release needs either --holder PERMIT (an expired "
                                  "permit's id in hex, as snapshot --json \"permits\" shows "
                                  "it) or --all (every expired permit).");
        if (!permit.isEmpty() && !isHex(permit))
            return QStringLiteral("semaphore release --holder \"%1\" is not a Redisson permit "
                                  "id: give it in hex, as snapshot --json \"permits\" shows it.")
                .arg(printableBytes(permit, 80));
        return QString();
    };
    release.build = [](const ActionRequest &r) {
        return releaseExpired(r.object, r.input(QStringLiteral("holder")));
    };
    return {release};
}

} // namespace gatehouse
