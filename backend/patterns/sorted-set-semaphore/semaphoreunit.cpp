// SPDX-License-Identifier: MIT
#include "semaphoreunit.h"

#include <patterns/limiterdata.h>

#include "semaphoredemo.h"

#include <patterns/familyfold.h>

#include <QDateTime>
#include <QJsonArray>

#include <cmath>

namespace gatehouse {

namespace {

// Scores above this are live holders: (now - timeout, +inf); every member
// when the profile gives no timeout.
QByteArray liveFrom(const PatternObject &o, qint64 nowMs)
{
    return o.params.windowMs > 0 ? '(' + QByteArray::number(nowMs - o.params.windowMs)
                                 : QByteArray("-inf");
}

int pageOf(const PatternObject &o)
{
    return std::clamp(o.params.pageSize, 1, 1000);
}

bool isExpired(const Reading &r, const InFlightItem &holder)
{
    return LimiterData::of(r).windowMs > 0 && holder.ageMs >= LimiterData::of(r).windowMs;
}

// A family row of semaphores: holders and expired holders add up.
[[maybe_unused]] const bool s_folds = registerFamilyFolds(
    QStringLiteral("semaphore"), {{QStringLiteral("Holders / limit"), FamilyFold::SumAndMax},
                                  {QStringLiteral("Expired"), FamilyFold::Sum}});

} // namespace

Section SemaphoreUnit::section() const
{
    return {QStringLiteral("semaphore"), QStringLiteral("semaphores"), QStringLiteral("Semaphores"),
            QStringLiteral("semaphore")};
}

bool SemaphoreUnit::parseRule(RuleReader &r, const QJsonObject &o, ProfileRule &rule) const
{
    std::optional<qint64> timeout;
    if (!r.integer(o, "limit", &rule.params.limit) || !r.integer(o, "timeout", &timeout))
        return false;
    rule.params.windowMs = timeout.value_or(0);
    return true;
}

void SemaphoreUnit::writeRule(const ProfileRule &r, QJsonObject &o) const
{
    o.insert(QStringLiteral("limit"),
             r.params.limit ? QJsonValue(double(*r.params.limit)) : QJsonValue());
    o.insert(QStringLiteral("timeout"), double(r.params.windowMs));
}

QList<PatternUnit::Command> SemaphoreUnit::probe(const PatternObject &o,
                                                 const ProbeContext &c) const
{
    const QByteArray from = liveFrom(o, c.nowMs);
    return {{"ZCOUNT", o.key, from, "+inf"},
            {"ZCARD", o.key},
            {"ZRANGEBYSCORE", o.key, from, "+inf", "WITHSCORES", "LIMIT", "0", "1"},
            {"ZRANGE", o.key, "0", number(pageOf(o) - 1), "WITHSCORES"}};
}

Reading SemaphoreUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                            const ProbeContext &c) const
{
    if (auto f = failure(o, r, {o.key, o.key, o.key, o.key}, c.nowMs))
        return *f;
    Reading reading;
    LimiterData &lim = LimiterData::in(reading);
    reading.atMs = c.nowMs;
    reading.limit = o.params.limit;
    lim.windowMs = o.params.windowMs;
    reading.inWindow = std::max<qint64>(0, r.at(0).toInteger());
    lim.stored = std::max<qint64>(0, r.at(1).toInteger());
    const QList<qint64> oldest = scoresMs(r.at(2), 1);
    lim.oldestAgeMs
        = oldest.isEmpty() ? -1 : std::max<qint64>(0, saturatingSub(c.nowMs, oldest.first()));
    const auto &page = r.at(3).elements();
    for (qsizetype i = 0; i + 1 < page.size(); i += 2) {
        InFlightItem holder;
        holder.job = page.at(i).bytes();
        const double score = page.at(i + 1).bytes().toDouble();
        holder.ageMs = std::isfinite(score) && std::abs(score) < 9e15
                           ? saturatingSub(c.nowMs, qint64(std::llround(score)))
                           : 0;
        reading.editQueue().items.append(holder);
    }
    // The four replies are four commands, and another client may acquire or
    // release between them (a pipeline is not atomic): when the page holds
    // every member, the counts and the oldest age come from it, so what the
    // row says and the holders listed agree.
    if (r.at(3).isArray() && reading.queue().items.size() < pageOf(o)) {
        lim.stored = reading.queue().items.size();
        reading.inWindow = 0;
        lim.oldestAgeMs = -1;
        for (const InFlightItem &h : std::as_const(reading.queue().items)) {
            if (o.params.windowMs > 0 && h.ageMs >= o.params.windowMs)
                continue; // past the timeout: trimmed at the next acquire
            ++reading.inWindow;
            lim.oldestAgeMs = std::max(lim.oldestAgeMs, std::max<qint64>(0, h.ageMs));
        }
    }
    reading.editQueue().truncated = lim.stored > reading.queue().items.size();
    if (!reading.limit)
        reading.message = QStringLiteral("The profile gives no limit for this semaphore.");
    if (lim.stored == 0 && reading.queue().items.isEmpty()) {
        // Redis removes an empty sorted set: no holder and no key.
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No holder: the key does not exist.");
    }
    return reading;
}

qint64 SemaphoreUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    if (!r.isOk()) // no key: only a write changes it
        return r.status == Reading::Status::Missing ? Reading::Forever : r.atMs;
    // The count drops when the oldest live holder's timeout passes; only
    // writes change anything else (ages grow by projection).
    if (LimiterData::of(r).windowMs <= 0 || LimiterData::of(r).oldestAgeMs < 0)
        return Reading::Forever;
    return saturatingAdd(r.atMs, LimiterData::of(r).windowMs - LimiterData::of(r).oldestAgeMs);
}

QList<Figure> SemaphoreUnit::figures() const
{
    return {
        {QStringLiteral("holders"), QStringLiteral("Holders"), false,
         [](const Reading &r, qint64) {
             return double(r.inWindow);
         }},
        {QStringLiteral("occupancy"), QStringLiteral("Occupancy"), false,
         [](const Reading &r, qint64) {
             return r.occupancy().value_or(qQNaN());
         }},
        {QStringLiteral("oldestHolderAgeMs"), QStringLiteral("Oldest holder"), true,
         [](const Reading &r, qint64 at) {
             return double(r.ageAt(LimiterData::of(r).oldestAgeMs, at));
         }},
        {QStringLiteral("expired"), QStringLiteral("Expired, still present"), false,
         [](const Reading &r, qint64) {
             return double(std::max<qint64>(0, LimiterData::of(r).stored - r.inWindow));
         }},
    };
}

QList<Chart> SemaphoreUnit::charts() const
{
    Chart holders{QStringLiteral("Holders"),
                  QStringLiteral("holders"),
                  {{QStringLiteral("holders"), QStringLiteral("holders")},
                   {QStringLiteral("expired"), QStringLiteral("expired, still present")}}};
    holders.limitLine = true;
    return {holders,
            {QStringLiteral("Oldest holder"),
             QStringLiteral("s"),
             {{QStringLiteral("oldestHolderAgeMs"), QStringLiteral("oldest (s)"), 0.001}}}};
}

QList<Column> SemaphoreUnit::columns() const
{
    Column expired;
    expired.header = QStringLiteral("Expired");
    expired.toolTip = QStringLiteral("Holders past the timeout still in the set: the next "
                                     "acquire trims them; many of them mean clients that "
                                     "never release.");
    expired.text = [](const ObjectState &s, qint64) -> QString {
        return QString::number(
            std::max<qint64>(0, LimiterData::of(s.reading).stored - s.reading.inWindow));
    };
    expired.sort = [](const ObjectState &s, qint64) {
        return QVariant(double(LimiterData::of(s.reading).stored - s.reading.inWindow));
    };
    return {Column::key(QStringLiteral("Key")),
            Column::usedOfLimit(QStringLiteral("Holders / limit")),
            Column::occupancy(),
            LimiterData::age(QStringLiteral("Oldest holder"), &LimiterData::oldestAgeMs),
            expired,
            Column::status()};
}

void SemaphoreUnit::writeJson(const ObjectState &, const Reading &r, qint64, QJsonObject &j) const
{
    j.insert(QStringLiteral("holders"), double(r.inWindow));
    j.insert(QStringLiteral("limit"), r.limit ? QJsonValue(double(*r.limit)) : QJsonValue());
    const auto occupancy = r.occupancy();
    j.insert(QStringLiteral("occupancy"), occupancy ? QJsonValue(*occupancy) : QJsonValue());
    j.insert(QStringLiteral("timeoutMs"), double(LimiterData::of(r).windowMs));
    j.insert(QStringLiteral("stored"), double(LimiterData::of(r).stored));
    j.insert(QStringLiteral("expired"),
             double(std::max<qint64>(0, LimiterData::of(r).stored - r.inWindow)));
    j.insert(QStringLiteral("oldestHolderAgeMs"), double(LimiterData::of(r).oldestAgeMs));
    j.insert(QStringLiteral("truncated"), r.queue().truncated);
    QJsonArray list;
    for (const InFlightItem &h : r.queue().items) {
        list.append(QJsonObject{{QStringLiteral("holder"), keyToJson(h.job)},
                                {QStringLiteral("acquiredAtMs"), double(acquiredAtMs(r, h))},
                                {QStringLiteral("ageMs"), double(h.ageMs)},
                                {QStringLiteral("expired"), isExpired(r, h)}});
    }
    j.insert(QStringLiteral("holderList"), list);
}

QStringList SemaphoreUnit::itemHeaders() const
{
    return {QStringLiteral("Holder"), QStringLiteral("Held for"), QStringLiteral("Acquired at"),
            QStringLiteral("State")};
}

QList<QStringList> SemaphoreUnit::items(const ObjectState &s, qint64 nowMs) const
{
    const Reading r = s.reading.at(nowMs);
    QList<QStringList> rows;
    for (const InFlightItem &h : r.queue().items) {
        rows.append({printableBytes(h.job, 120), formatMs(h.ageMs),
                     QDateTime::fromMSecsSinceEpoch(acquiredAtMs(r, h))
                         .toUTC()
                         .toString(QStringLiteral("HH:mm:ss.zzz")),
                     isExpired(r, h) ? QStringLiteral("expired") : QStringLiteral("holding")});
    }
    return rows;
}

QHash<QString, QByteArray> SemaphoreUnit::itemInputs(const ObjectState &s, int i) const
{
    if (i < 0 || i >= s.reading.queue().items.size())
        return {};
    const InFlightItem &h = s.reading.queue().items.at(i);
    return {{QStringLiteral("holder"), h.job},
            {QStringLiteral("score"), QByteArray::number(acquiredAtMs(s.reading, h))}};
}

ScriptCall SemaphoreUnit::release(const PatternObject &o, const QByteArray &holder, qint64 scoreMs)
{
    ScriptCall call;
    call.action = QStringLiteral("semaphore.release");
    call.script = QStringLiteral("semaphore_release");
    call.keys = {o.key};
    call.keyRoles = {QStringLiteral("semaphore")};
    call.args = {holder, QByteArray::number(scoreMs)};
    call.summary = QStringLiteral("Remove holder \"%1\" from semaphore \"%2\" only if it still "
                                  "holds the slot it acquired at %3 ms.")
                       .arg(printableBytes(holder, 80), printableBytes(o.key))
                       .arg(scoreMs);
    const QString name = printableBytes(holder, 80);
    const QString key = printableBytes(o.key);
    // {1, "released"} | {0, "gone"} | {0, "changed", current score}
    call.meaning = [name, key](const RedisValue &reply) {
        const QByteArray what = reply.size() >= 2 ? reply.at(1).bytes() : QByteArray();
        if (reply.size() >= 2 && reply.at(0).toInteger() == 1)
            return ReplyMeaning{true, QStringLiteral("Released holder \"%1\" of semaphore "
                                                     "\"%2\".")
                                          .arg(name, key)};
        if (what == "changed")
            return ReplyMeaning{
                false, QStringLiteral("Holder \"%1\" of semaphore \"%2\" holds "
                                      "a newer slot (acquired at %3 ms), not the "
                                      "one shown; nothing changed.")
                           .arg(name, key,
                                printableBytes(
                                    reply.size() >= 3 ? reply.at(2).bytes() : QByteArray(), 40))};
        return ReplyMeaning{false, QStringLiteral("Holder \"%1\" no longer holds semaphore "
                                                  "\"%2\" (released or trimmed); nothing "
                                                  "changed.")
                                       .arg(name, key)};
    };
    return call;
}

QList<PatternAction> SemaphoreUnit::actions() const
{
    PatternAction releaseAction;
    releaseAction.id = QStringLiteral("semaphore.release");
    releaseAction.verb = QStringLiteral("release");
    releaseAction.label = QStringLiteral("Release holder…");
    releaseAction.objectName = QStringLiteral("releaseHolderButton");
    releaseAction.usage = QStringLiteral("semaphore release KEY --holder ID --score MS");
    ActionInput holder{QStringLiteral("holder"), QStringLiteral("Holder"),
                       ActionInput::Source::Item};
    ActionInput score{QStringLiteral("score"), QStringLiteral("Acquired at (ms, its score)"),
                      ActionInput::Source::Item};
    score.integer = true;
    releaseAction.inputs = {holder, score};
    releaseAction.check = [](const ActionRequest &r) -> QString {
        if (r.input(QStringLiteral("holder")).isEmpty() || !r.has(QStringLiteral("score")))
            return QStringLiteral("semaphore release needs --holder ID and --score MS: the "
                                  "holder and the acquire time you saw (snapshot --json, "
                                  "holderList).");
        return QString();
    };
    releaseAction.build = [](const ActionRequest &r) {
        return release(r.object, r.input(QStringLiteral("holder")),
                       r.integer(QStringLiteral("score")));
    };
    return {releaseAction};
}

std::optional<Attention> SemaphoreUnit::attention(const ObjectState &state, qint64) const
{
    const Reading &r = state.reading;
    const std::optional<double> occupancy = r.occupancy();
    if (state.gone || !occupancy || *occupancy < 0.8 || !r.limit)
        return std::nullopt;
    return Attention{*occupancy, QStringLiteral("holders")};
}

QString SemaphoreUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    return QStringLiteral("Semaphore %1: %2 of %3 held (oldest holder %4)")
        .arg(printableBytes(state.object->key))
        .arg(r.inWindow)
        .arg(r.limit.value_or(0))
        .arg(formatMs(r.ageAt(LimiterData::of(r).oldestAgeMs, nowMs)));
}

std::unique_ptr<DemoTraffic> SemaphoreUnit::demoTraffic(quint32 seed) const
{
    return std::make_unique<SemaphoreDemo>(seed);
}

namespace {

// A segment "sem" or "sems", or "semaphore" anywhere: holders and request
// times are both ZSETs of ms times, so only the name tells them apart.
bool namedLikeSemaphore(const QByteArray &key)
{
    const QByteArray lower = key.toLower();
    if (lower.contains("semaphore"))
        return true;
    for (const QByteArray &segment : lower.split(':')) {
        if (segment == "sem" || segment == "sems")
            return true;
    }
    return false;
}

} // namespace

std::optional<KeyClaim> SemaphoreUnit::claimKey(const KeyShape &s, qint64 now) const
{
    if (s.type == "zset" && s.size > 0 && nearMs(s.lastScore, now) && nearMs(s.firstScore, now)
        && namedLikeSemaphore(s.key))
        return KeyClaim{QStringLiteral("holders"), 15}; // beats a window's claim
    return std::nullopt;
}

QList<PatternObject> SemaphoreUnit::groupClaims(ClaimPool &pool) const
{
    // Neither the limit nor the timeout is in Redis: the profile gives them.
    return eachWonKey(pool);
}

QList<QByteArray> SemaphoreUnit::wordsFor() const
{
    return {"sem", "sema", "semaphore", "permits", "slots"};
}

} // namespace gatehouse
