// SPDX-License-Identifier: MIT
#include "rqunit.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue.h>
#include <patterns/matchcounter.h>
#include <patterns/sections.h>

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>

namespace gatehouse {

namespace {

// The per-queue keys' prefixes (State order up to SchedulerLock), then the
// shared keys' whole names.
constexpr const char *Prefixes[]
    = {"rq:queue:",    "rq:wip:",      "rq:finished:", "rq:failed:",           "rq:scheduled:",
       "rq:deferred:", "rq:canceled:", "rq:workers:",  "rq:clean_registries:", "rq:scheduler-lock:",
       "rq:queues",    "rq:workers",   "rq:suspended"};
constexpr const char *Types[] = {"list", "zset",   "zset",   "zset", "zset", "zset",  "zset",
                                 "set",  "string", "string", "set",  "set",  "string"};
constexpr int PerQueue = RqUnit::SchedulerLock + 1;

// RQ's own keys that belong to no one queue: job hashes (and their
// dependents, dependencies, RQ 1.12+ results streams, RQ 2 executions),
// worker hashes, the scheduler's; RQ 2's groups (rq/group.py: "rq:group:<id>",
// "rq:groups") and cron schedulers (rq/cron_scheduler_registry.py).
constexpr const char *GlobalPrefixes[]
    = {"rq:job:",       "rq:worker:",    "rq:results:", "rq:executions:",
       "rq:execution:", "rq:scheduler:", "rq:group",    "rq:cron_scheduler"};

// The state names RQ's own API uses (Queue.count, the registries'
// counts, JobStatus), in RQ's order.
constexpr const char *CountNames[]
    = {"queued", "started", "finished", "failed", "scheduled", "deferred", "canceled"};

const char *StuckReason = "abandoned: past its expiry in the started registry (its worker died "
                          "or overran its timeout); RQ's cleanup would fail it";

// RQ 2's intermediate queue of a queue (rq/intermediate_queue.py: the LIST
// "rq:queue:<name>:intermediate" a worker LMOVEs a job id into before it
// registers the job as started, and its "...:intermediate:first_seen:<id>"
// guards): the queue's own, never a queue of their own.
bool isIntermediate(const QByteArray &key)
{
    return key.startsWith("rq:queue:")
           && (key.endsWith(":intermediate") || key.contains(":intermediate:first_seen:"));
}

int perQueueState(const QByteArray &key)
{
    if (isIntermediate(key))
        return -1;
    for (int s = 0; s < PerQueue; ++s) {
        const QByteArray p = Prefixes[s];
        if (key.startsWith(p) && key.size() > p.size())
            return s;
    }
    return -1;
}

bool isShared(const QByteArray &key)
{
    for (int s = RqUnit::Queues; s < RqUnit::KeyCount; ++s) {
        if (key == Prefixes[s])
            return true;
    }
    return false;
}

bool isGlobal(const QByteArray &key)
{
    for (const char *p : GlobalPrefixes) {
        if (key.startsWith(p))
            return true;
    }
    return false;
}

// RQ's utcformat ('%Y-%m-%dT%H:%M:%S.%fZ', UTC; older RQ without the
// fraction) in ms; -1 when it is not one.
qint64 rqTimeMs(const QByteArray &v)
{
    if (v.size() < 19)
        return -1;
    QDateTime t = QDateTime::fromString(QString::fromLatin1(v.left(19)),
                                        QStringLiteral("yyyy-MM-ddTHH:mm:ss"));
    if (!t.isValid())
        return -1;
    t.setTimeSpec(Qt::UTC);
    qint64 ms = t.toMSecsSinceEpoch();
    if (v.size() > 20 && v.at(19) == '.') {
        const QByteArray frac = QByteArray(v.mid(20, 3) + "000").left(3);
        bool ok = false;
        const int f = frac.toInt(&ok);
        if (ok)
            ms += f;
    }
    return ms;
}

// A started-registry member's job id: RQ 1.x keeps the id, RQ 2.x
// "job_id:execution_id" (job ids hold no ':' in RQ 2).
QByteArray jobOfMember(const QByteArray &member)
{
    const qsizetype colon = member.indexOf(':');
    return colon < 0 ? member : member.left(colon);
}

ReplyMeaning oneJob(qint64 reply, const QByteArray &job, const QString &did, const QString &where)
{
    return libraryqueue::jobMeaning(
        reply, job, did,
        {{0, QStringLiteral("Job %1 is not in %2 (it moved on); nothing changed.")
                 .arg(QStringLiteral("%1"), where)},
         {-1, QStringLiteral("Job %1 is held by a live worker (its started-registry expiry is in "
                             "the future); nothing changed.")},
         {-2, QStringLiteral("There is no job %1 (rq:job:%1); nothing changed.")},
         {-4, QStringLiteral("Job %1 belongs to another queue (its origin); nothing changed.")},
         {-5, QStringLiteral("Job %1 is already canceled; nothing changed.")}});
}

ScriptCall baseCall(const PatternObject &o, const QString &action, const QString &script,
                    const QList<RqUnit::State> &keys)
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (RqUnit::State s : keys) {
        call.keys << RqUnit::keyOf(o, s);
        call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(Prefixes[s]),
                                                     QString::fromLatin1(Types[s]));
    }
    return call;
}

QByteArray queueName(const PatternObject &o)
{
    return o.key.mid(qsizetype(qstrlen(Prefixes[RqUnit::Queue])));
}

const QByteArray JobPrefix = "rq:job:";
// RQ 2's executions (rq/executions.py): a started job's execution hash
// "rq:execution:<job_id>:<execution_id>" and the job's ZSET of execution ids.
const QByteArray ExecutionPrefix = "rq:execution:";
const QByteArray ExecutionsPrefix = "rq:executions:";

} // namespace

QByteArray RqUnit::prefixOf(State s)
{
    return Prefixes[s];
}

QByteArray RqUnit::keyOf(const PatternObject &o, State s)
{
    const QByteArray k = o.relatedKey(s);
    if (!k.isEmpty())
        return k;
    return s < PerQueue ? QByteArray(Prefixes[s]) + queueName(o) : QByteArray(Prefixes[s]);
}

QByteArray RqUnit::nameOf(const QByteArray &key)
{
    const int s = perQueueState(key);
    return s < 0 ? QByteArray() : key.mid(qsizetype(qstrlen(Prefixes[s])));
}

PatternObject RqUnit::objectForName(const QByteArray &name)
{
    PatternObject o;
    o.kind = Kind;
    o.key = Prefixes[Queue] + name;
    for (int s = 0; s < KeyCount; ++s)
        o.related << (s < PerQueue ? Prefixes[s] + name : QByteArray(Prefixes[s]));
    return o;
}

Section RqUnit::section() const
{
    return sections::queue();
}

QList<PatternUnit::Command> RqUnit::identifyProbe(const QByteArray &target) const
{
    const QByteArray name = target.startsWith(Prefixes[Queue]) ? nameOf(target) : QByteArray();
    if (name.isEmpty())
        return {{"TYPE", target}};
    const PatternObject o = objectForName(name);
    return {{"TYPE", target},
            {"SISMEMBER", Prefixes[Queues], target},
            {"EXISTS", keyOf(o, Started), keyOf(o, Finished), keyOf(o, Failed), keyOf(o, Scheduled),
             keyOf(o, Deferred), keyOf(o, Canceled), keyOf(o, Workers)}};
}

bool RqUnit::identifies(const QByteArray &target, const QList<RedisValue> &r) const
{
    // "rq:queue:<name>", a list or none (an empty queue), that RQ knows:
    // in rq:queues, or with a registry or workers of its own.
    return target.startsWith(Prefixes[Queue]) && r.size() == 3
           && (r.at(0).bytes() == "list" || r.at(0).bytes() == "none")
           && (r.at(1).toInteger() == 1 || r.at(2).toInteger() > 0);
}

QList<QByteArray> RqUnit::scanGlobs(const ProfileRule &rule) const
{
    // A rule names queues by their list ("rq:queue:*"); an empty queue has
    // only its registries.
    const QByteArray queuePrefix = Prefixes[Queue];
    if (!rule.match.startsWith(queuePrefix))
        return {rule.match};
    const QByteArray names = rule.match.mid(queuePrefix.size());
    QList<QByteArray> globs;
    for (int s = Queue; s <= Workers; ++s)
        globs << Prefixes[s] + names;
    return globs;
}

std::optional<PatternObject> RqUnit::objectFor(const ProfileRule &rule, const QByteArray &key) const
{
    const QByteArray name = nameOf(key);
    if (name.isEmpty())
        return std::nullopt;
    const QByteArray base = Prefixes[Queue] + name;
    if (!globMatch(rule.match, base) || rule.excludes(base))
        return std::nullopt;
    PatternObject o = objectForName(name);
    o.params = rule.params;
    o.source = QString(); // the registry names the rule
    return o;
}

PatternObject RqUnit::conventionalObject(const QByteArray &key) const
{
    const QByteArray name = nameOf(key);
    return objectForName(name.isEmpty() ? key : name);
}

std::optional<KeyClaim> RqUnit::claimKey(const KeyShape &shape, qint64) const
{
    // Only RQ's own names ("rq:" and RQ's words), each with RQ's type; an
    // application's keys beside them keep their own pattern.
    const int s = perQueueState(shape.key);
    if (s >= 0)
        return shape.type == Types[s]
                   ? std::optional<KeyClaim>(KeyClaim{QString::fromLatin1(Prefixes[s]), 30})
                   : std::nullopt;
    for (int g = Queues; g < KeyCount; ++g) {
        if (shape.key == Prefixes[g])
            return shape.type == Types[g]
                       ? std::optional<KeyClaim>(KeyClaim{QString::fromLatin1(Prefixes[g]), 30})
                       : std::nullopt;
    }
    if (isGlobal(shape.key) || isIntermediate(shape.key))
        return KeyClaim{QStringLiteral("rq"), 20};
    return std::nullopt;
}

QList<PatternObject> RqUnit::groupClaims(ClaimPool &pool) const
{
    // RQ is there when one of its registries, its queue or worker sets, or a
    // job or worker hash is; then every queue name of a per-queue key is a
    // queue, and every RQ key is taken from the pool (job hashes, worker
    // hashes, the cleaning guard, the scheduler's lock), so none shows as a
    // lock, token or limiter of its own.
    QMap<QByteArray, int> names; // name -> keys
    bool evidence = false;
    QList<QByteArray> mine;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (pool.roleOf(key, Kind).isEmpty())
            continue;
        mine << key;
        const int s = perQueueState(key);
        if (s >= 0) {
            ++names[nameOf(key)];
            evidence = evidence || (s >= Started && s <= Canceled);
        } else {
            evidence = evidence || isShared(key) || key.startsWith("rq:job:")
                       || key.startsWith("rq:worker:");
        }
    }
    if (!evidence || names.isEmpty())
        return {};
    QList<PatternObject> out;
    for (auto it = names.cbegin(); it != names.cend(); ++it) {
        PatternObject o = objectForName(it.key());
        o.source = QStringLiteral("autodetected");
        out.append(o);
    }
    for (const QByteArray &key : std::as_const(mine))
        pool.take(key);
    for (const char *p : GlobalPrefixes) {
        for (const QByteArray &key : pool.under(p))
            pool.take(key);
    }
    return out;
}

QList<PatternUnit::Command> RqUnit::probe(const PatternObject &o, const ProbeContext &c) const
{
    const QByteArray page = number(std::max(1, o.params.pageSize));
    // RQ scores the started registry in whole seconds of its clock and
    // takes a score <= now as expired (StartedJobRegistry.cleanup).
    const QByteArray nowSec = number(c.nowMs / 1000);
    return {
        {"LLEN", keyOf(o, Queue)},
        {"ZCARD", keyOf(o, Started)},
        {"ZCARD", keyOf(o, Finished)},
        {"ZCARD", keyOf(o, Failed)},
        {"ZCARD", keyOf(o, Scheduled)},
        {"ZCARD", keyOf(o, Deferred)},
        {"ZCARD", keyOf(o, Canceled)},
        {"ZCOUNT", keyOf(o, Started), "-inf", nowSec},
        // The started registry's first page by score, the most overdue
        // first, with scores; and the same page's started_at (SORT of a
        // sorted set BY nosort keeps its order and reads only the page): an
        // RQ 1 member's job hash's, or an RQ 2 member's execution hash's
        // created_at (epoch seconds; that hash expires with the execution's
        // heartbeat, so an abandoned RQ 2 job's start is unknown here); and the
        // member's own job hash's origin (set: the member is an RQ 1 id).
        {"ZRANGE", keyOf(o, Started), "0", number(std::max(1, o.params.pageSize) - 1),
         "WITHSCORES"},
        {"SORT_RO", keyOf(o, Started), "BY", "nosort", "LIMIT", "0", page, "GET", "#", "GET",
         JobPrefix + "*->started_at", "GET", ExecutionPrefix + "*->created_at", "GET",
         JobPrefix + "*->origin"},
        {"SCARD", keyOf(o, Workers)},
        // The workers' hashes expire unless they heartbeat: a page of them,
        // with their last heartbeat and RQ version (members are the hashes'
        // keys). O(workers of the queue) to collect: a few, not jobs.
        {"SORT_RO", keyOf(o, Workers), "BY", "nosort", "LIMIT", "0", page, "GET", "#", "GET",
         "*->last_heartbeat", "GET", "*->version"},
        {"SISMEMBER", keyOf(o, Queues), o.key},
        {"EXISTS", keyOf(o, Suspended)},
    };
}

Reading RqUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                     const ProbeContext &c) const
{
    const QList<QByteArray> replyKeys{keyOf(o, Queue),    keyOf(o, Started),   keyOf(o, Finished),
                                      keyOf(o, Failed),   keyOf(o, Scheduled), keyOf(o, Deferred),
                                      keyOf(o, Canceled), keyOf(o, Started),   keyOf(o, Started),
                                      keyOf(o, Started),  keyOf(o, Workers),   keyOf(o, Workers),
                                      keyOf(o, Queues),   keyOf(o, Suspended)};
    if (auto f = failure(o, r, replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    if (r.size() < replyKeys.size()) {
        reading.status = Reading::Status::Error;
        reading.message
            = QStringLiteral("Unexpected reply reading \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    qint64 total = 0;
    for (int i = 0; i < 7; ++i) {
        reading.counts.append({QString::fromLatin1(CountNames[i]), r.at(i).toInteger()});
        total = saturatingAdd(total, r.at(i).toInteger()); // sizes from replies (fuzz_patternread)
    }
    reading.length = r.at(0).toInteger();
    reading.inFlight = r.at(1).toInteger();
    reading.deadLength = r.at(3).toInteger();
    reading.stuck = r.at(7).toInteger();
    reading.paused = r.at(13).toInteger() == 1; // rq suspend: every worker stops taking jobs
    reading.workers = r.at(10).toInteger();

    // Workers: alive while their hash (which they re-expire) exists.
    reading.workersAlive = 0;
    QByteArray version;
    const auto &w = r.at(11).elements();
    for (qsizetype i = 0; i + 2 < w.size(); i += 3) {
        if (!w.at(i + 1).isNil())
            ++reading.workersAlive;
        if (version.isEmpty() && !w.at(i + 2).isNil())
            version = w.at(i + 2).bytes().left(32);
    }

    if (total == 0 && r.at(12).toInteger() == 0 && reading.workers == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No RQ keys for queue \"%1\".").arg(printableBytes(o.key));
        return reading;
    }

    // The started page: members and scores, and the same page's started_at.
    const auto &scored = r.at(8).elements();
    QHash<QByteArray, qint64> startedAt;
    // Members with a job hash of their own name are RQ 1 job ids, ':' or not
    // (RQ 1 takes any id): "report:42" is its own job, not an execution of
    // "report" (as rq_requeue.lua reads them).
    QSet<QByteArray> ownJobs;
    const auto &sorted = r.at(9).elements();
    for (qsizetype i = 0; i + 3 < sorted.size(); i += 4) {
        if (!sorted.at(i + 3).isNil())
            ownJobs.insert(sorted.at(i).bytes());
        qint64 at = rqTimeMs(sorted.at(i + 1).bytes());
        if (at < 0 && !sorted.at(i + 2).isNil()) {
            bool ok = false;
            const double sec = sorted.at(i + 2).bytes().toDouble(&ok);
            at = ok && sec > 0 && sec < 1e11 ? qint64(sec * 1000) : -1;
        }
        startedAt.insert(sorted.at(i).bytes(), at);
    }
    const qint64 nowSec = c.nowMs / 1000;
    bool rq2 = false;
    bool unknownMember = false;
    for (qsizetype i = 0; i + 1 < scored.size(); i += 2) {
        const QByteArray member = scored.at(i).bytes();
        const bool ownJob = ownJobs.contains(member);
        const int colons = ownJob ? 0 : int(member.count(':'));
        rq2 = rq2 || colons == 1;
        unknownMember = unknownMember || colons > 1;
        const QByteArray score = scored.at(i + 1).bytes();
        bool ok = false;
        const double expiry = score.toDouble(&ok); // "inf" for a job without a timeout
        InFlightItem item;
        item.job = ownJob ? member : jobOfMember(member);
        item.source = AgeSource::Library;
        item.locked = !(ok && expiry <= double(nowSec));
        const qint64 since = startedAt.value(member, -1);
        item.ageMs = since >= 0 ? std::max<qint64>(0, saturatingSub(c.nowMs, since)) : 0;
        // One entry per job (an RQ 2 job may have several dead executions).
        if (!item.locked && reading.stuckJobs.size() < o.params.pageSize
            && std::none_of(reading.stuckJobs.cbegin(), reading.stuckJobs.cend(),
                            [&](const auto &s) { return s.job == item.job; }))
            reading.stuckJobs.append({item.job, QString::fromLatin1(StuckReason), since});
        reading.oldestInFlightAgeMs = std::max(reading.oldestInFlightAgeMs, item.ageMs);
        reading.items.append(item);
    }
    std::sort(reading.items.begin(), reading.items.end(),
              [](const InFlightItem &a, const InFlightItem &b) { return a.ageMs > b.ageMs; });
    reading.truncated = reading.inFlight > reading.items.size();

    // RQ records no layout version in Redis; its workers their own version.
    if (!version.isEmpty())
        reading.layoutVersion = QStringLiteral("rq:") + QString::fromUtf8(version);
    else if (rq2)
        reading.layoutVersion = QStringLiteral("rq:2 (execution members)");
    const bool knownMajor
        = version.isEmpty() || version.startsWith("1.") || version.startsWith("2.");
    reading.layoutKnown = knownMajor && !unknownMember;
    if (!reading.layoutKnown)
        reading.message = QStringLiteral("Layout %1 is not one Gatehouse knows (RQ 1-2): shown "
                                         "read-only.")
                              .arg(unknownMember ? QStringLiteral("of started-registry members "
                                                                  "with several ':'")
                                                 : reading.layoutVersion);
    else if (reading.truncated)
        reading.message = QStringLiteral("%1 jobs started; %2 were read.")
                              .arg(reading.inFlight)
                              .arg(reading.items.size());
    return reading;
}

QList<Figure> RqUnit::figures() const
{
    auto count = [](const char *state) {
        return libraryqueue::countFigure(QString::fromLatin1(state));
    };
    return {
        {QStringLiteral("queued"), QStringLiteral("Queued"), false, count("queued")},
        {QStringLiteral("inFlight"), QStringLiteral("Started"), false, count("started")},
        {QStringLiteral("failed"), QStringLiteral("Failed"), false, count("failed")},
        {QStringLiteral("finished"), QStringLiteral("Finished"), false, count("finished")},
        {QStringLiteral("stuck"), QStringLiteral("Abandoned"), false,
         [](const Reading &r, qint64) {
             return double(r.stuck);
         }},
        {QStringLiteral("workersAlive"), QStringLiteral("Workers alive"), false,
         [](const Reading &r, qint64) {
             return double(std::max<qint64>(0, r.workersAlive));
         }},
        {QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("Oldest started"), true,
         [](const Reading &r, qint64 at) {
             return double(r.ageAt(r.oldestInFlightAgeMs, at));
         }},
    };
}

QList<Chart> RqUnit::charts() const
{
    return {{QStringLiteral("Jobs by state"),
             QStringLiteral("jobs"),
             {{QStringLiteral("queued"), QStringLiteral("queued")},
              {QStringLiteral("inFlight"), QStringLiteral("started")},
              {QStringLiteral("failed"), QStringLiteral("failed")},
              {QStringLiteral("stuck"), QStringLiteral("abandoned")},
              {QStringLiteral("workersAlive"), QStringLiteral("workers alive")}}},
            {QStringLiteral("Oldest started"),
             QStringLiteral("s"),
             {{QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("oldest (s)"), 0.001}}},
            libraryqueue::throughputChart(QStringLiteral("finished"), QStringLiteral("failed"))};
}

QList<Column> RqUnit::columns() const
{
    return libraryqueue::columns(QStringLiteral("rq"));
}

void RqUnit::writeJson(const ObjectState &s, const Reading &r, qint64, QJsonObject &j) const
{
    // ZCOUNT counts the abandoned: exact.
    libraryqueue::writeJson(r, keysToJson(s.object.related), j,
                            {true, libraryqueue::LowerBound::Exact});
    j.insert(QStringLiteral("workers"), double(r.workers));
    j.insert(QStringLiteral("workersWithHeartbeat"), double(r.workersAlive));
}

QStringList RqUnit::itemHeaders() const
{
    return {QStringLiteral("Started job"), QStringLiteral("Running for"), QStringLiteral("Expiry")};
}

QList<QStringList> RqUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.items) {
        rows.append({printableBytes(item.job, 120), formatMs(s.reading.ageAt(item.ageMs, nowMs)),
                     item.locked ? QStringLiteral("ahead") : QStringLiteral("past: abandoned")});
    }
    return rows;
}

QHash<QString, QByteArray> RqUnit::itemInputs(const ObjectState &s, int i) const
{
    return libraryqueue::itemJob(s, i);
}

std::optional<Attention> RqUnit::attention(const ObjectState &state, qint64) const
{
    return libraryqueue::stuckAttention(state, QStringLiteral("stuck"));
}

QString RqUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    return QStringLiteral("RQ queue %1: %2 abandoned (started, past their expiry), oldest "
                          "started %3")
        .arg(printableBytes(state.object.key))
        .arg(r.stuck)
        .arg(formatMs(r.ageAt(r.oldestInFlightAgeMs, nowMs)));
}

namespace {

// rq_requeue with no job (KEYS[2] the registry ZSET, ARGV[3] "failed" or
// "abandoned", ARGV[4] batch): every failed job (ZCARD), or the started jobs
// whose expiry (the score, epoch seconds) has passed by the server's clock
// (ZCOUNT), as the script judges them.
[[maybe_unused]] const bool s_requeueCounted = MatchCounter::add(
    QStringLiteral("rq_requeue"),
    {[](const ScriptCall &call, qint64 nowMs) {
         if (!call.args.value(1).isEmpty())
             return QList<QList<QByteArray>>();
         if (call.args.value(2) == "abandoned")
             return QList<QList<QByteArray>>{
                 {"ZCOUNT", call.keys.value(1), "-inf", QByteArray::number(nowMs / 1000)}};
         return QList<QList<QByteArray>>{{"ZCARD", call.keys.value(1)}};
     },
     [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
     [](const ScriptCall &call) {
         return QStringLiteral("they are requeued %1 per run until none is left")
             .arg(QString::fromLatin1(call.args.value(3)));
     }});

} // namespace

QList<PatternAction> RqUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);

    libraryqueue::RequeueSpec requeue;
    requeue.stuckLabel = QStringLiteral("Every abandoned job");
    requeue.olderThanRefusal
        = QStringLiteral("An RQ job is abandoned when its started-registry expiry has passed: "
                         "queue requeue takes no --older-than for an RQ queue.");
    requeue.build = [batch, cut](const ActionRequest &r) {
        ScriptCall call = baseCall(r.object, QStringLiteral("queue.requeue"),
                                   QStringLiteral("rq_requeue"), {Queue, Started, Queues});
        const QByteArray job = r.input(QStringLiteral("job"));
        call.args
            = {JobPrefix,       job, "abandoned", batch, cut, queueName(r.object), ExecutionPrefix,
               ExecutionsPrefix};
        if (!job.isEmpty()) {
            call.summary = QStringLiteral("Put abandoned RQ job %1 of \"%2\" back on its queue "
                                          "(only if its started-registry expiry has passed), as "
                                          "RQ's StartedJobRegistry.requeue does.")
                               .arg(printableBytes(job, 80), printableBytes(r.object.key));
            call.meaning = [job](const RedisValue &v) {
                return oneJob(v.toInteger(), job, QStringLiteral("was requeued"),
                              QStringLiteral("the started registry"));
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Put every abandoned RQ job of \"%1\" (started, past its "
                                          "expiry) back on its queue, up to %2 per run, as RQ's "
                                          "StartedJobRegistry.requeue does.")
                               .arg(printableBytes(r.object.key))
                               .arg(Batch);
            call.batch = Batch;
            call.batchSummary = QStringLiteral("Requeued %1 abandoned jobs.");
            call.meaning
                = libraryqueue::batchMeaning(QStringLiteral("Requeued %1 abandoned jobs."));
        }
        return call;
    };

    PatternAction retry = libraryqueue::jobOrAllAction(
        QStringLiteral("retry"), QStringLiteral("Retry…"), QStringLiteral("all"),
        QStringLiteral("Every failed job"), [batch, cut](const ActionRequest &r) {
            ScriptCall call = baseCall(r.object, QStringLiteral("queue.retry"),
                                       QStringLiteral("rq_requeue"), {Queue, Failed, Queues});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args
                = {JobPrefix,       job, "failed", batch, cut, queueName(r.object), ExecutionPrefix,
                   ExecutionsPrefix};
            if (!job.isEmpty()) {
                call.summary = QStringLiteral("Requeue failed RQ job %1 of \"%2\", as RQ's "
                                              "FailedJobRegistry.requeue does.")
                                   .arg(printableBytes(job, 80), printableBytes(r.object.key));
                call.meaning = [job](const RedisValue &v) {
                    return oneJob(v.toInteger(), job, QStringLiteral("was requeued"),
                                  QStringLiteral("the failed registry"));
                };
            } else {
                call.summary = QStringLiteral("Requeue every failed RQ job of \"%1\", up to %2 per "
                                              "run, as `rq requeue --all` does.")
                                   .arg(printableBytes(r.object.key))
                                   .arg(Batch);
                call.batch = Batch;
                call.batchSummary = QStringLiteral("Requeued %1 failed jobs.");
                call.meaning
                    = libraryqueue::batchMeaning(QStringLiteral("Requeued %1 failed jobs."));
            }
            return call;
        });
    retry.check = [](const ActionRequest &r) -> QString {
        if (r.has(QStringLiteral("completed")))
            return QStringLiteral("RQ requeues failed jobs only: queue retry takes no "
                                  "--completed for an RQ queue.");
        return libraryqueue::oneOf(r, QStringLiteral("retry"), QStringLiteral("all"));
    };

    auto removeAction = [](bool cancel) {
        PatternAction a = libraryqueue::oneJobAction(
            cancel ? QStringLiteral("cancel") : QStringLiteral("delete"),
            cancel ? QStringLiteral("Cancel job…") : QStringLiteral("Delete job…"),
            cancel ? QStringLiteral("cancelButton") : QStringLiteral("deleteButton"), {});
        a.build = [cancel](const ActionRequest &r) {
            ScriptCall call = baseCall(
                r.object, cancel ? QStringLiteral("queue.cancel") : QStringLiteral("queue.delete"),
                QStringLiteral("rq_remove"),
                {Queue, Started, Finished, Failed, Scheduled, Deferred, Canceled});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {JobPrefix,
                         job,
                         cancel ? "cancel" : "delete",
                         queueName(r.object),
                         ExecutionPrefix,
                         ExecutionsPrefix};
            call.summary
                = cancel ? QStringLiteral("Cancel RQ job %1 of \"%2\": off its queue and "
                                          "registries, status canceled, into the canceled "
                                          "registry, as RQ's Job.cancel does; refused while a "
                                          "live worker holds it.")
                               .arg(printableBytes(job, 80), printableBytes(r.object.key))
                         : QStringLiteral("Delete RQ job %1 of \"%2\": off its queue and "
                                          "registries, and its hash, as RQ's Job.delete does; "
                                          "refused while a live worker holds it.")
                               .arg(printableBytes(job, 80), printableBytes(r.object.key));
            call.meaning = [job, cancel](const RedisValue &v) {
                return oneJob(v.toInteger(), job,
                              cancel ? QStringLiteral("was canceled")
                                     : QStringLiteral("was deleted"),
                              QStringLiteral("the queue"));
            };
            return call;
        };
        return a;
    };

    return libraryqueue::requeueActions(requeue)
           + QList<PatternAction>{retry, removeAction(true), removeAction(false)};
}

QStringList RqUnit::jobStates() const
{
    QStringList states;
    for (const char *name : CountNames)
        states << QString::fromLatin1(name);
    return states;
}

JobStage RqUnit::jobStage(const QString &state) const
{
    if (state == QLatin1String("started"))
        return JobStage::InFlight;
    if (state == QLatin1String("failed"))
        return JobStage::Dead;
    if (state == QLatin1String("finished") || state == QLatin1String("canceled"))
        return JobStage::Finished;
    return JobStage::Waiting; // queued, scheduled, deferred
}

QList<JobVerb> RqUnit::jobVerbs(const QString &state) const
{
    // FailedJobRegistry.requeue; RQ has no verb that fails a queued job or
    // purges failed jobs by age (its registries expire them: failure_ttl).
    if (state != QLatin1String("failed"))
        return {};
    return {{JobVerb::Role::RequeueFromDead, QStringLiteral("queue.retry"), {}}};
}

namespace {

// A job's fields a page shows (RQ 1.x and 2.x job hashes, rq/job.py to_dict).
const QList<QByteArray> RowFields{"description", "created_at", "enqueued_at", "started_at",
                                  "ended_at"};

// RQ keeps exc_info zlib-compressed (rq/job.py: zlib.compress(str(exc_info))):
// its text, or empty when it is not that.
QByteArray inflateExcInfo(const QByteArray &compressed)
{
    if (compressed.isEmpty())
        return {};
    // qUncompress wants the size first (big-endian); it grows past a short guess.
    QByteArray framed(4, '\0');
    const quint32 guess
        = quint32(std::min<qint64>(qint64(compressed.size()) * 8, JobFieldCutBytes));
    framed[0] = char(guess >> 24);
    framed[1] = char(guess >> 16);
    framed[2] = char(guess >> 8);
    framed[3] = char(guess);
    return qUncompress(framed + compressed);
}

// RQ 1.12+ on a server with streams keeps a failure's exc_info in the job's
// results stream ("rq:results:<id>", rq/results.py: the latest entry's
// exc_string, base64 of zlib) instead of its hash: the latest entry's text,
// or empty.
QByteArray streamExcInfo(const RedisValue &latest)
{
    if (latest.isError() || latest.size() < 1 || latest.at(0).size() != 2)
        return {};
    const RedisValue &fields = latest.at(0).at(1);
    for (qsizetype i = 0; i + 1 < fields.size(); i += 2) {
        if (fields.at(i).bytes() == "exc_string"
            && fields.at(i + 1).bytes().size() <= JobFieldCutBytes)
            return inflateExcInfo(QByteArray::fromBase64(fields.at(i + 1).bytes()));
    }
    return {};
}

// The exception a traceback ends with ("ZeroDivisionError: division by
// zero"): what a page shows of it.
QString lastLine(const QByteArray &text)
{
    const QList<QByteArray> lines = text.trimmed().split('\n');
    return lines.isEmpty() ? QString() : printableBytes(lines.last().trimmed().left(512), 200);
}

} // namespace

JobRead RqUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                        int count) const
{
    const int s = int(jobStates().indexOf(state));
    if (s < 0)
        return {};
    auto rows = [state](JobListing page, QList<libraryqueue::PageEntry> entries) {
        if (entries.isEmpty())
            return JobRead::done(page);
        JobRead read;
        QList<QByteArray> ids;
        for (const libraryqueue::PageEntry &e : entries) {
            ids << jobOfMember(e.value);
            read.commands.append(QList<QByteArray>{"HMGET", JobPrefix + ids.last()} + RowFields);
            read.commands.append({"HSTRLEN", JobPrefix + ids.last(), "exc_info"});
            read.commands.append({"XREVRANGE", "rq:results:" + ids.last(), "+", "-", "COUNT", "1"});
        }
        read.next = [page, ids, state](const QList<RedisValue> &r) mutable {
            QList<QByteArray> errors;
            for (qsizetype i = 0; i < ids.size() && 3 * i + 2 < r.size(); ++i) {
                JobRow row;
                row.id = ids.at(i);
                const RedisValue &f = r.at(3 * i);
                if (f.size() == RowFields.size() && !f.at(0).isNil()) {
                    const QByteArray description = f.at(0).bytes();
                    const qsizetype paren = description.indexOf('(');
                    row.name = printableBytes(
                        (paren > 0 ? description.left(paren) : description).left(200), 80);
                    // When it entered the state: enqueued, started, ended; created otherwise.
                    const int field = state == QLatin1String("queued")    ? 2
                                      : state == QLatin1String("started") ? 3
                                      : state == QLatin1String("finished")
                                              || state == QLatin1String("failed")
                                              || state == QLatin1String("canceled")
                                          ? 4
                                          : 1;
                    row.atMs = rqTimeMs(f.at(field).bytes());
                    if (row.atMs < 0)
                        row.atMs = rqTimeMs(f.at(1).bytes());
                } else {
                    row.error = QStringLiteral("(job hash gone: expired or deleted)");
                }
                const qint64 excLen = r.at(3 * i + 1).toInteger();
                if (excLen > JobFieldCutBytes)
                    row.error = QStringLiteral("(%1 bytes; see the job's detail)").arg(excLen);
                else if (excLen > 0)
                    errors << row.id;
                else if (const QByteArray exc = streamExcInfo(r.at(3 * i + 2)); !exc.isEmpty())
                    row.error = lastLine(exc);
                page.rows.append(row);
            }
            if (errors.isEmpty())
                return JobRead::done(page);
            JobRead excs;
            for (const QByteArray &id : errors)
                excs.commands.append({"HGET", JobPrefix + id, "exc_info"});
            excs.next = [page, errors](const QList<RedisValue> &rr) mutable {
                for (qsizetype i = 0; i < errors.size() && i < rr.size(); ++i) {
                    for (JobRow &row : page.rows) {
                        if (row.id == errors.at(i))
                            row.error = lastLine(inflateExcInfo(rr.at(i).bytes()));
                    }
                }
                return JobRead::done(page);
            };
            return excs;
        };
        return read;
    };
    if (s == Queue)
        return libraryqueue::pageOfLists(state, {keyOf(o, Queue)}, offset, count, rows);
    // Registries by score (expiry, or the time it is due): the next first,
    // finished and failed the latest first.
    return libraryqueue::pageOfSet(state, keyOf(o, State(s)), s == Finished || s == Failed, offset,
                                   count, rows);
}

JobRead RqUnit::jobDetail(const PatternObject &, const QByteArray &job) const
{
    static const QList<QByteArray> small{"description", "origin",      "status",   "created_at",
                                         "enqueued_at", "started_at",  "ended_at", "timeout",
                                         "worker_name", "retries_left"};
    const QByteArray key = JobPrefix + jobOfMember(job);
    JobRead read;
    read.commands = {{"TYPE", key},
                     QList<QByteArray>{"HMGET", key} + small,
                     {"HSTRLEN", key, "exc_info"},
                     {"HSTRLEN", key, "data"},
                     {"HSTRLEN", key, "result"},
                     {"XREVRANGE", "rq:results:" + jobOfMember(job), "+", "-", "COUNT", "1"}};
    read.next = [key, job](const QList<RedisValue> &r) {
        JobListing detail;
        detail.job = job;
        if (r.size() != 6 || r.at(0).bytes() != "hash") {
            detail.ok = false;
            detail.message = r.value(0).isError()
                                 ? r.value(0).errorMessage()
                                 : QStringLiteral("Job %1 is gone (%2 expired or was deleted).")
                                       .arg(printableBytes(job, 80), printableBytes(key, 120));
            return JobRead::done(detail);
        }
        QJsonObject json{{QStringLiteral("id"), keyToJson(jobOfMember(job))}};
        const RedisValue &f = r.at(1);
        for (qsizetype i = 0; i < small.size() && i < f.size(); ++i) {
            if (!f.at(i).isNil() && !f.at(i).bytes().isEmpty())
                json.insert(QString::fromLatin1(small.at(i)),
                            QString::fromUtf8(f.at(i).bytes().left(1024)));
        }
        // data and result are pickled: their size here, their decoded form as
        // payloads (data zlib-compressed too, rq/job.py to_dict).
        for (int i : {3, 4}) {
            const qint64 n = r.at(i).toInteger();
            if (n > 0)
                json.insert(i == 3 ? QStringLiteral("data") : QStringLiteral("result"),
                            QStringLiteral("(pickled, %1 bytes)").arg(n));
        }
        const qint64 dataLen = r.at(3).toInteger();
        const qint64 excLen = r.at(2).toInteger();
        auto finish = [json, detail, dataLen](const QByteArray &exc, const QString &message,
                                              const QByteArray &data) mutable {
            if (!data.isEmpty()) {
                JobPayload payload;
                payload.field = QStringLiteral("data");
                payload.bytes = data;
                payload.size = dataLen;
                payload.contentType = QStringLiteral("application/x-python-serialize");
                detail.payloads.append(payload);
            }
            if (!exc.isEmpty())
                json.insert(QStringLiteral("exc_info"),
                            QString::fromUtf8(exc.left(JobFieldCutBytes)));
            detail.detail = QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
            detail.message = message;
            return JobRead::done(detail);
        };
        // One more round trip for what is small enough to read: exc_info, data.
        JobRead more;
        const bool readExc = excLen > 0 && excLen <= JobFieldCutBytes;
        more.commands
            = {{"HGET", key, readExc ? QByteArray("exc_info") : QByteArray("-")},
               {"HGET", key, dataLen <= JobFieldCutBytes ? QByteArray("data") : QByteArray("-")}};
        const QByteArray streamed = excLen <= 0 ? streamExcInfo(r.at(5)) : QByteArray();
        more.next = [finish, excLen, readExc, streamed](const QList<RedisValue> &v) mutable {
            const QByteArray data = v.value(1).bytes();
            if (excLen > JobFieldCutBytes)
                return finish({},
                              QStringLiteral("Not read (over %1 KiB): exc_info (%2 bytes).")
                                  .arg(JobFieldCutBytes / 1024)
                                  .arg(excLen),
                              data);
            if (!readExc)
                return finish(streamed, {}, data);
            const QByteArray text = inflateExcInfo(v.value(0).bytes());
            return finish(
                text,
                text.size() > JobFieldCutBytes
                    ? QStringLiteral("exc_info cut to %1 KiB.").arg(JobFieldCutBytes / 1024)
                    : QString(),
                data);
        };
        return more;
    };
    return read;
}

} // namespace gatehouse
