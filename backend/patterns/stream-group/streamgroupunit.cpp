// SPDX-License-Identifier: MIT
#include "streamgroupunit.h"

#include "streamgroupstate.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/sections.h>
#include <redis/redisscript.h>

#include <QJsonArray>
#include <QJsonDocument>

namespace gatehouse {

using namespace StreamGroupInternal;

namespace {

const QByteArray DefaultDeadKey = "{key}:dead";

const QByteArray &readScript()
{
    static const QByteArray source
        = RedisScript::fromResource(QStringLiteral("stream_group_read")).source();
    return source;
}

QJsonValue orNull(qint64 v)
{
    return v < 0 ? QJsonValue() : QJsonValue(double(v));
}

// ms since the time in a stream id, at nowMs; null for none.
QJsonValue idAge(const QByteArray &id, qint64 nowMs)
{
    const qint64 ms = idMs(id);
    return ms < 0 ? QJsonValue() : QJsonValue(double(std::max<qint64>(0, nowMs - ms)));
}

PatternObject objectOf(const QByteArray &key, const QByteArray &deadTemplate)
{
    PatternObject o;
    o.kind = StreamGroupUnit::Kind;
    o.key = key;
    o.related = {applyTemplate(deadTemplate.isEmpty() ? DefaultDeadKey : deadTemplate, key)};
    o.params.stuckAfterMs = StreamGroupUnit::DefaultStuckAfterMs;
    return o;
}

// One row of the list under the table: a group, a consumer, or a pending entry.
struct Row
{
    enum Kind { Group, Consumer, Entry } kind = Group;
    QByteArray group;
    QByteArray consumer;
    QByteArray entry;
    QStringList text;
};

// r as read; ages projected to nowMs.
QList<Row> rowsOf(const Reading &r, qint64 stuckAfterMs, qint64 nowMs)
{
    const StreamInfo info = unpack(r);
    const qint64 elapsed = std::max<qint64>(0, nowMs - r.atMs);
    QList<Row> rows;
    for (const Group &g : info.groups) {
        rows.append({Row::Group,
                     g.name,
                     {},
                     {},
                     {QStringLiteral("group %1").arg(printableBytes(g.name, 80)),
                      printableBytes(g.name, 80), QString(), QString(),
                      QStringLiteral("%1 pending").arg(g.pending),
                      QStringLiteral("%1 consumer%2 · lag %3 · last delivered %4")
                          .arg(g.consumers)
                          .arg(g.consumers == 1 ? QString() : QStringLiteral("s"))
                          .arg(g.lag < 0 ? QStringLiteral("unknown") : QString::number(g.lag))
                          .arg(QString::fromLatin1(g.lastDeliveredId))}});
        for (const Consumer &c : g.consumerList) {
            const qint64 idle = c.idleMs < 0 ? -1 : saturatingAdd(c.idleMs, elapsed);
            const bool quiet = idle < 0 || idle >= stuckAfterMs;
            rows.append({Row::Consumer,
                         g.name,
                         c.name,
                         {},
                         {QStringLiteral("consumer %1").arg(printableBytes(c.name, 80)),
                          printableBytes(g.name, 80), printableBytes(c.name, 80), formatMs(idle),
                          QStringLiteral("%1 pending").arg(c.pending),
                          quiet ? QStringLiteral("quiet past %1").arg(formatMs(stuckAfterMs))
                                : QStringLiteral("active")}});
        }
        for (const InFlightItem &e : r.queue().items) {
            if (e.queue != g.name)
                continue;
            const qint64 idle = r.ageAt(e.ageMs, nowMs);
            rows.append({Row::Entry,
                         g.name,
                         e.holder,
                         e.job,
                         {QString::fromLatin1(e.job), printableBytes(g.name, 80),
                          printableBytes(e.holder, 80), formatMs(idle),
                          QStringLiteral("delivered %1×").arg(e.attempts),
                          idle >= stuckAfterMs || !e.locked ? QStringLiteral("stuck")
                                                            : QStringLiteral("pending")}});
        }
    }
    return rows;
}

} // namespace

Section StreamGroupUnit::section() const
{
    return sections::queue();
}

bool StreamGroupUnit::parseRule(RuleReader &r, const QJsonObject &o, ProfileRule &rule) const
{
    std::optional<qint64> stuck;
    rule.deadKey = DefaultDeadKey;
    if (!r.integer(o, "stuckAfter", &stuck) || !r.keyTemplate(o, "deadKey", &rule.deadKey))
        return false;
    rule.params.stuckAfterMs = stuck.value_or(DefaultStuckAfterMs);
    return true;
}

void StreamGroupUnit::writeRule(const ProfileRule &r, QJsonObject &o) const
{
    o.insert(QStringLiteral("deadKey"),
             QString::fromUtf8(r.deadKey.isEmpty() ? DefaultDeadKey : r.deadKey));
    o.insert(QStringLiteral("stuckAfter"), double(r.params.stuckAfterMs));
}

std::optional<PatternObject> StreamGroupUnit::objectFor(const ProfileRule &rule,
                                                        const QByteArray &key) const
{
    if (!globMatch(rule.match, key) || rule.excludes(key))
        return std::nullopt;
    // Another stream's dead-letter stream is part of it, not a queue of its own.
    const QByteArray base = baseOfTemplate(rule.deadKey, key);
    if (!base.isEmpty() && globMatch(rule.match, base) && !rule.excludes(base))
        return std::nullopt;
    PatternObject o = objectOf(key, rule.deadKey);
    o.params = rule.params;
    return o;
}

PatternObject StreamGroupUnit::conventionalObject(const QByteArray &key) const
{
    return objectOf(key, DefaultDeadKey);
}

std::optional<KeyClaim> StreamGroupUnit::claimKey(const KeyShape &s, qint64) const
{
    // The shape probe samples a stream's consumer groups (XINFO GROUPS):
    // with none, nothing is ever pending and it is an event log.
    if (s.type == "stream" && !s.sampleFields.isEmpty())
        return KeyClaim{QStringLiteral("stream with groups"), 30};
    return std::nullopt;
}

QList<PatternObject> StreamGroupUnit::groupClaims(ClaimPool &pool) const
{
    QList<PatternObject> out;
    for (const QByteArray &key : pool.won(Kind)) {
        PatternObject o = objectOf(key, DefaultDeadKey);
        o.source = QStringLiteral("autodetected");
        pool.take(key);
        pool.take(deadKey(o));
        out.append(o);
    }
    return out;
}

QList<Evidence> StreamGroupUnit::structureEvidence(const PatternObject &o,
                                                   const ClaimPool &pool) const
{
    const ClaimPool::Entry *e = pool.find(o.key);
    QStringList groups;
    for (const QByteArray &g : e ? e->shape.sampleFields : QList<QByteArray>())
        groups << printableBytes(g, 40);
    return {{Evidence::Kind::Structure, 5,
             QStringLiteral("a stream read by consumer groups (%1): its entries are delivered "
                            "and acknowledged")
                 .arg(groups.join(QStringLiteral(", ")))}};
}

QList<QByteArray> StreamGroupUnit::wordsFor() const
{
    return {"stream", "streams", "queue", "jobs", "tasks", "events", "messages"};
}

ProfileRule StreamGroupUnit::suggestRule(const PatternObject &o) const
{
    ProfileRule rule = PatternUnit::suggestRule(o);
    rule.deadKey = DefaultDeadKey;
    rule.params.stuckAfterMs = o.params.stuckAfterMs;
    return rule;
}

QList<PatternUnit::Command> StreamGroupUnit::probe(const PatternObject &o,
                                                   const ProbeContext &) const
{
    return {{"EVAL", readScript(), "1", o.key, number(MaxGroups), number(MaxConsumers),
             number(std::clamp(o.params.pageSize, 1, 1000)), number(o.params.stuckAfterMs)},
            {"XLEN", deadKey(o)},
            // The newest entry: whose messages the stream carries.
            {"XREVRANGE", o.key, "+", "-", "COUNT", "1"}};
}

// Whether a stream's newest entry (XREVRANGE COUNT 1) is a Symfony
// Messenger message (symfony/redis-messenger 5.4, Connection::add): one
// field "message" holding JSON {"body", "headers"}, PHP-serialized by the
// transport's default phpredis serializer ('s:<bytes>:"<json>";') or not.
namespace {

bool isSymfonyMessenger(const RedisValue &newest)
{
    if (newest.size() != 1 || newest.at(0).size() != 2)
        return false;
    const RedisValue fields = newest.at(0).at(1);
    if (fields.size() != 2 || fields.at(0).bytes() != "message")
        return false;
    QByteArray json = fields.at(1).bytes();
    if (json.startsWith("s:") && json.endsWith("\";")) {
        const qsizetype quote = json.indexOf(':', 2);
        json = quote > 0 ? json.mid(quote + 2).chopped(2) : QByteArray();
    }
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    return doc.isObject() && doc.object().value(QStringLiteral("body")).isString()
           && doc.object().contains(QStringLiteral("headers"));
}

} // namespace

Reading StreamGroupUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                              const ProbeContext &c) const
{
    if (auto f = failure(o, r, {o.key, deadKey(o), o.key}, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    if (r.size() < 3
        || !readReply(r.at(0), o.params.stuckAfterMs, std::clamp(o.params.pageSize, 1, 1000),
                      reading)) {
        reading = Reading{};
        reading.atMs = c.nowMs;
        reading.status = Reading::Status::Error;
        reading.message
            = QStringLiteral("Unexpected reply reading stream \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    if (reading.status == Reading::Status::Missing) {
        reading.message = QStringLiteral("No stream \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    reading.editQueue().deadLength = std::max<qint64>(0, r.at(1).toInteger());
    if (isSymfonyMessenger(r.at(2)))
        reading.editLibrary().layoutVersion = QStringLiteral("symfony-messenger");
    return reading;
}

QList<Figure> StreamGroupUnit::figures() const
{
    return {
        {QStringLiteral("length"), QStringLiteral("Entries"), false,
         [](const Reading &r, qint64) {
             return double(r.queue().length);
         }},
        {QStringLiteral("pending"), QStringLiteral("Pending"), false,
         [](const Reading &r, qint64) {
             return double(r.queue().inFlight);
         }},
        {QStringLiteral("stuck"), QStringLiteral("Stuck"), false,
         [](const Reading &r, qint64) {
             return double(r.queue().stuck);
         }},
        {QStringLiteral("lag"), QStringLiteral("Lag"), false,
         [](const Reading &r, qint64) {
             for (const StateCount &c : r.library().counts) {
                 if (c.state == QLatin1String("lag"))
                     return double(c.count);
             }
             return qQNaN();
         }},
        {QStringLiteral("oldestPendingIdleMs"), QStringLiteral("Oldest pending idle"), true,
         [](const Reading &r, qint64 at) {
             return double(r.ageAt(r.queue().oldestInFlightAgeMs, at));
         }},
        libraryqueue::oldestWaitingFigure(),
    };
}

QList<Column> StreamGroupUnit::columns() const
{
    libraryqueue::ColumnOptions options;
    options.stuckMayBeMore = true;
    options.noThroughput = QStringLiteral("Redis counts no acknowledged entries (XACK leaves "
                                          "no trace), so a stream has no throughput here.");
    return libraryqueue::columns(QStringLiteral("redis-streams"), options);
}

void StreamGroupUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                                QJsonObject &j) const
{
    libraryqueue::writeJson(r, QJsonArray{keyToJson(s.object->key), keyToJson(deadKey(s.object))},
                            j);
    libraryqueue::writeLatencyJson(r, nowMs, j);
    const StreamInfo info = unpack(r);
    j.insert(QStringLiteral("stuckAfterMs"), double(s.object->params.stuckAfterMs));
    j.insert(
        QStringLiteral("stream"),
        QJsonObject{{QStringLiteral("length"), double(info.length)},
                    {QStringLiteral("firstId"), QString::fromLatin1(info.firstId)},
                    {QStringLiteral("lastId"), QString::fromLatin1(info.lastId)},
                    {QStringLiteral("firstAgeMs"), idAge(info.firstId, nowMs)},
                    {QStringLiteral("lastAgeMs"), idAge(info.lastId, nowMs)},
                    {QStringLiteral("lastGeneratedId"), QString::fromLatin1(info.lastGeneratedId)},
                    {QStringLiteral("groupCount"), double(info.groupsTotal)}});
    const qint64 elapsed = std::max<qint64>(0, nowMs - r.atMs);
    QJsonArray groups;
    for (const Group &g : info.groups) {
        QJsonArray consumers;
        for (const Consumer &c : g.consumerList)
            consumers.append(QJsonObject{
                {QStringLiteral("name"), keyToJson(c.name)},
                {QStringLiteral("pending"), double(c.pending)},
                {QStringLiteral("idleMs"), orNull(c.idleMs < 0 ? -1 : c.idleMs + elapsed)},
                {QStringLiteral("inactiveMs"),
                 orNull(c.inactiveMs < 0 ? -1 : c.inactiveMs + elapsed)},
                {QStringLiteral("quiet"),
                 c.idleMs < 0 || c.idleMs + elapsed >= s.object->params.stuckAfterMs}});
        groups.append(QJsonObject{
            {QStringLiteral("name"), keyToJson(g.name)},
            {QStringLiteral("consumerCount"), double(g.consumers)},
            {QStringLiteral("pending"), double(g.pending)},
            {QStringLiteral("lag"), orNull(g.lag)},
            {QStringLiteral("entriesRead"), orNull(g.entriesRead)},
            {QStringLiteral("lastDeliveredId"), QString::fromLatin1(g.lastDeliveredId)},
            {QStringLiteral("oldestPendingId"),
             g.oldestPendingId.isEmpty() ? QJsonValue()
                                         : QJsonValue(QString::fromLatin1(g.oldestPendingId))},
            {QStringLiteral("consumers"), consumers}});
    }
    j.insert(QStringLiteral("groups"), groups);
    QJsonArray pending;
    for (const InFlightItem &e : r.queue().items)
        pending.append(QJsonObject{{QStringLiteral("id"), QString::fromLatin1(e.job)},
                                   {QStringLiteral("group"), keyToJson(e.queue)},
                                   {QStringLiteral("consumer"), keyToJson(e.holder)},
                                   {QStringLiteral("idleMs"), double(e.ageMs)},
                                   {QStringLiteral("deliveries"), double(e.attempts)}});
    j.insert(QStringLiteral("pendingEntries"), pending);
}

QStringList StreamGroupUnit::itemHeaders() const
{
    return {QStringLiteral("Group, consumer or entry"),
            QStringLiteral("Group"),
            QStringLiteral("Consumer"),
            QStringLiteral("Idle"),
            QStringLiteral("Pending"),
            QStringLiteral("State")};
}

QList<QStringList> StreamGroupUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> out;
    for (const Row &row : rowsOf(s.reading, s.object->params.stuckAfterMs, nowMs))
        out.append(row.text);
    return out;
}

QHash<QString, QByteArray> StreamGroupUnit::itemInputs(const ObjectState &s, int i) const
{
    const QList<Row> rows = rowsOf(s.reading, s.object->params.stuckAfterMs, s.reading.atMs);
    if (i < 0 || i >= rows.size())
        return {};
    const Row &row = rows.at(i);
    QHash<QString, QByteArray> in{{QStringLiteral("group"), row.group}};
    if (row.kind != Row::Group)
        in.insert(QStringLiteral("consumer"), row.consumer);
    if (row.kind == Row::Entry)
        in.insert(QStringLiteral("job"), row.entry);
    return in;
}

std::optional<Attention> StreamGroupUnit::attention(const ObjectState &state, qint64) const
{
    return libraryqueue::stuckAttention(state, QStringLiteral("stuck"));
}

QString StreamGroupUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    return QStringLiteral("Stream %1: %2%3 pending entries stuck, oldest idle %4")
        .arg(displayName(state.object))
        .arg(r.queue().stuck)
        .arg(r.queue().stuckIsLowerBound ? QStringLiteral("+") : QString())
        .arg(formatMs(r.ageAt(r.queue().oldestInFlightAgeMs, nowMs)));
}

} // namespace gatehouse
