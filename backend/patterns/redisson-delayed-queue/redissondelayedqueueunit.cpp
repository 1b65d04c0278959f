// SPDX-License-Identifier: MIT
#include "redissondelayedqueueunit.h"

#include <patterns/globmatch.h>
#include <patterns/redissonnames.h>
#include <patterns/sections.h>

#include <QJsonArray>
#include <QtEndian>

#include <algorithm>

namespace gatehouse {

namespace {
constexpr char TimeoutPrefix[] = "redisson_delay_queue_timeout";
constexpr char DelayPrefix[] = "redisson_delay_queue";
constexpr int ItemCutBytes = 200;

QByteArray nameOfPart(const QByteArray &key)
{
    QByteArray name = redisson::nameOfPrefixed(TimeoutPrefix, key);
    if (name.isEmpty())
        name = redisson::nameOfPrefixed(DelayPrefix, key);
    return name;
}
} // namespace

QByteArray RedissonDelayedQueueUnit::timeoutKey(const QByteArray &name)
{
    return redisson::prefixName(TimeoutPrefix, name);
}

QByteArray RedissonDelayedQueueUnit::delayKey(const QByteArray &name)
{
    return redisson::prefixName(DelayPrefix, name);
}

PatternObject RedissonDelayedQueueUnit::objectForName(const QByteArray &name)
{
    PatternObject o;
    o.kind = Kind;
    o.key = name;
    o.related = {timeoutKey(name), delayKey(name), name};
    return o;
}

QByteArray RedissonDelayedQueueUnit::unpack(const QByteArray &m)
{
    // struct.pack('Bc0Lc0', ...) in Redis's Lua on x86-64: a length byte,
    // the random id, an 8-byte little-endian length, the element.
    if (m.isEmpty())
        return m;
    const qsizetype idLength = static_cast<unsigned char>(m.at(0));
    const qsizetype at = 1 + idLength;
    if (m.size() < at + 8)
        return m;
    const quint64 length = qFromLittleEndian<quint64>(m.constData() + at);
    if (length != quint64(m.size() - at - 8))
        return m;
    return m.mid(at + 8);
}

Section RedissonDelayedQueueUnit::section() const
{
    return sections::queue();
}

QList<PatternUnit::Command> RedissonDelayedQueueUnit::identifyProbe(const QByteArray &target) const
{
    const QByteArray name = nameOfPart(target).isEmpty() ? target : nameOfPart(target);
    return {{"TYPE", timeoutKey(name)}, {"TYPE", delayKey(name)}};
}

bool RedissonDelayedQueueUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    return r.size() == 2 && (r.at(0).bytes() == "zset" || r.at(1).bytes() == "list");
}

QList<QByteArray> RedissonDelayedQueueUnit::scanGlobs(const ProfileRule &rule) const
{
    return {timeoutKey(rule.match), delayKey(rule.match)};
}

std::optional<PatternObject> RedissonDelayedQueueUnit::objectFor(const ProfileRule &rule,
                                                                 const QByteArray &key) const
{
    // Named by Redisson's own keys only: the destination is any LIST.
    const QByteArray name = nameOfPart(key);
    if (name.isEmpty() || !globMatch(rule.match, name) || rule.excludes(name))
        return std::nullopt;
    PatternObject o = objectForName(name);
    o.params = rule.params;
    return o;
}

PatternObject RedissonDelayedQueueUnit::conventionalObject(const QByteArray &key) const
{
    const QByteArray name = nameOfPart(key);
    return objectForName(name.isEmpty() ? key : name);
}

std::optional<KeyClaim> RedissonDelayedQueueUnit::claimKey(const KeyShape &s, qint64) const
{
    if (s.type == "zset" && !redisson::nameOfPrefixed(TimeoutPrefix, s.key).isEmpty())
        return KeyClaim{QStringLiteral("timeouts"), 90};
    if (s.type == "list" && !redisson::nameOfPrefixed(DelayPrefix, s.key).isEmpty())
        return KeyClaim{QStringLiteral("delayed"), 90};
    return std::nullopt;
}

QList<PatternObject> RedissonDelayedQueueUnit::groupClaims(ClaimPool &pool) const
{
    QMap<QByteArray, bool> names;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (!pool.roleOf(key, Kind).isEmpty())
            names.insert(nameOfPart(key), true);
    }
    QList<PatternObject> out;
    for (auto it = names.cbegin(); it != names.cend(); ++it) {
        PatternObject o = objectForName(it.key());
        o.source = QStringLiteral("autodetected");
        // The destination is part of it, whatever else claimed that LIST.
        for (const QByteArray &k : o.keys())
            pool.take(k);
        out.append(o);
    }
    return out;
}

QList<PatternUnit::Command> RedissonDelayedQueueUnit::probe(const PatternObject &o,
                                                            const ProbeContext &c) const
{
    const QByteArray t = o.relatedKey(Timeouts);
    const QByteArray now = number(c.nowMs);
    return {
        {"ZCARD", t},
        {"ZCOUNT", t, "0", now}, // due, as the transfer task selects them
        {"ZRANGE", t, "0", "0", "WITHSCORES"},
        {"LLEN", o.relatedKey(Delayed)},
        {"LLEN", o.relatedKey(Destination)},
        {"ZRANGEBYSCORE", t, "0", now, "WITHSCORES", "LIMIT", "0",
         number(std::max(1, o.params.pageSize))},
    };
}

namespace {

// Until the next delayed item is due (0 when one is due): a countdown.
struct NextDue : PatternData
{
    qint64 inMs = 0;

    PatternData *clone() const override { return new NextDue(*this); }
    PatternData *projected(const Reading &from, qint64 nowMs) const override
    {
        auto *moved = new NextDue(*this);
        moved->inMs = from.countdownAt(inMs, nowMs);
        return moved;
    }
    static qint64 of(const Reading &r) { return r.data<NextDue>().inMs; }
};

} // namespace

Reading RedissonDelayedQueueUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                                       const ProbeContext &c) const
{
    const QByteArray t = o.relatedKey(Timeouts);
    if (auto f
        = failure(o, r, {t, t, t, o.relatedKey(Delayed), o.relatedKey(Destination), t}, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    reading.editQueue().inFlight = r.at(0).toInteger();
    reading.editQueue().stuck = r.at(1).toInteger();
    const qint64 listed = r.at(3).toInteger();
    reading.editQueue().length = r.at(4).toInteger();
    if (reading.queue().inFlight == 0 && listed == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Nothing is delayed.");
        return reading;
    }
    if (r.at(2).size() == 2) {
        const qint64 next = redisson::scoreMs(r.at(2).at(1).bytes());
        reading.edit<NextDue>().inMs = std::max<qint64>(0, saturatingSub(next, c.nowMs));
        if (next <= c.nowMs)
            reading.editQueue().oldestInFlightAgeMs = saturatingSub(c.nowMs, next);
    }
    const RedisValue &due = r.at(5);
    for (qsizetype i = 0; i + 1 < due.size(); i += 2) {
        const qint64 at = redisson::scoreMs(due.at(i + 1).bytes());
        reading.editLibrary().stuckJobs.append(
            {unpack(due.at(i).bytes()).left(ItemCutBytes),
             QStringLiteral("due, not moved to the destination queue (no "
                            "Redisson client ran its transfer task)"),
             at});
        InFlightItem item;
        item.job = reading.editLibrary().stuckJobs.last().job;
        item.ageMs = std::max<qint64>(0, saturatingSub(c.nowMs, at));
        item.source = AgeSource::Library;
        item.locked = false;
        reading.editQueue().items.append(item);
    }
    reading.editQueue().truncated = reading.queue().stuck > reading.queue().items.size();
    reading.editLibrary().counts = {{QStringLiteral("delayed"), reading.queue().inFlight},
                                    {QStringLiteral("due"), reading.queue().stuck},
                                    {QStringLiteral("queued"), reading.queue().length}};
    if (listed != reading.queue().inFlight)
        reading.message = QStringLiteral("The delay list holds %1 items, the timeout set %2: "
                                         "a transfer is under way or was cut short.")
                              .arg(listed)
                              .arg(reading.queue().inFlight);
    return reading;
}

qint64 RedissonDelayedQueueUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    if (r.status == Reading::Status::Missing)
        return Reading::Forever;
    if (!r.isOk())
        return r.atMs;
    // The next item turning due changes the figures.
    return NextDue::of(r) > 0 ? saturatingAdd(r.atMs, NextDue::of(r)) : r.atMs;
}

QList<Figure> RedissonDelayedQueueUnit::figures() const
{
    return {
        {QStringLiteral("delayed"), QStringLiteral("Delayed"), false,
         [](const Reading &r, qint64) {
             return double(r.queue().inFlight);
         }},
        {QStringLiteral("stuck"), QStringLiteral("Due"), false,
         [](const Reading &r, qint64) {
             return double(r.queue().stuck);
         }},
        {QStringLiteral("length"), QStringLiteral("Queued"), false, [](const Reading &r, qint64) {
             return double(r.queue().length);
         }}};
}

QList<Column> RedissonDelayedQueueUnit::columns() const
{
    Column next;
    next.header = QStringLiteral("Next due in");
    next.movesWithTime = true;
    next.text = [](const ObjectState &s, qint64 now) -> QString {
        return s.reading.queue().inFlight > 0
                   ? formatMs(s.reading.countdownAt(NextDue::of(s.reading), now))
                   : QStringLiteral("–");
    };
    next.sort = [](const ObjectState &s, qint64 now) {
        return QVariant(double(s.reading.countdownAt(NextDue::of(s.reading), now)));
    };
    return {Column::key(QStringLiteral("Queue")),
            Column::library(QStringLiteral("redisson")),
            Column::count(QStringLiteral("Length"), &Reading::Queue::length),
            Column::count(QStringLiteral("Delayed"), &Reading::Queue::inFlight),
            Column::count(QStringLiteral("Stuck"), &Reading::Queue::stuck),
            next,
            Column::counts(),
            Column::status()};
}

void RedissonDelayedQueueUnit::writeJson(const ObjectState &s, const Reading &r, qint64,
                                         QJsonObject &j) const
{
    j.insert(QStringLiteral("keys"), keysToJson(s.object->related));
    j.insert(QStringLiteral("redissonType"), QStringLiteral("RDelayedQueue"));
    j.insert(QStringLiteral("length"), double(r.queue().length));
    j.insert(QStringLiteral("delayed"), double(r.queue().inFlight));
    j.insert(QStringLiteral("due"), double(r.queue().stuck));
    j.insert(QStringLiteral("stuckCount"), double(r.queue().stuck));
    j.insert(QStringLiteral("nextDueInMs"),
             r.queue().inFlight > 0 ? QJsonValue(double(NextDue::of(r))) : QJsonValue());
    j.insert(QStringLiteral("oldestDueAgeMs"), double(r.queue().oldestInFlightAgeMs));
    j.insert(QStringLiteral("truncated"), r.queue().truncated);
}

QStringList RedissonDelayedQueueUnit::itemHeaders() const
{
    return {QStringLiteral("Job in flight"), QStringLiteral("Age"), QStringLiteral("Age from")};
}

QList<QStringList> RedissonDelayedQueueUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items)
        rows.append({printableBytes(item.job, 120),
                     formatMs(s.reading.ageAt(item.ageMs, nowMs)) + QStringLiteral(" overdue"),
                     QStringLiteral("its due time")});
    return rows;
}

std::optional<Attention> RedissonDelayedQueueUnit::attention(const ObjectState &state,
                                                             qint64 nowMs) const
{
    // The transfer task moves due items within a second while any Redisson
    // client runs; due for longer, none does.
    const Reading &r = state.reading;
    if (state.gone || r.queue().stuck <= 0 || r.ageAt(r.queue().oldestInFlightAgeMs, nowMs) < 5000)
        return std::nullopt;
    return Attention{2.0 + double(r.queue().stuck), QStringLiteral("stuck")};
}

QString RedissonDelayedQueueUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    return QStringLiteral("Redisson delayed queue %1: %2 items due, the oldest for %3 (no "
                          "client moves them)")
        .arg(printableBytes(state.object->key))
        .arg(r.queue().stuck)
        .arg(formatMs(r.ageAt(r.queue().oldestInFlightAgeMs, nowMs)));
}

ScriptCall RedissonDelayedQueueUnit::transferDue(const PatternObject &o)
{
    ScriptCall call;
    call.action = QStringLiteral("queue.requeue-stuck");
    call.script = QStringLiteral("redisson_transfer_due");
    call.keys = {o.relatedKey(Destination), o.relatedKey(Timeouts), o.relatedKey(Delayed)};
    call.keyRoles
        = {QStringLiteral("destination queue list"),
           QStringLiteral("delayed items' due times zset"), QStringLiteral("delayed items list")};
    call.args = {QByteArray::number(Batch)};
    call.summary = QStringLiteral("Move every due item of Redisson delayed queue \"%1\" to the "
                                  "queue, %2 per run, as Redisson's transfer task does.")
                       .arg(printableBytes(o.key))
                       .arg(Batch);
    call.batch = Batch;
    call.batchSummary = QStringLiteral("Moved %1 due items to the queue.");
    call.meaning = [](const RedisValue &v) {
        const qint64 moved = v.size() >= 2 ? v.at(1).toInteger() : 0;
        return moved > 0
                   ? ReplyMeaning{true,
                                  QStringLiteral("Moved %1 due items to the queue.").arg(moved)}
                   : ReplyMeaning{false, QStringLiteral("No item is due; nothing changed.")};
    };
    return call;
}

QList<PatternAction> RedissonDelayedQueueUnit::actions() const
{
    PatternAction requeue;
    requeue.id = QStringLiteral("queue.requeue");
    requeue.verb = QStringLiteral("requeue");
    requeue.label = QStringLiteral("Requeue…");
    requeue.objectName = QStringLiteral("requeueButton");
    requeue.usage = QStringLiteral("queue requeue QUEUE --stuck");
    ActionInput stuck{QStringLiteral("stuck"), QStringLiteral("Every due item"),
                      ActionInput::Source::Flag};
    stuck.required = false;
    ActionInput job{QStringLiteral("job"), QStringLiteral("Job"), ActionInput::Source::Item};
    job.required = false;
    requeue.inputs = {job, stuck};
    requeue.check = [](const ActionRequest &r) -> QString {
        if (r.has(QStringLiteral("job")) || r.has(QStringLiteral("older-than"))
            || !r.has(QStringLiteral("stuck")))
            return QStringLiteral("A Redisson delayed queue moves its due items together, as "
                                  "its transfer task does: use queue requeue QUEUE --stuck.");
        return QString();
    };
    requeue.build = [](const ActionRequest &r) {
        return transferDue(r.object);
    };

    PatternAction stuckAll = requeue;
    stuckAll.id = QStringLiteral("queue.requeue-stuck");
    stuckAll.verb.clear();
    stuckAll.usage.clear();
    stuckAll.label = QStringLiteral("Requeue all stuck…");
    stuckAll.objectName = QStringLiteral("requeueStuckButton");
    stuckAll.consoleOnly = true;
    stuckAll.inputs = {};
    stuckAll.check = {};
    return {requeue, stuckAll};
}

} // namespace gatehouse
