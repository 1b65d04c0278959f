// SPDX-License-Identifier: MIT
#include "dramatiqunit.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/libraryqueue/libraryqueue.h>
#include <redis/printabletext.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSet>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(DramatiqUnit::Kind, LibraryQueueUnit::judgement());

namespace {

const QByteArray Ns = "dramatiq:";
const QByteArray HeartbeatsKey = "dramatiq:__heartbeats__";
const QByteArray AcksPrefix = "dramatiq:__acks__.";

// The per-queue keys' suffixes after "dramatiq:<q>" (State order up to
// DeadMsgs) and their types.
constexpr const char *Suffixes[] = {"", ".msgs", ".DQ", ".DQ.msgs", ".XQ", ".XQ.msgs"};
constexpr const char *Types[] = {"list", "hash", "list", "hash", "zset", "hash"};

const char *OrphanReason = "fetched by worker %1, whose heartbeat stopped %2 ago (timeout %3): "
                           "Dramatiq's maintenance would put it back on its queue";

// The State of key (after the namespace) by its suffix, longest first, and
// the queue's name; -1 when it is none of a queue's keys.
int stateOf(const QByteArray &key, QByteArray *name)
{
    if (!key.startsWith(Ns) || key.startsWith(QByteArray(Ns + "__")))
        return -1;
    const QByteArray rest = key.mid(Ns.size());
    for (int s : {int(DramatiqUnit::DelayedMsgs), int(DramatiqUnit::DeadMsgs),
                  int(DramatiqUnit::Msgs), int(DramatiqUnit::Delayed), int(DramatiqUnit::Dead)}) {
        const QByteArray suffix = Suffixes[s];
        if (rest.endsWith(suffix) && rest.size() > suffix.size()) {
            if (name)
                *name = rest.left(rest.size() - suffix.size());
            return s;
        }
    }
    if (rest.isEmpty() || rest.contains(':'))
        return -1;
    if (name)
        *name = rest;
    return DramatiqUnit::Queue;
}

// An ack set's worker and queue (canonical: without ".DQ").
bool parseAcks(const QByteArray &key, QByteArray *worker, QByteArray *queue)
{
    if (!key.startsWith(AcksPrefix))
        return false;
    const QByteArray rest = key.mid(AcksPrefix.size());
    const qsizetype dot = rest.indexOf('.');
    if (dot <= 0 || dot + 1 >= rest.size())
        return false;
    *worker = rest.left(dot);
    QByteArray q = rest.mid(dot + 1);
    if (q.endsWith(".DQ") && q.size() > 3)
        q.chop(3);
    *queue = q;
    return true;
}

// A sampled message (HRANDFIELD ... WITHVALUES: id, JSON) is Dramatiq's:
// its options' redis_message_id is the field, with an actor and a queue
// named as expected; the reason when it is not, empty when it is or none.
QByteArray foreignMessage(const RedisValue &sample, const QList<QByteArray> &queues)
{
    const auto &e = sample.elements();
    if (e.size() < 2)
        return {};
    const QByteArray id = e.at(0).bytes();
    const QJsonObject m = QJsonDocument::fromJson(e.at(1).bytes()).object();
    if (m.value(QStringLiteral("options")).toObject().value(QStringLiteral("redis_message_id"))
            != QJsonValue(QString::fromUtf8(id))
        || !m.value(QStringLiteral("actor_name")).isString()
        || !queues.contains(m.value(QStringLiteral("queue_name")).toString().toUtf8()))
        return "message " + id.left(64) + " that is not a Dramatiq message of this queue";
    return {};
}

} // namespace

QByteArray DramatiqUnit::keyOf(const PatternObject &o, State s)
{
    const QByteArray k = o.relatedKey(s);
    if (!k.isEmpty())
        return k;
    return s == Heartbeats ? HeartbeatsKey : o.key + Suffixes[s];
}

QByteArray DramatiqUnit::nameOf(const QByteArray &key)
{
    QByteArray name;
    QByteArray worker;
    if (parseAcks(key, &worker, &name))
        return name;
    return stateOf(key, &name) >= 0 ? name : QByteArray();
}

PatternObject DramatiqUnit::objectForName(const QByteArray &name)
{
    PatternObject o;
    o.kind = Kind;
    o.key = Ns + name;
    for (int s = 0; s < Heartbeats; ++s)
        o.related << o.key + Suffixes[s];
    o.related << HeartbeatsKey;
    return o;
}

QList<PatternUnit::Command> DramatiqUnit::identifyProbe(const QByteArray &target) const
{
    const QByteArray name = nameOf(target);
    if (name.isEmpty())
        return {{"TYPE", target}};
    const PatternObject o = objectForName(name);
    return {{"TYPE", o.key},
            {"EXISTS", keyOf(o, Msgs), keyOf(o, DelayedMsgs), keyOf(o, Dead)},
            {"TYPE", HeartbeatsKey}};
}

bool DramatiqUnit::identifies(const QByteArray &target, const QList<RedisValue> &r) const
{
    return !nameOf(target).isEmpty() && r.size() == 3
           && (r.at(0).bytes() == "list" || r.at(0).bytes() == "none") && r.at(1).toInteger() > 0
           && r.at(2).bytes() == "zset";
}

std::optional<PatternObject> DramatiqUnit::objectFor(const ProfileRule &rule,
                                                     const QByteArray &key) const
{
    const QByteArray name = nameOf(key);
    if (name.isEmpty())
        return std::nullopt;
    PatternObject o = objectForName(name);
    if (!globMatch(rule.match, o.key) || rule.excludes(o.key))
        return std::nullopt;
    o.params = rule.params;
    o.source = QString(); // the registry names the rule
    return o;
}

PatternObject DramatiqUnit::conventionalObject(const QByteArray &key) const
{
    const QByteArray name = nameOf(key);
    return objectForName(name.isEmpty() ? key : name);
}

std::optional<KeyClaim> DramatiqUnit::claimKey(const KeyShape &shape, qint64) const
{
    if (shape.key == HeartbeatsKey)
        return shape.type == "zset"
                   ? std::optional<KeyClaim>(KeyClaim{QString::fromLatin1(HeartbeatsKey), 30})
                   : std::nullopt;
    QByteArray worker;
    QByteArray queue;
    if (parseAcks(shape.key, &worker, &queue))
        return shape.type == "set"
                   ? std::optional<KeyClaim>(KeyClaim{QStringLiteral("dramatiq:__acks__"), 30})
                   : std::nullopt;
    const int s = stateOf(shape.key, nullptr);
    if (s < 0 || shape.type != Types[s])
        return std::nullopt;
    return KeyClaim{QStringLiteral("dramatiq%1").arg(QString::fromLatin1(Suffixes[s])),
                    s == Queue ? 10 : 30};
}

QList<PatternObject> DramatiqUnit::groupClaims(ClaimPool &pool) const
{
    // A queue name is Dramatiq's when its messages hash (".msgs",
    // ".DQ.msgs", ".XQ.msgs") or dead-letter set is there and either the
    // heartbeats ZSET is, or a sampled message is Dramatiq's JSON (its
    // options' redis_message_id is the field): an application's "dramatiq:"
    // list alone is not a queue.
    const ClaimPool::Entry *hb = pool.find(HeartbeatsKey);
    const bool beating = hb && hb->shape.type == "zset";
    QMap<QByteArray, QList<QByteArray>> keysOf;
    QSet<QByteArray> evidence;
    QMap<QByteArray, QList<QByteArray>> acksOf;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (pool.roleOf(key, Kind).isEmpty())
            continue;
        QByteArray worker;
        QByteArray name;
        if (parseAcks(key, &worker, &name)) {
            acksOf[name] << key;
            continue;
        }
        const int s = stateOf(key, &name);
        if (s < 0)
            continue;
        keysOf[name] << key;
        const ClaimPool::Entry *e = pool.find(key);
        if (s == Queue || !e)
            continue;
        bool json = false;
        if (e->shape.type == "hash" && e->shape.sampleFields.size() >= 2) {
            RedisValue sample = RedisValue::array({RedisValue::bulk(e->shape.sampleFields.at(0)),
                                                   RedisValue::bulk(e->shape.sampleFields.at(1))});
            const QByteArray q = name;
            json = foreignMessage(sample, {q, q + ".DQ"}).isEmpty();
        }
        if (beating || json)
            evidence.insert(name);
    }
    QList<PatternObject> out;
    for (auto it = keysOf.cbegin(); it != keysOf.cend(); ++it) {
        if (!evidence.contains(it.key()))
            continue;
        PatternObject o = objectForName(it.key());
        o.source = QStringLiteral("autodetected");
        const QList<QByteArray> acks = acksOf.value(it.key()).mid(0, MaxAckSets);
        o.related << acks;
        out.append(o);
        for (const QByteArray &key : it.value() + acks)
            pool.take(key);
    }
    if (!out.isEmpty())
        pool.take(HeartbeatsKey);
    return out;
}

bool DramatiqUnit::merge(PatternObject &current, const PatternObject &found) const
{
    bool changed = false;
    for (qsizetype i = KeyCount; i < found.related.size(); ++i) {
        const QByteArray &acks = found.related.at(i);
        if (current.related.size() < KeyCount + MaxAckSets
            && !current.related.mid(KeyCount).contains(acks)) {
            current.related << acks;
            changed = true;
        }
    }
    return changed;
}

std::optional<PatternObject> DramatiqUnit::afterRead(const PatternObject &probed,
                                                     const PatternObject &current,
                                                     const QList<RedisValue> &r) const
{
    QList<QByteArray> empty;
    for (qsizetype i = KeyCount, at = AckReplies; i < probed.related.size() && at < r.size();
         ++i, at += 3) {
        if (at + 1 < r.size() && !r.at(at).isError() && r.at(at).toInteger() == 0
            && r.at(at + 1).isNil())
            empty << probed.related.at(i);
    }
    if (empty.isEmpty())
        return std::nullopt;
    PatternObject o = current;
    o.related = o.related.mid(0, KeyCount);
    for (qsizetype i = KeyCount; i < current.related.size(); ++i) {
        if (!empty.contains(current.related.at(i)))
            o.related << current.related.at(i);
    }
    return o;
}

QList<PatternUnit::Command> DramatiqUnit::probe(const PatternObject &o, const ProbeContext &) const
{
    const QByteArray page = number(std::max(1, o.params.pageSize));
    QList<Command> cmds{
        {"LLEN", keyOf(o, Queue)},
        {"HLEN", keyOf(o, Msgs)},
        {"LLEN", keyOf(o, Delayed)},
        {"HLEN", keyOf(o, DelayedMsgs)},
        {"ZCARD", keyOf(o, Dead)},
        {"HLEN", keyOf(o, DeadMsgs)},
        // One message of each hash, to tell Dramatiq's JSON from another's.
        {"HRANDFIELD", keyOf(o, Msgs), "1", "WITHVALUES"},
        {"HRANDFIELD", keyOf(o, DelayedMsgs), "1", "WITHVALUES"},
        {"HRANDFIELD", keyOf(o, DeadMsgs), "1", "WITHVALUES"},
        {"ZRANGE", keyOf(o, Dead), "0", "0", "WITHSCORES"},
        {"ZCARD", keyOf(o, Heartbeats)},
        // The oldest enqueued message's id (fetch LPOPs the head).
        {"LINDEX", keyOf(o, Queue), "0"},
    };
    // Each ack set discovery found: its size, its worker's heartbeat (ms)
    // and a page of its messages.
    for (qsizetype i = KeyCount; i < o.related.size(); ++i) {
        QByteArray worker;
        QByteArray queue;
        parseAcks(o.related.at(i), &worker, &queue);
        cmds.append({"SCARD", o.related.at(i)});
        cmds.append({"ZSCORE", keyOf(o, Heartbeats), worker});
        cmds.append({"SRANDMEMBER", o.related.at(i), page});
    }
    return cmds;
}

QList<PatternUnit::Command> DramatiqUnit::followUp(const PatternObject &o,
                                                   const QList<RedisValue> &r,
                                                   const ProbeContext &) const
{
    // The head's message, for when it was sent (message_timestamp).
    if (r.size() <= OldestReply || !r.at(OldestReply).isBulk())
        return {};
    return {{"HGET", keyOf(o, Msgs), r.at(OldestReply).bytes()}};
}

namespace {

// When the message (Message.encode's JSON) was sent: message_timestamp, ms;
// -1 when it says none.
qint64 sentAtMs(const RedisValue &message)
{
    if (!message.isBulk())
        return -1;
    const QJsonValue at = QJsonDocument::fromJson(message.bytes())
                              .object()
                              .value(QStringLiteral("message_timestamp"));
    return at.isDouble() ? libraryqueue::epochMs(at) : -1;
}

} // namespace

Reading DramatiqUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                           const ProbeContext &c) const
{
    QList<QByteArray> replyKeys{keyOf(o, Queue),       keyOf(o, Msgs),        keyOf(o, Delayed),
                                keyOf(o, DelayedMsgs), keyOf(o, Dead),        keyOf(o, DeadMsgs),
                                keyOf(o, Msgs),        keyOf(o, DelayedMsgs), keyOf(o, DeadMsgs),
                                keyOf(o, Dead),        keyOf(o, Heartbeats),  keyOf(o, Queue)};
    for (qsizetype i = KeyCount; i < o.related.size(); ++i)
        replyKeys << o.related.at(i) << keyOf(o, Heartbeats) << o.related.at(i);
    if (auto f = failure(o, r, replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    const qint64 timeoutMs = o.params.stuckAfterMs;
    const QByteArray q = o.key.mid(Ns.size());

    QMap<QByteArray, LibraryPart> workers;
    qint64 unacked = 0;
    for (qsizetype i = KeyCount, at = AckReplies; i < o.related.size(); ++i, at += 3) {
        QByteArray worker;
        QByteArray queue;
        parseAcks(o.related.at(i), &worker, &queue);
        const qint64 n = r.at(at).toInteger();
        unacked = saturatingAdd(unacked, n);
        bool ok = false;
        const qint64 beat = r.at(at + 1).bytes().toLongLong(&ok);
        LibraryPart &p = workers[worker];
        p.kind = QStringLiteral("process");
        p.name = worker;
        p.count = saturatingAdd(p.count, n);
        p.ageMs = ok ? std::max<qint64>(0, saturatingSub(c.nowMs, beat)) : -1;
        p.alive = ok && saturatingSub(c.nowMs, beat) <= timeoutMs;
        // Without a heartbeat at all Dramatiq's maintenance never finds the
        // worker (it removes a heartbeat only once its ack sets are gone):
        // listed, not counted as orphaned.
        if (p.alive || n == 0 || !ok)
            continue;
        reading.editQueue().stuck = saturatingAdd(reading.queue().stuck, n);
        const QString why = QString::fromLatin1(OrphanReason)
                                .arg(printableBytes(worker, 64),
                                     formatMs(saturatingSub(c.nowMs, beat)), formatMs(timeoutMs));
        for (const RedisValue &m : r.at(at + 2).elements()) {
            if (reading.editLibrary().stuckJobs.size() < o.params.pageSize)
                reading.editLibrary().stuckJobs.append({m.bytes(), why, beat});
        }
    }
    for (qsizetype i = KeyCount, at = AckReplies; i < o.related.size(); ++i, at += 3) {
        QByteArray worker;
        QByteArray queue;
        parseAcks(o.related.at(i), &worker, &queue);
        for (const RedisValue &m : r.at(at + 2).elements()) {
            if (reading.queue().items.size() >= o.params.pageSize)
                break;
            InFlightItem item;
            item.job = m.bytes();
            item.holder = worker;
            item.queue = o.related.at(i).mid(AcksPrefix.size() + worker.size() + 1);
            item.source = AgeSource::Library;
            item.locked = workers.value(worker).alive;
            item.ageMs = std::max<qint64>(0, workers.value(worker).ageMs);
            reading.editQueue().items.append(item);
        }
    }
    reading.editLibrary().parts = workers.values();
    reading.editLibrary().workers = workers.size();
    reading.editLibrary().workersAlive
        = std::count_if(reading.editLibrary().parts.cbegin(), reading.editLibrary().parts.cend(),
                        [](const LibraryPart &p) { return p.alive; });

    reading.editLibrary().counts = {{QStringLiteral("enqueued"), r.at(0).toInteger()},
                                    {QStringLiteral("delayed"), r.at(2).toInteger()},
                                    {QStringLiteral("unacked"), unacked},
                                    {QStringLiteral("dead"), r.at(4).toInteger()},
                                    {QStringLiteral("orphaned"), reading.queue().stuck}};
    reading.editQueue().length = r.at(0).toInteger();
    reading.editQueue().inFlight = unacked;
    reading.editQueue().deadLength = r.at(4).toInteger();
    reading.editQueue().truncated = unacked > reading.queue().items.size();
    // The oldest enqueued message's age since it was sent, as Dramatiq
    // records no time a message was fetched: the follow-up's reply after the
    // ack sets' (none when no follow-up was sent).
    const qsizetype oldestAt = AckReplies + 3 * std::max<qsizetype>(0, o.related.size() - KeyCount);
    libraryqueue::setOldestWaiting(reading, r.size() > oldestAt ? sentAtMs(r.at(oldestAt)) : -1,
                                   c.nowMs, r.at(0).toInteger() == 0);

    const bool none = unacked == 0
                      && std::all_of(r.cbegin(), r.cbegin() + 5,
                                     [](const RedisValue &v) { return v.toInteger() == 0; });
    if (none) {
        reading.status = Reading::Status::Missing;
        reading.message
            = QStringLiteral("No Dramatiq messages for queue \"%1\".").arg(printableBytes(q));
        return reading;
    }
    QByteArray foreign = foreignMessage(r.at(6), {q});
    if (foreign.isEmpty())
        foreign = foreignMessage(r.at(7), {q + ".DQ"});
    if (foreign.isEmpty())
        foreign = foreignMessage(r.at(8), {q, q + ".DQ"});
    reading.editLibrary().layoutKnown = foreign.isEmpty();
    if (!reading.editLibrary().layoutKnown)
        reading.message = QStringLiteral("Layout with a %1 is not Dramatiq's (1.x): shown "
                                         "read-only.")
                              .arg(printableBytes(foreign));
    else if (reading.queue().truncated)
        reading.message = QStringLiteral("%1 messages unacked; %2 were read.")
                              .arg(unacked)
                              .arg(reading.queue().items.size());
    return reading;
}

QList<Figure> DramatiqUnit::figures() const
{
    return {
        countFigure(QStringLiteral("enqueued"), QStringLiteral("Enqueued"),
                    QStringLiteral("enqueued")),
        countFigure(QStringLiteral("delayed"), QStringLiteral("Delayed"),
                    QStringLiteral("delayed")),
        countFigure(QStringLiteral("inFlight"), QStringLiteral("Unacked"),
                    QStringLiteral("unacked")),
        countFigure(QStringLiteral("dead"), QStringLiteral("Dead letters"), QStringLiteral("dead")),
        stuckFigure(QStringLiteral("Orphaned")),
        {QStringLiteral("workersAlive"), QStringLiteral("Workers alive"), false,
         [](const Reading &r, qint64) {
             return double(std::max<qint64>(0, r.library().workersAlive));
         }},
        libraryqueue::oldestWaitingFigure(),
    };
}

QList<Chart> DramatiqUnit::charts() const
{
    return {{QStringLiteral("Messages by state"),
             QStringLiteral("messages"),
             {{QStringLiteral("enqueued"), QStringLiteral("enqueued")},
              {QStringLiteral("delayed"), QStringLiteral("delayed")},
              {QStringLiteral("inFlight"), QStringLiteral("unacked")},
              {QStringLiteral("dead"), QStringLiteral("dead letters")},
              {QStringLiteral("stuck"), QStringLiteral("orphaned")}}},
            libraryqueue::oldestWaitingChart()};
}

QList<LibraryQueueUnit::JobState> DramatiqUnit::states() const
{
    return {{QStringLiteral("enqueued")},
            {QStringLiteral("delayed")},
            {QStringLiteral("unacked"), JobStage::InFlight},
            {QStringLiteral("dead"), JobStage::Dead}};
}

LibraryQueueUnit::StuckRule DramatiqUnit::stuckRule() const
{
    // Dramatiq records no fetch time: no oldest age is said.
    return {QStringLiteral("stuck"),
            QStringLiteral("orphaned (unacked by a worker whose heartbeat stopped)"), QString()};
}

libraryqueue::ColumnOptions DramatiqUnit::columnOptions() const
{
    libraryqueue::ColumnOptions options;
    options.noThroughput = QStringLiteral("Dramatiq's Redis broker keeps no count of processed "
                                          "messages.");
    return options;
}

libraryqueue::JsonOptions DramatiqUnit::jsonOptions() const
{
    return {true, libraryqueue::LowerBound::Exact}; // SCARD of every ack set discovery found
}

void DramatiqUnit::writeLibraryJson(const ObjectState &, const Reading &r, qint64,
                                    QJsonObject &j) const
{
    QJsonArray workers;
    for (const LibraryPart &p : r.library().parts) {
        workers.append(QJsonObject{
            {QStringLiteral("worker"), QString::fromUtf8(p.name)},
            {QStringLiteral("unacked"), double(p.count)},
            {QStringLiteral("heartbeatAgeMs"), p.ageMs < 0 ? QJsonValue() : double(p.ageMs)},
            {QStringLiteral("alive"), p.alive}});
    }
    j.insert(QStringLiteral("workers"), workers);
}

QStringList DramatiqUnit::itemHeaders() const
{
    return {QStringLiteral("Unacked message"), QStringLiteral("Worker"),
            QStringLiteral("Worker's heartbeat")};
}

QList<QStringList> DramatiqUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items) {
        rows.append({printableBytes(item.job, 120), printableText(item.holder, 64),
                     item.locked
                         ? formatMs(s.reading.ageAt(item.ageMs, nowMs)) + QStringLiteral(" ago")
                         : QStringLiteral("stopped: orphaned")});
    }
    return rows;
}

} // namespace gatehouse
