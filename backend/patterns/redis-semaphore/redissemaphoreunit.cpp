// SPDX-License-Identifier: MIT
#include "redissemaphoreunit.h"

#include <patterns/limiterdata.h>

#include <patterns/sorted-set-semaphore/semaphoreunit.h>

#include <QDateTime>
#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

namespace gatehouse {

namespace {

int pageOf(const PatternObject &o)
{
    return std::clamp(o.params.pageSize, 1, 1000);
}

// A member's holder: its identifier, and the permit index of a
// MultiSemaphore member ("<identifier>_<i>"); -1 for a Semaphore holder.
std::pair<QByteArray, int> holderOf(const QByteArray &member)
{
    const qsizetype underscore = member.lastIndexOf('_');
    if (underscore > 0) {
        bool ok = false;
        const int permit = member.mid(underscore + 1).toInt(&ok);
        if (ok && permit >= 0 && RedisSemaphoreUnit::isIdentifier(member.left(underscore)))
            return {member.left(underscore), permit};
    }
    return {member, -1};
}

bool isStale(const Reading &r, const InFlightItem &h)
{
    return LimiterData::of(r).windowMs > 0 && h.ageMs >= LimiterData::of(r).windowMs;
}

// The lock timeout from the key's TTL: the newest holder's acquire or refresh
// set PEXPIRE to it. Its score is the client's clock read before the script
// ran, so PTTL + age exceeds the timeout by that delay: rounded down to 100 ms.
qint64 timeoutFromTtl(qint64 pttlMs, qint64 newestAgeMs)
{
    if (pttlMs <= 0 || newestAgeMs < 0)
        return 0;
    return std::max<qint64>(100, (pttlMs + newestAgeMs) / 100 * 100);
}

QString staleReason(const Reading &r, const InFlightItem &h)
{
    return QStringLiteral("acquired or last refreshed %1 ago, past the lock timeout of %2 (a "
                          "live holder refreshes every %3): its process stopped; "
                          "redis-semaphore prunes it at the next acquire or refresh of any holder")
        .arg(formatMs(h.ageMs), formatMs(LimiterData::of(r).windowMs),
             formatMs(LimiterData::of(r).windowMs * 8 / 10));
}

} // namespace

Section RedisSemaphoreUnit::section() const
{
    // Shared with the sorted-set semaphore (sorted-set-semaphore/semaphoreunit.cpp).
    return SemaphoreUnit().section();
}

bool RedisSemaphoreUnit::isIdentifier(const QByteArray &member)
{
    static const QRegularExpression uuid(
        QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(-[^_]+)?$"));
    return member.size() <= 200 && uuid.match(QString::fromLatin1(member)).hasMatch();
}

QList<PatternUnit::Command> RedisSemaphoreUnit::identifyProbe(const QByteArray &target) const
{
    return {{"TYPE", target}, {"PTTL", target}};
}

bool RedisSemaphoreUnit::identifies(const QByteArray &target,
                                    const QList<RedisValue> &replies) const
{
    return inNamespace(target) && replies.size() >= 2 && replies.at(0).bytes() == "zset"
           && replies.at(1).toInteger() > 0;
}

bool RedisSemaphoreUnit::parseRule(RuleReader &r, const QJsonObject &o, ProfileRule &rule) const
{
    return SemaphoreUnit().parseRule(r, o, rule);
}

void RedisSemaphoreUnit::writeRule(const ProfileRule &r, QJsonObject &o) const
{
    SemaphoreUnit().writeRule(r, o);
}

std::optional<KeyClaim> RedisSemaphoreUnit::claimKey(const KeyShape &s, qint64 now) const
{
    // Its namespace, holders scored by ms times, and the TTL every acquire
    // sets: beats the hand-written semaphore's claim (15) on the same name.
    if (s.type == "zset" && inNamespace(s.key) && s.pttlMs > 0 && s.size > 0
        && nearMs(s.firstScore, now) && nearMs(s.lastScore, now))
        return KeyClaim{QStringLiteral("holders"), 20};
    return std::nullopt;
}

QList<PatternObject> RedisSemaphoreUnit::groupClaims(ClaimPool &pool) const
{
    return eachWonKey(pool);
}

QList<Evidence> RedisSemaphoreUnit::structureEvidence(const PatternObject &,
                                                      const ClaimPool &) const
{
    return {{Evidence::Kind::Structure, 5,
             QStringLiteral("redis-semaphore's own layout: a sorted set under \"semaphore:\" of "
                            "holders scored by their acquire time in ms, with the TTL every "
                            "acquire sets (PEXPIRE to the lock timeout); the holders' "
                            "identifiers are checked at each read")}};
}

QList<PatternUnit::Command> RedisSemaphoreUnit::probe(const PatternObject &o,
                                                      const ProbeContext &) const
{
    return {{"ZCARD", o.key},
            {"PTTL", o.key},
            {"ZRANGE", o.key, "0", number(pageOf(o) - 1), "WITHSCORES"},
            {"ZREVRANGE", o.key, "0", "0", "WITHSCORES"}};
}

Reading RedisSemaphoreUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                                 const ProbeContext &c) const
{
    if (auto f = failure(o, r, {o.key, o.key, o.key, o.key}, c.nowMs))
        return *f;
    Reading reading;
    LimiterData &lim = LimiterData::in(reading);
    reading.atMs = c.nowMs;
    reading.limit = o.params.limit;
    lim.stored = std::max<qint64>(0, r.at(0).toInteger());
    reading.pttlMs = r.at(1).toInteger();
    const QList<qint64> newest = scoresMs(r.at(3), 1);
    const qint64 newestAge = newest.isEmpty() ? -1 : saturatingSub(c.nowMs, newest.first());
    lim.windowMs
        = o.params.windowMs > 0 ? o.params.windowMs : timeoutFromTtl(reading.pttlMs, newestAge);
    bool known = reading.pttlMs > 0 || lim.stored == 0;
    // One item per holder: a MultiSemaphore holder's permits are consecutive
    // members of one score (ZRANGE orders equal scores by member).
    const auto &page = r.at(2).elements();
    qint64 staleInPage = 0;
    qint64 membersInPage = 0;
    for (qsizetype i = 0; i + 1 < page.size(); i += 2) {
        const QByteArray member = page.at(i).bytes();
        const auto [identifier, permit] = holderOf(member);
        known = known && isIdentifier(identifier);
        const double score = page.at(i + 1).bytes().toDouble();
        const qint64 age = std::isfinite(score) && std::abs(score) < 9e15
                               ? saturatingSub(c.nowMs, qint64(std::llround(score)))
                               : 0;
        ++membersInPage;
        if (permit >= 0 && !reading.queue().items.isEmpty()
            && reading.queue().items.last().job == identifier) {
            ++reading.editQueue().items.last().attempts;
        } else {
            InFlightItem h;
            h.job = identifier;
            h.ageMs = age;
            h.attempts = permit >= 0 ? 1 : 0;
            reading.editQueue().items.append(h);
        }
        InFlightItem &h = reading.editQueue().items.last();
        h.locked = !isStale(reading, h);
        if (!h.locked)
            ++staleInPage;
    }
    reading.editQueue().truncated = lim.stored > membersInPage;
    if (r.at(2).isArray() && !reading.queue().truncated)
        lim.stored = membersInPage; // the page is the whole set, read after ZCARD
    // Oldest first: the stale members are the page's first ones.
    reading.editQueue().stuckIsLowerBound
        = reading.queue().truncated && staleInPage == membersInPage;
    reading.editQueue().stuck = staleInPage;
    reading.inWindow = std::max<qint64>(0, saturatingSub(lim.stored, staleInPage));
    lim.oldestAgeMs = -1;
    for (const InFlightItem &h : std::as_const(reading.queue().items)) {
        if (h.locked) {
            lim.oldestAgeMs = std::max<qint64>(0, h.ageMs);
            break;
        }
        reading.editLibrary().stuckJobs.append(
            {h.job, staleReason(reading, h), saturatingSub(c.nowMs, h.ageMs)});
    }
    reading.editLibrary().counts = {{QStringLiteral("permits held"), reading.inWindow},
                                    {QStringLiteral("stale"), reading.queue().stuck}};
    reading.editLibrary().layoutKnown = known;
    reading.editLibrary().layoutVersion = QStringLiteral("redis-semaphore");
    if (!known)
        reading.message = QStringLiteral("A holder is not a redis-semaphore identifier (a UUID), "
                                         "or the key has no TTL: an unknown layout, shown "
                                         "read-only.");
    else if (!reading.limit)
        reading.message = QStringLiteral("The limit is an argument of each acquire, not kept in "
                                         "Redis: a profile rule's \"limit\" gives it.");
    if (lim.stored == 0 && reading.pttlMs == -2) {
        // The last release deleted the sorted set: no holder and no key.
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No holder: the key does not exist.");
    }
    return reading;
}

qint64 RedisSemaphoreUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    if (!r.isOk()) // no key: only a write changes it
        return r.status == Reading::Status::Missing ? Reading::Forever : r.atMs;
    // The oldest live holder turns stale when its timeout passes; the key
    // expires at its PTTL.
    qint64 until = r.pttlMs > 0 ? saturatingAdd(r.atMs, r.pttlMs) : Reading::Forever;
    if (LimiterData::of(r).windowMs > 0 && LimiterData::of(r).oldestAgeMs >= 0)
        until = std::min(until, saturatingAdd(r.atMs, LimiterData::of(r).windowMs
                                                          - LimiterData::of(r).oldestAgeMs));
    return until;
}

QList<Figure> RedisSemaphoreUnit::figures() const
{
    QList<Figure> out = SemaphoreUnit().figures();
    for (Figure &f : out) {
        if (f.id == QLatin1String("expired"))
            f.title = QStringLiteral("Stale holders"); // stored - live: the stale ones
    }
    return out;
}

QList<Chart> RedisSemaphoreUnit::charts() const
{
    return SemaphoreUnit().charts();
}

QList<Column> RedisSemaphoreUnit::columns() const
{
    // The section's headers in the sorted-set and Redisson semaphores' order.
    Column stale = Column::count(QStringLiteral("Expired"), &Reading::Queue::stuck);
    stale.toolTip = QStringLiteral("Stale holders, older than the lock timeout: their process "
                                   "stopped refreshing; redis-semaphore prunes them at the next "
                                   "acquire or refresh of any holder.");
    return {Column::key(QStringLiteral("Key")),
            Column::usedOfLimit(QStringLiteral("Holders / limit")),
            Column::occupancy(),
            LimiterData::age(QStringLiteral("Oldest holder"), &LimiterData::oldestAgeMs),
            stale,
            Column::library(QStringLiteral("redis-semaphore")),
            Column::counts(),
            Column::status()};
}

void RedisSemaphoreUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                                   QJsonObject &j) const
{
    // The sorted-set semaphore's fields (holders, limit, occupancy,
    // timeoutMs, stored, expired, oldestHolderAgeMs, truncated), then the
    // library's: its stale holders and each holder's permits.
    SemaphoreUnit().writeJson(s, r, nowMs, j);
    j.insert(QStringLiteral("pttlMs"), double(r.pttlMs));
    j.insert(QStringLiteral("staleHolders"), double(r.queue().stuck));
    QJsonArray list;
    for (const InFlightItem &h : r.queue().items) {
        list.append(
            QJsonObject{{QStringLiteral("holder"), keyToJson(h.job)},
                        {QStringLiteral("permits"), double(std::max<qint64>(1, h.attempts))},
                        {QStringLiteral("multi"), h.attempts > 0},
                        {QStringLiteral("acquiredAtMs"), double(saturatingSub(r.atMs, h.ageMs))},
                        {QStringLiteral("ageMs"), double(h.ageMs)},
                        {QStringLiteral("stale"), !h.locked}});
    }
    j.insert(QStringLiteral("holderList"), list);
}

QStringList RedisSemaphoreUnit::itemHeaders() const
{
    return {QStringLiteral("Holder"), QStringLiteral("Permits"), QStringLiteral("Held for"),
            QStringLiteral("Acquired at"), QStringLiteral("State")};
}

QList<QStringList> RedisSemaphoreUnit::items(const ObjectState &s, qint64 nowMs) const
{
    const Reading r = s.reading.at(nowMs);
    QList<QStringList> rows;
    for (const InFlightItem &h : r.queue().items) {
        rows.append({printableBytes(h.job, 120), QString::number(std::max<qint64>(1, h.attempts)),
                     formatMs(h.ageMs),
                     QDateTime::fromMSecsSinceEpoch(saturatingSub(r.atMs, h.ageMs))
                         .toUTC()
                         .toString(QStringLiteral("HH:mm:ss.zzz")),
                     isStale(r, h) ? QStringLiteral("stale") : QStringLiteral("holding")});
    }
    return rows;
}

QHash<QString, QByteArray> RedisSemaphoreUnit::itemInputs(const ObjectState &s, int i) const
{
    return SemaphoreUnit().itemInputs(s, i); // {"holder": identifier, "score": acquired at}
}

std::optional<Attention> RedisSemaphoreUnit::attention(const ObjectState &state, qint64) const
{
    const Reading &r = state.reading;
    if (state.gone)
        return std::nullopt;
    if (r.queue().stuck > 0)
        return Attention{
            1.0
                + double(LimiterData::of(r).oldestAgeMs < 0 ? 0 : LimiterData::of(r).oldestAgeMs)
                      / 1e9,
            QStringLiteral("expired")};
    const std::optional<double> occupancy = r.occupancy();
    if (!occupancy || *occupancy < 0.8)
        return std::nullopt;
    return Attention{*occupancy, QStringLiteral("holders")};
}

QString RedisSemaphoreUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    if (r.queue().stuck > 0)
        return QStringLiteral("Semaphore %1: %2 stale holder(s) past the %3 lock timeout")
            .arg(printableBytes(state.object->key))
            .arg(r.queue().stuck)
            .arg(formatMs(LimiterData::of(r).windowMs));
    return SemaphoreUnit().attentionText(state, nowMs);
}

QList<PatternAction> RedisSemaphoreUnit::actions() const
{
    QList<PatternAction> out = SemaphoreUnit().actions();
    for (PatternAction &a : out) {
        // The section's one "Release holder…" (semaphore.release), built
        // the library's way for its objects.
        const auto usageCheck = a.check;
        a.check = [usageCheck](const ActionRequest &r) -> QString {
            if (QString problem = usageCheck(r); !problem.isEmpty())
                return problem;
            if (r.shown && !r.shown->reading.library().layoutKnown)
                return QStringLiteral("\"%1\" is not a redis-semaphore layout Gatehouse knows: "
                                      "shown read-only.")
                    .arg(printableBytes(r.object->key));
            return QString();
        };
        a.build = [](const ActionRequest &r) {
            ScriptCall call = SemaphoreUnit::release(r.object, r.input(QStringLiteral("holder")),
                                                     r.integer(QStringLiteral("score")));
            call.script = QStringLiteral("redis_semaphore_release");
            call.summary
                = QStringLiteral("Remove holder \"%1\" (all its permits) from "
                                 "redis-semaphore \"%2\" only if it still holds them "
                                 "with the acquire time %3 ms, as its release() does.")
                      .arg(printableBytes(call.args.value(0), 80), printableBytes(r.object->key))
                      .arg(r.integer(QStringLiteral("score")));
            return call;
        };
    }
    return out;
}

} // namespace gatehouse
