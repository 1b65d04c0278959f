// SPDX-License-Identifier: MIT
#include "celeryunit.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue.h>
#include <patterns/matchcounter.h>
#include <patterns/sections.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace gatehouse {

namespace {

// kombu's default key names (Channel.unacked_key, unacked_index_key,
// unacked_mutex_key, keyprefix_queue) and priority steps (PRIORITY_STEPS
// [0, 3, 6, 9]: priority 0 is the queue's own list).
const QByteArray UnackedKey = "unacked";
const QByteArray UnackedIndexKey = "unacked_index";
const QByteArray UnackedMutexKey = "unacked_mutex";
const QByteArray BindingPrefix = "_kombu.binding.";
// The Redis result backend's keys (celery/backends/base.py KeyValueStoreBackend).
const QByteArray ResultPrefix = "celery-task-meta-";
const QByteArray GroupResultPrefix = "celery-taskset-meta-";
const QByteArray ChordPrefix = "chord-unlock-";

constexpr const char *Types[] = {"list", "list", "list", "list", "hash", "zset", "string", "set"};
constexpr const char *Roles[] = {"queue",   "priority 3 list", "priority 6 list", "priority 9 list",
                                 "unacked", "unacked_index",   "unacked_mutex",   "binding"};

// The exchanges of a worker's remote control and events: their queues are
// fanout and topic queues served by PUB/SUB, not lists.
bool isControlExchange(const QByteArray &exchange)
{
    return exchange.endsWith(".pidbox") || exchange == "celeryev";
}

// "<queue>\x06\x16<3|6|9>" -> "<queue>"; empty when key is not one.
QByteArray priorityBase(const QByteArray &key)
{
    const qsizetype at = key.lastIndexOf(CeleryUnit::Sep);
    if (at <= 0 || at + 3 != key.size())
        return {};
    const char p = key.at(at + 2);
    return p == '3' || p == '6' || p == '9' ? key.left(at) : QByteArray();
}

QByteArray secondsArg(double s)
{
    return QByteArray::number(s, 'f', 3);
}

ReplyMeaning oneTag(qint64 reply, const QByteArray &tag)
{
    const QString name = printableBytes(tag, 80);
    switch (reply) {
    case 1:
        return {true, QStringLiteral("Message %1 was put back on its queue.").arg(name)};
    case 0:
        return {false, QStringLiteral("Message %1 is not unacked (acknowledged, or already "
                                      "restored); nothing changed.")
                           .arg(name)};
    case -1:
        return {false, QStringLiteral("Message %1 is not past the visibility timeout (or has no "
                                      "delivery time): its worker may still be running it; "
                                      "nothing changed.")
                           .arg(name)};
    case -2:
        return {false, QStringLiteral("Message %1 goes to another queue (or is unreadable); "
                                      "nothing changed.")
                           .arg(name)};
    case -3:
        return {false, QStringLiteral("unacked_mutex is held: a kombu worker is restoring unacked "
                                      "messages right now; nothing changed. Try again shortly.")};
    default:
        return {
            false,
            QStringLiteral("Unexpected reply %1; nothing is known to have changed.").arg(reply)};
    }
}

} // namespace

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

Section CeleryUnit::section() const
{
    return sections::queue();
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
    };
}

Reading CeleryUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                         const ProbeContext &c) const
{
    const QList<QByteArray> replyKeys{
        keyOf(o, Queue),        keyOf(o, Priority3),    keyOf(o, Priority6),
        keyOf(o, Priority9),    keyOf(o, Unacked),      keyOf(o, UnackedIndex),
        keyOf(o, UnackedIndex), keyOf(o, UnackedIndex), keyOf(o, UnackedMutex),
        keyOf(o, Binding),      keyOf(o, Binding)};
    if (auto f = failure(o, r, replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    if (r.size() < replyKeys.size()) {
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("Unexpected reply reading Celery queue \"%1\".")
                              .arg(printableBytes(o.key));
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
    reading.length = queued;
    reading.inFlight = unacked;
    reading.counts = {{QStringLiteral("queued"), queued}, {QStringLiteral("unacked"), unacked}};
    reading.stuck = r.at(5).toInteger();
    const QString reason = QStringLiteral("unacked for longer than the visibility timeout (%1): "
                                          "its worker died or never acknowledged it")
                               .arg(formatMs(o.params.stuckAfterMs));
    const QList<RedisValue> stuck = r.at(6).elements();
    for (qsizetype i = 0; i + 1 < stuck.size(); i += 2) {
        bool ok = false;
        const double seconds = stuck.at(i + 1).bytes().toDouble(&ok);
        const qint64 deliveredMs = ok ? qint64(seconds * 1000.0) : -1;
        reading.stuckJobs.append({stuck.at(i).bytes(), reason, deliveredMs});
        InFlightItem item;
        item.job = stuck.at(i).bytes();
        item.source = AgeSource::Library;
        item.ageMs = ok ? std::max<qint64>(0, saturatingSub(c.nowMs, deliveredMs)) : 0;
        item.locked = false;
        reading.items.append(item);
    }
    reading.truncated = reading.stuck > reading.items.size();
    const QList<RedisValue> oldest = r.at(7).elements();
    if (oldest.size() == 2) {
        bool ok = false;
        const double seconds = oldest.at(1).bytes().toDouble(&ok);
        if (ok)
            reading.oldestInFlightAgeMs
                = std::max<qint64>(0, saturatingSub(c.nowMs, qint64(seconds * 1000.0)));
    }
    const qint64 mutexMs = r.at(8).toInteger();
    QStringList bound;
    for (const RedisValue &m : r.at(10).elements()) {
        const QList<QByteArray> parts = m.bytes().split('\x06');
        // "<rk>\x06\x16<pattern>\x06\x16<queue>": split at \x06, the queue after the last \x16.
        if (parts.size() == 3 && parts.at(2).startsWith('\x16'))
            bound << printableBytes(parts.at(2).mid(1), 80);
    }
    bound.removeDuplicates();
    bound.sort();
    if (!bound.isEmpty() && !bound.contains(printableBytes(o.key, 80)))
        reading.message = QStringLiteral("Exchange \"%1\" binds %2, not this queue.")
                              .arg(printableBytes(o.key), bound.join(QStringLiteral(", ")));
    else if (mutexMs > 0)
        reading.message = QStringLiteral("unacked_mutex held: a kombu worker is restoring "
                                         "unacked messages (expires in %1).")
                              .arg(formatMs(mutexMs));
    else if (reading.truncated)
        reading.message = QStringLiteral("%1 messages past the visibility timeout; %2 were read.")
                              .arg(reading.stuck)
                              .arg(reading.items.size());
    return reading;
}

QList<Figure> CeleryUnit::figures() const
{
    auto count = [](const char *state) {
        return libraryqueue::countFigure(QString::fromLatin1(state));
    };
    return {
        {QStringLiteral("wait"), QStringLiteral("Queued"), false, count("queued")},
        {QStringLiteral("inFlight"), QStringLiteral("Unacked"), false, count("unacked")},
        {QStringLiteral("stuck"), QStringLiteral("Past visibility timeout"), false,
         [](const Reading &r, qint64) {
             return double(r.stuck);
         }},
        {QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("Oldest unacked"), true,
         [](const Reading &r, qint64 at) {
             return double(r.ageAt(r.oldestInFlightAgeMs, at));
         }},
    };
}

QList<Chart> CeleryUnit::charts() const
{
    return {{QStringLiteral("Messages"),
             QStringLiteral("messages"),
             {{QStringLiteral("wait"), QStringLiteral("queued")},
              {QStringLiteral("inFlight"), QStringLiteral("unacked")},
              {QStringLiteral("stuck"), QStringLiteral("past visibility timeout")}}},
            {QStringLiteral("Oldest unacked"),
             QStringLiteral("s"),
             {{QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("oldest (s)"), 0.001}}}};
}

QList<Column> CeleryUnit::columns() const
{
    libraryqueue::ColumnOptions options;
    options.stuckMayBeMore = false;
    options.dead = false;
    options.noThroughput = QStringLiteral(
        "Celery's Redis transport keeps no count of finished tasks: a worker acknowledges a "
        "message by deleting it from \"unacked\", and results (if any) live in the result "
        "backend. The queue's length rises with new messages and falls as workers take them, "
        "so its changes are not finished work either: no throughput is shown.");
    return libraryqueue::columns(QStringLiteral("celery"), options);
}

void CeleryUnit::writeJson(const ObjectState &s, const Reading &r, qint64, QJsonObject &j) const
{
    libraryqueue::writeJson(r, keysToJson(s.object.related), j,
                            {false, libraryqueue::LowerBound::Omitted});
    j.insert(QStringLiteral("visibilityTimeoutMs"), double(s.object.params.stuckAfterMs));
}

QStringList CeleryUnit::itemHeaders() const
{
    return {QStringLiteral("Delivery tag"), QStringLiteral("Unacked for")};
}

QList<QStringList> CeleryUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.items)
        rows.append({printableBytes(item.job, 120), formatMs(s.reading.ageAt(item.ageMs, nowMs))});
    return rows;
}

QHash<QString, QByteArray> CeleryUnit::itemInputs(const ObjectState &s, int i) const
{
    return libraryqueue::itemJob(s, i);
}

std::optional<Attention> CeleryUnit::attention(const ObjectState &state, qint64) const
{
    return libraryqueue::stuckAttention(state, QStringLiteral("inFlight"));
}

QString CeleryUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    return QStringLiteral("Celery queue %1: %2 unacked past the visibility timeout, oldest %3")
        .arg(printableBytes(state.object.key))
        .arg(r.stuck)
        .arg(formatMs(r.ageAt(r.oldestInFlightAgeMs, nowMs)));
}

namespace {

// celery_restore with no tag (KEYS[2] unacked_index ZSET, delivery times in
// epoch seconds; ARGV[4] visibility timeout in seconds, ARGV[5] batch): the
// messages delivered before now - the timeout (ZCOUNT). The index is the
// broker's, shared by its queues: messages of another queue are counted here
// and left unacked by the run (it says how many).
[[maybe_unused]] const bool s_restoreCounted = MatchCounter::add(
    QStringLiteral("celery_restore"),
    {[](const ScriptCall &call, qint64 nowMs) {
         if (!call.args.value(2).isEmpty())
             return QList<QList<QByteArray>>();
         const double cutoff = double(nowMs) / 1000.0 - call.args.value(3).toDouble();
         return QList<QList<QByteArray>>{
             {"ZCOUNT", call.keys.value(1), "-inf", QByteArray::number(cutoff, 'f', 3)}};
     },
     [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
     [](const ScriptCall &call) {
         return QStringLiteral("they are restored %1 per run until none is left (the broker's "
                               "other queues' messages are counted too and left unacked)")
             .arg(QString::fromLatin1(call.args.value(4)));
     }});

} // namespace

QList<PatternAction> CeleryUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);

    libraryqueue::RequeueSpec requeue;
    requeue.jobLabel = QStringLiteral("Delivery tag");
    requeue.jobValue = QStringLiteral("TAG");
    requeue.stuckLabel = QStringLiteral("Every message past the visibility timeout");
    requeue.olderThanRefusal
        = QStringLiteral("A Celery message is stuck once it is unacked past the visibility "
                         "timeout: queue requeue takes no --older-than for a Celery queue (set "
                         "visibilityTimeout in its profile rule).");
    requeue.build = [batch, cut](const ActionRequest &r) {
        ScriptCall call;
        call.action = QStringLiteral("queue.requeue");
        call.script = QStringLiteral("celery_restore");
        for (State s : {Unacked, UnackedIndex, UnackedMutex, Queue, Binding}) {
            call.keys << keyOf(r.object, s);
            call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(Roles[s]),
                                                         QString::fromLatin1(Types[s]));
        }
        const QByteArray tag = r.input(QStringLiteral("job"));
        const qint64 visibility = r.object.params.stuckAfterMs;
        call.args = {r.object.key, r.object.key, tag, secondsArg(double(visibility) / 1000.0),
                     batch,        cut};
        if (!tag.isEmpty()) {
            call.summary = QStringLiteral("Put Celery message %1 back on queue \"%2\" if it is "
                                          "unacked past the visibility timeout (%3), as kombu's "
                                          "restore_by_tag does.")
                               .arg(printableBytes(tag, 80), printableBytes(r.object.key),
                                    formatMs(visibility));
            call.meaning = [tag](const RedisValue &v) {
                return oneTag(v.toInteger(), tag);
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Put every Celery message of \"%1\" unacked past the "
                                          "visibility timeout (%2) back on the queue, up to %3 per "
                                          "run, as kombu's restore_visible does (not while "
                                          "unacked_mutex is held).")
                               .arg(printableBytes(r.object.key), formatMs(visibility))
                               .arg(Batch);
            call.batch = Batch;
            call.batchSummary = QStringLiteral("Requeued %1 stuck messages.");
            call.meaning = [](const RedisValue &v) {
                if (!v.isArray())
                    return oneTag(v.toInteger(), {});
                const qint64 n = v.size() >= 2 ? v.at(1).toInteger() : 0;
                const qint64 skipped = v.size() >= 3 ? v.at(2).toInteger() : 0;
                QString text = n > 0 ? QStringLiteral("Requeued %1 stuck messages.").arg(n)
                                     : QStringLiteral("Nothing to do; nothing changed.");
                if (skipped > 0)
                    text += QStringLiteral(" %1 routed to another queue or unreadable were left "
                                           "unacked.")
                                .arg(skipped);
                return ReplyMeaning{n > 0, text};
            };
        }
        return call;
    };

    return libraryqueue::requeueActions(requeue);
}

QStringList CeleryUnit::jobStates() const
{
    return {QStringLiteral("queued"), QStringLiteral("unacked")};
}

JobStage CeleryUnit::jobStage(const QString &state) const
{
    return state == QLatin1String("unacked") ? JobStage::InFlight : JobStage::Waiting;
}

QList<JobVerb> CeleryUnit::jobVerbs(const QString &state) const
{
    // kombu's Redis transport keeps no dead letters: a rejected message is
    // dropped or requeued, so there is no dead tab's verb.
    Q_UNUSED(state)
    return {};
}

namespace {

// A kombu message (kombu/transport/virtual/base.py Message; Celery's task
// protocol 2 headers) as a page row: the task id, the task's name, its
// retries and, when known, when it was delivered.
JobRow messageRow(const QByteArray &message)
{
    JobRow row;
    QJsonObject m = QJsonDocument::fromJson(message).object();
    if (m.isEmpty()) {
        // unacked holds [message, exchange, routing_key].
        const QJsonArray a = QJsonDocument::fromJson(message).array();
        m = a.isEmpty() ? QJsonObject() : a.first().toObject();
    }
    const QJsonObject headers = m.value(QStringLiteral("headers")).toObject();
    row.id = headers.value(QStringLiteral("id")).toString().toUtf8().left(120);
    row.name
        = printableBytes(headers.value(QStringLiteral("task")).toString().toUtf8().left(200), 80);
    const QJsonValue retries = headers.value(QStringLiteral("retries"));
    row.attempts = retries.isDouble() ? qint64(retries.toDouble()) : -1;
    if (row.id.isEmpty())
        row.error = QStringLiteral("(not a Celery task message)");
    return row;
}

} // namespace

JobRead CeleryUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                            int count) const
{
    if (state == QLatin1String("queued")) {
        // kombu takes priority 0 (the queue's own list) first, then 3, 6, 9.
        return libraryqueue::pageOfLists(
            state, {keyOf(o, Queue), keyOf(o, Priority3), keyOf(o, Priority6), keyOf(o, Priority9)},
            offset, count, [](JobListing page, QList<libraryqueue::PageEntry> entries) {
                for (const libraryqueue::PageEntry &e : entries) {
                    JobRow row = messageRow(e.value);
                    row.ref
                        = libraryqueue::entryRef(e, row.id.isEmpty() ? e.value.left(64) : row.id);
                    page.rows.append(row);
                }
                return JobRead::done(page);
            });
    }
    if (state != QLatin1String("unacked"))
        return {};
    // unacked_index by delivery time (the oldest first); each message's size
    // before the message.
    const QByteArray unacked = keyOf(o, Unacked);
    return libraryqueue::pageOfSet(
        state, keyOf(o, UnackedIndex), false, offset, count,
        [unacked](JobListing page, QList<libraryqueue::PageEntry> entries) {
            if (entries.isEmpty())
                return JobRead::done(page);
            JobRead sizes;
            for (const libraryqueue::PageEntry &e : entries)
                sizes.commands.append({"HSTRLEN", unacked, e.value});
            sizes.next = [page, entries, unacked](const QList<RedisValue> &r) mutable {
                QList<QByteArray> readable;
                for (qsizetype i = 0; i < entries.size() && i < r.size(); ++i) {
                    if (r.at(i).toInteger() > 0 && r.at(i).toInteger() <= JobFieldCutBytes)
                        readable << entries.at(i).value;
                }
                auto finish
                    = [page, entries, r, readable](const QList<RedisValue> &messages) mutable {
                          for (qsizetype i = 0; i < entries.size(); ++i) {
                              const qsizetype at = readable.indexOf(entries.at(i).value);
                              JobRow row = at >= 0 && at < messages.size()
                                               ? messageRow(messages.at(at).bytes())
                                               : JobRow{};
                              if (at < 0) {
                                  const qint64 n = r.value(i).toInteger();
                                  row.error = n > 0 ? QStringLiteral("(%1 bytes; not read)").arg(n)
                                                    : QStringLiteral("(acknowledged or restored)");
                              }
                              if (row.id.isEmpty())
                                  row.id = entries.at(i).value;
                              row.ref = entries.at(i).value; // the delivery tag requeue --job takes
                              bool ok = false;
                              const double delivered = entries.at(i).score.toDouble(&ok);
                              row.atMs = ok ? libraryqueue::epochMs(delivered) : -1;
                              page.rows.append(row);
                          }
                          return JobRead::done(page);
                      };
                if (readable.isEmpty())
                    return finish({});
                JobRead messages;
                messages.commands.append(QList<QByteArray>{"HMGET", unacked} + readable);
                messages.next = [finish](const QList<RedisValue> &m) mutable {
                    return finish(m.value(0).elements());
                };
                return messages;
            };
            return sizes;
        });
}

JobRead CeleryUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    if (const auto entry = libraryqueue::parseEntryRef(job))
        return libraryqueue::entryDetail(job, *entry, QStringLiteral("Queued message."));
    // A delivery tag: the unacked message, [message, exchange, routing_key].
    const QByteArray unacked = keyOf(o, Unacked);
    JobRead read;
    read.commands = {{"HSTRLEN", unacked, job}};
    read.next = [unacked, job](const QList<RedisValue> &r) {
        const qint64 n = r.value(0).toInteger();
        if (r.value(0).isError() || n <= 0) {
            JobListing detail;
            detail.job = job;
            detail.ok = false;
            detail.message = r.value(0).isError()
                                 ? r.value(0).errorMessage()
                                 : QStringLiteral("Message %1 is not unacked any more "
                                                  "(acknowledged, or restored to its queue).")
                                       .arg(printableBytes(job, 80));
            return JobRead::done(detail);
        }
        if (n > JobFieldCutBytes) {
            JobListing detail;
            detail.job = job;
            detail.message = QStringLiteral("Not read (over %1 KiB): the message is %2 bytes.")
                                 .arg(JobFieldCutBytes / 1024)
                                 .arg(n);
            return JobRead::done(detail);
        }
        JobRead message;
        message.commands = {{"HGET", unacked, job}};
        message.next = [job](const QList<RedisValue> &m) {
            return JobRead::done(libraryqueue::jsonDetail(
                job, m.value(0).bytes(),
                QStringLiteral("Unacked message: [message, exchange, routing key].")));
        };
        return message;
    };
    return read;
}

} // namespace gatehouse
