// SPDX-License-Identifier: MIT
#include "celeryunit.h"
#include "celerylayout.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(CeleryUnit::Kind, LibraryQueueUnit::judgement());

using namespace CeleryInternal;

QByteArray CeleryUnit::keyOf(const PatternObject &o, State s)
{
    const QByteArray k = o.relatedKey(s);
    if (!k.isEmpty())
        return k;
    switch (s) {
    case Queue:
        return o.key;
    case Priority3:
        return o.key + Sep + '3';
    case Priority6:
        return o.key + Sep + '6';
    case Priority9:
        return o.key + Sep + '9';
    case Unacked:
        return UnackedKey;
    case UnackedIndex:
        return UnackedIndexKey;
    case UnackedMutex:
        return UnackedMutexKey;
    case Binding:
    case KeyCount:
        break;
    }
    return BindingPrefix + o.key;
}

qint64 CeleryUnit::defaultVisibilityMs()
{
    // kombu keeps its visibility_timeout in the workers' configuration, not
    // in Redis: a deployment that sets another one tells Gatehouse through a
    // profile rule's "visibilityTimeout" or, without a profile, this variable.
    bool ok = false;
    const qint64 s = qEnvironmentVariableIntValue("GATEHOUSE_CELERY_VISIBILITY_TIMEOUT", &ok);
    return ok && s > 0 ? s * 1000 : DefaultVisibilityMs;
}

PatternObject CeleryUnit::objectForQueue(const QByteArray &queue)
{
    PatternObject o;
    o.kind = Kind;
    o.key = queue;
    o.params.stuckAfterMs = defaultVisibilityMs();
    for (int s = 0; s < KeyCount; ++s)
        o.related << keyOf(o, State(s));
    return o;
}

QList<PatternUnit::Command> CeleryUnit::identifyProbe(const QByteArray &target) const
{
    return {{"TYPE", BindingPrefix + target}, {"TYPE", UnackedIndexKey}, {"TYPE", UnackedKey}};
}

bool CeleryUnit::identifies(const QByteArray &target, const QList<RedisValue> &r) const
{
    // Its binding set names it; Celery's default queue needs only kombu's
    // unacked keys (its binding may be gone with the last worker).
    return r.size() == 3
           && (r.at(0).bytes() == "set"
               || (target == "celery" && (r.at(1).bytes() == "zset" || r.at(2).bytes() == "hash")));
}

bool CeleryUnit::parseRule(RuleReader &r, const QJsonObject &o, ProfileRule &rule) const
{
    // kombu's transport option, in seconds.
    std::optional<qint64> visibility;
    if (!r.integer(o, "visibilityTimeout", &visibility))
        return false;
    rule.params.stuckAfterMs = visibility ? *visibility * 1000 : defaultVisibilityMs();
    return true;
}

void CeleryUnit::writeRule(const ProfileRule &r, QJsonObject &o) const
{
    o.insert(QStringLiteral("visibilityTimeout"), double(r.params.stuckAfterMs / 1000));
}

QList<QByteArray> CeleryUnit::scanGlobs(const ProfileRule &rule) const
{
    return {BindingPrefix + rule.match, rule.match};
}

std::optional<PatternObject> CeleryUnit::objectFor(const ProfileRule &rule,
                                                   const QByteArray &key) const
{
    QByteArray queue = key;
    if (key.startsWith(BindingPrefix))
        queue = key.mid(BindingPrefix.size());
    else if (const QByteArray base = priorityBase(key); !base.isEmpty())
        queue = base;
    if (queue.isEmpty() || isControlExchange(queue) || !globMatch(rule.match, queue)
        || rule.excludes(queue))
        return std::nullopt;
    PatternObject o = objectForQueue(queue);
    o.params = rule.params;
    o.source = QString(); // the registry names the rule
    return o;
}

PatternObject CeleryUnit::conventionalObject(const QByteArray &key) const
{
    return objectForQueue(key);
}

std::optional<KeyClaim> CeleryUnit::claimKey(const KeyShape &shape, qint64) const
{
    const QByteArray &k = shape.key;
    if (k.startsWith(BindingPrefix) && shape.type == "set")
        return KeyClaim{QStringLiteral("binding"), 40};
    if ((k.startsWith(ResultPrefix) || k.startsWith(GroupResultPrefix) || k.startsWith(ChordPrefix))
        && shape.type == "string")
        return KeyClaim{QStringLiteral("result"), 40};
    if (k == UnackedIndexKey && shape.type == "zset")
        return KeyClaim{QStringLiteral("unacked_index"), 30};
    if (shape.type == "list" && !priorityBase(k).isEmpty())
        return KeyClaim{QStringLiteral("priority list"), 30};
    // Names an application could use for itself: weak, and taken only when
    // kombu's own keys are beside them (groupClaims).
    if (k == UnackedKey && shape.type == "hash")
        return KeyClaim{QStringLiteral("unacked"), 5};
    if (k == UnackedMutexKey && shape.type == "string")
        return KeyClaim{QStringLiteral("unacked_mutex"), 5};
    if (k == "celery" && shape.type == "list")
        return KeyClaim{QStringLiteral("queue"), 5};
    return std::nullopt;
}

QList<PatternObject> CeleryUnit::groupClaims(ClaimPool &pool) const
{
    // A deployment is there when kombu's own keys are: a binding set or
    // unacked_index. Its queues are the exchanges it binds (Celery names a
    // queue's exchange after the queue; "celery" by default) and the queues
    // with priority lists; each object takes its lists, and the first takes
    // the deployment's shared keys (unacked, bindings, results).
    QList<QByteArray> queues;
    QList<QByteArray> shared;
    bool anchored = false;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        const QString role = pool.roleOf(key, Kind);
        if (role == QLatin1String("binding")) {
            anchored = true;
            shared << key;
            const QByteArray exchange = key.mid(BindingPrefix.size());
            if (!exchange.isEmpty() && !isControlExchange(exchange) && !queues.contains(exchange))
                queues << exchange;
        } else if (role == QLatin1String("unacked_index")) {
            anchored = true;
            shared << key;
        } else if (role == QLatin1String("priority list")) {
            const QByteArray base = priorityBase(key);
            if (!queues.contains(base))
                queues << base;
        } else if (role == QLatin1String("result")) {
            pool.take(key); // a result expires on its own: never a token
        } else {
            shared << key;
        }
    }
    if (!anchored)
        return {};
    if (queues.isEmpty())
        queues << "celery";
    QList<PatternObject> out;
    for (const QByteArray &queue : std::as_const(queues)) {
        PatternObject o = objectForQueue(queue);
        o.source = QStringLiteral("autodetected");
        for (const QByteArray &key : o.related)
            pool.take(key);
        out.append(o);
    }
    for (const QByteArray &key : std::as_const(shared))
        pool.take(key);
    return out;
}

QList<PatternUnit::Command> CeleryUnit::probe(const PatternObject &o, const ProbeContext &c) const
{
    const QByteArray page = number(std::max(1, o.params.pageSize));
    const QByteArray cutoff = secondsArg(double(c.nowMs - o.params.stuckAfterMs) / 1000.0);
    return {
        {"LLEN", keyOf(o, Queue)},
        {"LLEN", keyOf(o, Priority3)},
        {"LLEN", keyOf(o, Priority6)},
        {"LLEN", keyOf(o, Priority9)},
        {"HLEN", keyOf(o, Unacked)},
        {"ZCOUNT", keyOf(o, UnackedIndex), "-inf", cutoff},
        // The stuck ones, oldest first, with their delivery times.
        {"ZRANGEBYSCORE", keyOf(o, UnackedIndex), "-inf", cutoff, "WITHSCORES", "LIMIT", "0", page},
        // The oldest delivery: how long the oldest unacked message has run.
        {"ZRANGE", keyOf(o, UnackedIndex), "0", "0", "WITHSCORES"},
        {"PTTL", keyOf(o, UnackedMutex)},
        {"SCARD", keyOf(o, Binding)},
        {"SRANDMEMBER", keyOf(o, Binding), "16"},
        // This queue's share of the broker-wide unacked hash, by each entry's
        // routing key and priority (bounded HSCAN pages, server-side: the
        // messages never cross the wire). Read-only.
        {"EVAL", unackedProbe(), "3", keyOf(o, Unacked), keyOf(o, UnackedIndex), keyOf(o, Binding),
         o.key, exchangeOf(o), secondsArg(double(o.params.stuckAfterMs) / 1000.0),
         number(MaxUnackedExamined), page},
    };
}

namespace {

// A message past the visibility timeout, by its delivery tag and its
// delivery time (epoch seconds): a stuck job and an item.
void addStuck(Reading &reading, const QByteArray &tag, const QByteArray &delivered,
              const QString &reason, qint64 nowMs)
{
    bool ok = false;
    const double seconds = delivered.toDouble(&ok);
    const qint64 deliveredMs = ok ? qint64(seconds * 1000.0) : -1;
    reading.editLibrary().stuckJobs.append({tag, reason, deliveredMs});
    InFlightItem item;
    item.job = tag;
    item.source = AgeSource::Library;
    item.ageMs = ok ? std::max<qint64>(0, saturatingSub(nowMs, deliveredMs)) : 0;
    item.locked = false;
    reading.editQueue().items.append(item);
}

// The oldest delivery (epoch seconds): how long the oldest unacked message
// has run.
void setOldestAge(Reading &reading, const QByteArray &delivered, qint64 nowMs)
{
    bool ok = false;
    const double seconds = delivered.toDouble(&ok);
    if (ok)
        reading.editQueue().oldestInFlightAgeMs
            = std::max<qint64>(0, saturatingSub(nowMs, qint64(seconds * 1000.0)));
}

// celery_count_unacked's reply: {examined, complete, n0, n3, n6, n9,
// oldest delivery, its tag, past the timeout, tag, delivery, ...}. The note
// when it counted only the first entries of the broker's unacked.
QString readCounted(Reading &reading, const RedisValue &mine, qint64 unacked, const QString &reason,
                    qint64 nowMs)
{
    qint64 here = 0;
    for (int i = 0; i < 4; ++i) {
        const qint64 n = std::max<qint64>(0, mine.at(2 + i).toInteger());
        here = saturatingAdd(here, n);
        LibraryPart part;
        part.kind = QStringLiteral("priority");
        part.name = QByteArray::number(i * 3);
        part.count = n;
        reading.editLibrary().parts.append(part);
    }
    reading.editQueue().inFlight = here;
    reading.editQueue().stuck = mine.at(8).toInteger();
    if (!mine.at(6).bytes().isEmpty())
        setOldestAge(reading, mine.at(6).bytes(), nowMs);
    for (qsizetype i = 9; i + 1 < mine.size(); i += 2)
        addStuck(reading, mine.at(i).bytes(), mine.at(i + 1).bytes(), reason, nowMs);
    if (mine.at(1).toInteger() != 1) {
        reading.editQueue().stuckIsLowerBound = true;
        return QStringLiteral("unacked counted in the first %1 of its %2 entries (the broker's).")
            .arg(mine.at(0).toInteger())
            .arg(unacked);
    }
    return QString();
}

// The probe script could not run (EVAL refused, a Cluster's slots): the
// broker's figures, which every queue shares; the note saying so.
QString readBroker(Reading &reading, const QList<RedisValue> &r, const RedisValue &mine,
                   qint64 unacked, const QString &reason, qint64 nowMs)
{
    reading.editQueue().inFlight = unacked;
    reading.editQueue().stuck = r.at(5).toInteger();
    const QList<RedisValue> &stuck = r.at(6).elements();
    for (qsizetype i = 0; i + 1 < stuck.size(); i += 2)
        addStuck(reading, stuck.at(i).bytes(), stuck.at(i + 1).bytes(), reason, nowMs);
    const QList<RedisValue> &oldest = r.at(7).elements();
    if (oldest.size() == 2)
        setOldestAge(reading, oldest.at(1).bytes(), nowMs);
    return QStringLiteral("unacked is the broker's, not this queue's: counting it by routing "
                          "key failed (%1).")
        .arg(mine.isError() ? mine.errorMessage() : QStringLiteral("no reply"));
}

// The queues a sample of the binding set's members binds, sorted.
QStringList boundQueues(const RedisValue &members)
{
    QStringList bound;
    for (const RedisValue &m : members.elements()) {
        const QList<QByteArray> parts = m.bytes().split('\x06');
        // "<rk>\x06\x16<pattern>\x06\x16<queue>": split at \x06, the queue after the last \x16.
        if (parts.size() == 3 && parts.at(2).startsWith('\x16'))
            bound << printableBytes(parts.at(2).mid(1), 80);
    }
    bound.removeDuplicates();
    bound.sort();
    return bound;
}

} // namespace

Reading CeleryUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                         const ProbeContext &c) const
{
    const QList<QByteArray> replyKeys{
        keyOf(o, Queue),        keyOf(o, Priority3),    keyOf(o, Priority6),
        keyOf(o, Priority9),    keyOf(o, Unacked),      keyOf(o, UnackedIndex),
        keyOf(o, UnackedIndex), keyOf(o, UnackedIndex), keyOf(o, UnackedMutex),
        keyOf(o, Binding),      keyOf(o, Binding)};
    // The last reply, celery_count_unacked's, may fail alone (read below).
    if (auto f = failure(o, r.mid(0, replyKeys.size()), replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    if (r.size() < replyKeys.size() + 1) { // and celery_count_unacked's
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("Reading Celery queue \"%1\" got %2 replies for %3 "
                                         "commands.")
                              .arg(printableBytes(o.key))
                              .arg(r.size())
                              .arg(replyKeys.size() + 1);
        return reading;
    }
    qint64 queued = 0;
    for (int i = Queue; i <= Priority9; ++i)
        queued
            = saturatingAdd(queued, r.at(i).toInteger()); // sizes from replies (fuzz_patternread)
    const qint64 unacked = r.at(4).toInteger();
    const qint64 bindings = r.at(9).toInteger();
    if (queued == 0 && unacked == 0 && bindings == 0) {
        reading.status = Reading::Status::Missing;
        return reading;
    }
    reading.editQueue().length = queued;
    const QString reason = QStringLiteral("unacked for longer than the visibility timeout (%1): "
                                          "its worker died or never acknowledged it")
                               .arg(formatMs(o.params.stuckAfterMs));
    // celery_count_unacked's reply, else the broker's figures.
    const RedisValue &mine = r.value(replyKeys.size());
    const QString note = mine.isArray() && mine.size() >= 9
                             ? readCounted(reading, mine, unacked, reason, c.nowMs)
                             : readBroker(reading, r, mine, unacked, reason, c.nowMs);
    reading.editLibrary().counts = {{QStringLiteral("queued"), queued},
                                    {QStringLiteral("unacked"), reading.queue().inFlight}};
    reading.editQueue().truncated = reading.queue().stuck > reading.queue().items.size();
    const qint64 mutexMs = r.at(8).toInteger();
    const QStringList bound = boundQueues(r.at(10));
    if (!bound.isEmpty() && !bound.contains(printableBytes(o.key, 80)))
        reading.message = QStringLiteral("Exchange \"%1\" binds %2, not this queue.")
                              .arg(printableBytes(o.key), bound.join(QStringLiteral(", ")));
    else if (mutexMs > 0)
        reading.message = QStringLiteral("unacked_mutex held: a kombu worker is restoring "
                                         "unacked messages (expires in %1).")
                              .arg(formatMs(mutexMs));
    else if (reading.queue().truncated)
        reading.message = QStringLiteral("%1 messages past the visibility timeout; %2 were read.")
                              .arg(reading.queue().stuck)
                              .arg(reading.queue().items.size());
    else if (!note.isEmpty())
        reading.message = note;
    return reading;
}

QList<Figure> CeleryUnit::figures() const
{
    return {
        countFigure(QStringLiteral("wait"), QStringLiteral("Queued"), QStringLiteral("queued")),
        countFigure(QStringLiteral("inFlight"), QStringLiteral("Unacked"),
                    QStringLiteral("unacked")),
        stuckFigure(QStringLiteral("Past visibility timeout")),
        oldestFigure(QStringLiteral("Oldest unacked")),
    };
}

QList<Chart> CeleryUnit::charts() const
{
    return {{QStringLiteral("Messages"),
             QStringLiteral("messages"),
             {{QStringLiteral("wait"), QStringLiteral("queued")},
              {QStringLiteral("inFlight"), QStringLiteral("unacked")},
              {QStringLiteral("stuck"), QStringLiteral("past visibility timeout")}}},
            oldestChart(QStringLiteral("Oldest unacked"))};
}

libraryqueue::ColumnOptions CeleryUnit::columnOptions() const
{
    libraryqueue::ColumnOptions options;
    options.stuckMayBeMore = false;
    options.dead = false;
    options.noThroughput = QStringLiteral(
        "Celery's Redis transport keeps no count of finished tasks: a worker acknowledges a "
        "message by deleting it from \"unacked\", and results (if any) live in the result "
        "backend. The queue's length rises with new messages and falls as workers take them, "
        "so its changes are not finished work either: no throughput is shown.");
    return options;
}

QList<Column> CeleryUnit::columns() const
{
    QList<Column> out = LibraryQueueUnit::columns();
    // The oldest unacked message's cell also says when kombu restores it by
    // itself (a column of its own would be every queue's in the section).
    for (Column &c : out) {
        if (c.header != QLatin1String("Oldest in flight"))
            continue;
        c.text = [age = c.text](const ObjectState &s, qint64 nowMs) {
            const qint64 in = restoreInMs(s, nowMs);
            if (in < 0)
                return age(s, nowMs);
            return in > 0 ? QStringLiteral("%1 (kombu restores in %2)")
                                .arg(age(s, nowMs), formatMs(in))
                          : QStringLiteral("%1 (kombu restores it when a worker polls)")
                                .arg(age(s, nowMs));
        };
        c.toolTip = QStringLiteral(
            "How long the queue's oldest unacked message has been unacked, and when kombu puts "
            "it back on the queue by itself: its delivery plus the visibility timeout. kombu's "
            "restore_visible runs in a worker polling the broker, so with no worker it waits. "
            "queue requeue QUEUE --older-than MS --force restores it now.");
    }
    return out;
}

qint64 CeleryUnit::restoreInMs(const ObjectState &s, qint64 nowMs)
{
    const Reading &r = s.reading;
    if (r.queue().inFlight <= 0 || r.queue().oldestInFlightAgeMs < 0)
        return -1;
    return std::max<qint64>(0, saturatingSub(s.object->params.stuckAfterMs,
                                             r.ageAt(r.queue().oldestInFlightAgeMs, nowMs)));
}

void CeleryUnit::writeLibraryJson(const ObjectState &s, const Reading &, qint64 nowMs,
                                  QJsonObject &j) const
{
    j.insert(QStringLiteral("visibilityTimeoutMs"), double(s.object->params.stuckAfterMs));
    // This queue's unacked messages by priority sub-queue (kombu's steps).
    QJsonObject byPriority;
    for (const LibraryPart &p : s.reading.library().parts) {
        if (p.kind == QLatin1String("priority"))
            byPriority.insert(QString::fromLatin1(p.name), double(p.count));
    }
    if (!byPriority.isEmpty())
        j.insert(QStringLiteral("unackedByPriority"), byPriority);
    // When kombu puts the oldest back by itself (restore_visible, run by a
    // polling worker): its delivery + the visibility timeout.
    const qint64 in = restoreInMs(s, nowMs);
    j.insert(QStringLiteral("oldestUnackedRestoreInMs"),
             in >= 0 ? QJsonValue(double(in)) : QJsonValue());
    j.insert(QStringLiteral("oldestUnackedRestoreAtMs"),
             in >= 0 ? QJsonValue(double(saturatingAdd(nowMs, in))) : QJsonValue());
}

QStringList CeleryUnit::itemHeaders() const
{
    return {QStringLiteral("Delivery tag"), QStringLiteral("Unacked for")};
}

QList<QStringList> CeleryUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items)
        rows.append({printableBytes(item.job, 120), formatMs(s.reading.ageAt(item.ageMs, nowMs))});
    return rows;
}

LibraryQueueUnit::StuckRule CeleryUnit::stuckRule() const
{
    return {QStringLiteral("inFlight"), QStringLiteral("unacked past the visibility timeout"),
            QStringLiteral("oldest")};
}

} // namespace gatehouse
