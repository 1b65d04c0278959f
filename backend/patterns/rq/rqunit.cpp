// SPDX-License-Identifier: MIT
#include "rqunit.h"
#include "rqlayout.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/matchcounter.h>

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(RqUnit::Kind, LibraryQueueUnit::judgement());

using namespace RqInternal;

namespace {

// Where the probe's replies hold the started page and the job times' pages,
// and how many it has: the follow-up's replies come after them.
constexpr qsizetype StartedPage = 8;
constexpr qsizetype JobTimesAt = 13;
constexpr qsizetype ProbedReplies = 16;

// RQ's own keys that belong to no one queue: job hashes (and their
// dependents, dependencies, RQ 1.12+ results streams, RQ 2 executions),
// worker hashes, the scheduler's; RQ 2's groups (rq/group.py: "rq:group:<id>",
// "rq:groups") and cron schedulers (rq/cron_scheduler_registry.py).
constexpr const char *GlobalPrefixes[]
    = {"rq:job:",       "rq:worker:",    "rq:results:", "rq:executions:",
       "rq:execution:", "rq:scheduler:", "rq:group",    "rq:cron_scheduler"};

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

} // namespace

qint64 RqInternal::rqTimeMs(const QByteArray &v)
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
    return QList<Command>{
               {"LLEN", keyOf(o, Queue)},
               {"ZCARD", keyOf(o, Started)},
               {"ZCARD", keyOf(o, Finished)},
               {"ZCARD", keyOf(o, Failed)},
               {"ZCARD", keyOf(o, Scheduled)},
               {"ZCARD", keyOf(o, Deferred)},
               {"ZCARD", keyOf(o, Canceled)},
               {"ZCOUNT", keyOf(o, Started), "-inf", nowSec},
               // The started registry's first page by score, the most overdue
               // first, with scores; the follow-up reads when each started.
               libraryqueue::pageProbe(keyOf(o, Started), o.params.pageSize, false, true),
               {"SCARD", keyOf(o, Workers)},
               // The workers' hashes expire unless they heartbeat: a page of them,
               // with their last heartbeat and RQ version (members are the hashes'
               // keys). O(workers of the queue) to collect: a few, not jobs.
               {"SORT_RO", keyOf(o, Workers), "BY", "nosort", "LIMIT", "0", page, "GET", "#", "GET",
                "*->last_heartbeat", "GET", "*->version"},
               {"SISMEMBER", keyOf(o, Queues), o.key},
               {"EXISTS", keyOf(o, Suspended)},
           }
           + jobTimesProbe(o);
}

namespace {

const QList<QByteArray> TimeFields{"enqueued_at", "started_at", "ended_at"};

} // namespace

QList<PatternUnit::Command> RqUnit::jobTimesProbe(const PatternObject &o)
{
    // The finished and failed registries score a job by when its record
    // expires (result_ttl, failure_ttl after it ended): the highest are the
    // newest. The queue is pushed on the right and popped on the left.
    QList<Command> cmds{
        libraryqueue::pageProbe(keyOf(o, Finished), libraryqueue::FinishedPage, true),
        libraryqueue::pageProbe(keyOf(o, Failed), libraryqueue::FinishedPage / 4, true)};
    if (auto oldest
        = libraryqueue::jobFieldsProbe(keyOf(o, Queue), JobPrefix, TimeFields.mid(0, 1), 1, false))
        cmds.append(*oldest);
    return cmds;
}

QList<PatternUnit::Command> RqUnit::followUp(const PatternObject &, const QList<RedisValue> &r,
                                             const ProbeContext &) const
{
    if (r.size() < ProbedReplies)
        return {};
    // When each started job began: an RQ 1 member's job hash's started_at,
    // or an RQ 2 member's execution hash's created_at (epoch seconds; that
    // hash expires with the execution's heartbeat, so an abandoned RQ 2
    // job's start is unknown here); and the member's own job hash's origin
    // (set: the member is an RQ 1 id). Then the finished jobs' times.
    const QList<QByteArray> started = libraryqueue::pageMembers(r.at(StartedPage), true);
    return libraryqueue::fieldsFollowUp(started, JobPrefix, {"started_at", "origin"})
           + libraryqueue::fieldsFollowUp(started, ExecutionPrefix, {"created_at"})
           + libraryqueue::fieldsFollowUp(libraryqueue::pageMembers(r.at(JobTimesAt))
                                              + libraryqueue::pageMembers(r.at(JobTimesAt + 1)),
                                          JobPrefix, TimeFields);
}

void RqUnit::readJobTimes(Reading &reading, const QList<RedisValue> &r, qsizetype followAt,
                          qint64 nowMs)
{
    if (r.size() < ProbedReplies || r.at(JobTimesAt).isError() || r.at(JobTimesAt + 1).isError())
        return; // unknown, not none
    const auto oldest = libraryqueue::jobFieldRows(r.at(JobTimesAt + 2), 1);
    libraryqueue::setOldestWaiting(reading, oldest.isEmpty() ? -1 : rqTimeMs(oldest.first().at(1)),
                                   nowMs, reading.queue().length == 0);
    const auto rows = libraryqueue::fieldRows(libraryqueue::pageMembers(r.at(JobTimesAt))
                                                  + libraryqueue::pageMembers(r.at(JobTimesAt + 1)),
                                              r, followAt, int(TimeFields.size()));
    if (!rows)
        return; // not followed up: the finished jobs' times are unknown
    QList<libraryqueue::JobTiming> finished;
    for (const QList<QByteArray> &row : *rows)
        finished.append({rqTimeMs(row.at(1)), rqTimeMs(row.at(2)), rqTimeMs(row.at(3))});
    libraryqueue::setFinishedTimes(reading, finished, nowMs);
}

namespace {

// What the started registry's members say of the layout.
struct StartedMembers
{
    bool rq2 = false;           // a member "<job>:<execution>" (RQ 2)
    bool unknownMember = false; // a member with several ':' that is no job's id
};

// Workers: alive while their hash (which they re-expire) exists. Their page
// (SORT: #, last_heartbeat, version); the first version one reports.
QByteArray readWorkers(Reading &reading, const RedisValue &page)
{
    reading.editLibrary().workersAlive = 0;
    QByteArray version;
    const auto &w = page.elements();
    for (qsizetype i = 0; i + 2 < w.size(); i += 3) {
        if (!w.at(i + 1).isNil())
            ++reading.editLibrary().workersAlive;
        if (version.isEmpty() && !w.at(i + 2).isNil())
            version = w.at(i + 2).bytes().left(32);
    }
    return version;
}

// The started page: members and scores (ZRANGE), and the follow-up's
// started_at and origin of each member's job hash (from at), then created_at
// of each member's execution hash.
StartedMembers readStarted(Reading &reading, const PatternObject &o, const RedisValue &scoredPage,
                           const QList<RedisValue> &r, qsizetype at, qint64 nowMs)
{
    const auto &scored = scoredPage.elements();
    const QList<QByteArray> members = libraryqueue::pageMembers(scoredPage, true);
    const auto jobs = libraryqueue::fieldRows(members, r, at, 2);
    const auto executions = libraryqueue::fieldRows(members, r, at + members.size(), 1);
    QHash<QByteArray, qint64> startedAt;
    // Members with a job hash of their own name are RQ 1 job ids, ':' or not
    // (RQ 1 takes any id): "report:42" is its own job, not an execution of
    // "report" (as rq_requeue.lua reads them).
    QSet<QByteArray> ownJobs;
    for (qsizetype i = 0; jobs && i < members.size(); ++i) {
        if (!jobs->at(i).at(2).isEmpty())
            ownJobs.insert(members.at(i));
        qint64 at = rqTimeMs(jobs->at(i).at(1));
        if (at < 0 && executions && !executions->at(i).at(1).isEmpty()) {
            bool ok = false;
            const double sec = executions->at(i).at(1).toDouble(&ok);
            at = ok && sec > 0 && sec < 1e11 ? qint64(sec * 1000) : -1;
        }
        startedAt.insert(members.at(i), at);
    }
    const qint64 nowSec = nowMs / 1000;
    StartedMembers m;
    for (qsizetype i = 0; i + 1 < scored.size(); i += 2) {
        const QByteArray member = scored.at(i).bytes();
        const bool ownJob = ownJobs.contains(member);
        const int colons = ownJob ? 0 : int(member.count(':'));
        m.rq2 = m.rq2 || colons == 1;
        m.unknownMember = m.unknownMember || colons > 1;
        const QByteArray score = scored.at(i + 1).bytes();
        bool ok = false;
        const double expiry = score.toDouble(&ok); // "inf" for a job without a timeout
        InFlightItem item;
        item.job = ownJob ? member : jobOfMember(member);
        item.source = AgeSource::Library;
        item.locked = !(ok && expiry <= double(nowSec));
        const qint64 since = startedAt.value(member, -1);
        item.ageMs = since >= 0 ? std::max<qint64>(0, saturatingSub(nowMs, since)) : 0;
        // One entry per job (an RQ 2 job may have several dead executions).
        if (!item.locked && reading.editLibrary().stuckJobs.size() < o.params.pageSize
            && std::none_of(reading.editLibrary().stuckJobs.cbegin(),
                            reading.editLibrary().stuckJobs.cend(),
                            [&](const auto &s) { return s.job == item.job; }))
            reading.editLibrary().stuckJobs.append(
                {item.job, QString::fromLatin1(StuckReason), since});
        reading.editQueue().oldestInFlightAgeMs
            = std::max(reading.queue().oldestInFlightAgeMs, item.ageMs);
        reading.editQueue().items.append(item);
    }
    return m;
}

// RQ records no layout version in Redis; its workers their own version.
// Then the note: an unknown layout, else a started page cut short.
void setLayout(Reading &reading, const QByteArray &version, const StartedMembers &m)
{
    if (!version.isEmpty())
        reading.editLibrary().layoutVersion = QStringLiteral("rq:") + QString::fromUtf8(version);
    else if (m.rq2)
        reading.editLibrary().layoutVersion = QStringLiteral("rq:2 (execution members)");
    const bool knownMajor
        = version.isEmpty() || version.startsWith("1.") || version.startsWith("2.");
    reading.editLibrary().layoutKnown = knownMajor && !m.unknownMember;
    if (!reading.editLibrary().layoutKnown)
        reading.message = QStringLiteral("Layout %1 is not one Gatehouse knows (RQ 1-2): shown "
                                         "read-only.")
                              .arg(m.unknownMember ? QStringLiteral("of started-registry members "
                                                                    "with several ':'")
                                                   : reading.editLibrary().layoutVersion);
    else if (reading.queue().truncated)
        reading.message = QStringLiteral("%1 jobs started; %2 were read.")
                              .arg(reading.queue().inFlight)
                              .arg(reading.queue().items.size());
}

} // namespace

Reading RqUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                     const ProbeContext &c) const
{
    const QList<QByteArray> replyKeys{keyOf(o, Queue),    keyOf(o, Started),   keyOf(o, Finished),
                                      keyOf(o, Failed),   keyOf(o, Scheduled), keyOf(o, Deferred),
                                      keyOf(o, Canceled), keyOf(o, Started),   keyOf(o, Started),
                                      keyOf(o, Workers),  keyOf(o, Workers),   keyOf(o, Queues),
                                      keyOf(o, Suspended)};
    if (const QList<QByteArray> allKeys
        = replyKeys + QList<QByteArray>{keyOf(o, Finished), keyOf(o, Failed), keyOf(o, Queue)};
        r.size() < allKeys.size()) {
        if (auto f = failure(o, r, allKeys, c.nowMs))
            return *f;
    }
    // A failed read of the job times leaves the counts good.
    if (auto f = failure(o, r.mid(0, replyKeys.size()), replyKeys, c.nowMs))
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
    const QStringList names = jobStates(); // queued .. canceled, as probed
    for (int i = 0; i < 7; ++i) {
        reading.editLibrary().counts.append({names.at(i), r.at(i).toInteger()});
        total = saturatingAdd(total, r.at(i).toInteger()); // sizes from replies (fuzz_patternread)
    }
    reading.editQueue().length = r.at(0).toInteger();
    reading.editQueue().inFlight = r.at(1).toInteger();
    reading.editQueue().deadLength = r.at(3).toInteger();
    reading.editQueue().stuck = r.at(7).toInteger();
    reading.editLibrary().paused
        = r.at(12).toInteger() == 1; // rq suspend: every worker stops taking jobs
    reading.editLibrary().workers = r.at(9).toInteger();
    const QByteArray version = readWorkers(reading, r.at(10));

    if (total == 0 && r.at(11).toInteger() == 0 && reading.editLibrary().workers == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No RQ keys for queue \"%1\".").arg(printableBytes(o.key));
        return reading;
    }

    const StartedMembers members
        = readStarted(reading, o, r.at(StartedPage), r, ProbedReplies, c.nowMs);
    std::sort(reading.editQueue().items.begin(), reading.editQueue().items.end(),
              [](const InFlightItem &a, const InFlightItem &b) { return a.ageMs > b.ageMs; });
    reading.editQueue().truncated = reading.queue().inFlight > reading.queue().items.size();
    const qsizetype started = libraryqueue::pageMembers(r.at(StartedPage), true).size();
    readJobTimes(reading, r, ProbedReplies + 2 * started, c.nowMs);
    setLayout(reading, version, members);
    return reading;
}

QList<Figure> RqUnit::figures() const
{
    return QList<Figure>{
               countFigure(QStringLiteral("queued"), QStringLiteral("Queued"),
                           QStringLiteral("queued")),
               countFigure(QStringLiteral("inFlight"), QStringLiteral("Started"),
                           QStringLiteral("started")),
               countFigure(QStringLiteral("failed"), QStringLiteral("Failed"),
                           QStringLiteral("failed")),
               countFigure(QStringLiteral("finished"), QStringLiteral("Finished"),
                           QStringLiteral("finished")),
               stuckFigure(QStringLiteral("Abandoned")),
               {QStringLiteral("workersAlive"), QStringLiteral("Workers alive"), false,
                [](const Reading &r, qint64) {
                    return double(std::max<qint64>(0, r.library().workersAlive));
                }},
               oldestFigure(QStringLiteral("Oldest started")),
           }
           + libraryqueue::latencyFigures();
}

QList<Chart> RqUnit::charts() const
{
    return QList<Chart>{{QStringLiteral("Jobs by state"),
                         QStringLiteral("jobs"),
                         {{QStringLiteral("queued"), QStringLiteral("queued")},
                          {QStringLiteral("inFlight"), QStringLiteral("started")},
                          {QStringLiteral("failed"), QStringLiteral("failed")},
                          {QStringLiteral("stuck"), QStringLiteral("abandoned")},
                          {QStringLiteral("workersAlive"), QStringLiteral("workers alive")}}},
                        oldestChart(QStringLiteral("Oldest started"))}
           + libraryqueue::latencyCharts()
           + QList<Chart>{
               libraryqueue::throughputChart(QStringLiteral("finished"), QStringLiteral("failed"))};
}

QList<LibraryQueueUnit::JobState> RqUnit::states() const
{
    // The state names RQ's own API uses (Queue.count, the registries'
    // counts, JobStatus), in RQ's order.
    return {{QStringLiteral("queued")},
            {QStringLiteral("started"), JobStage::InFlight},
            {QStringLiteral("finished"), JobStage::Finished},
            {QStringLiteral("failed"), JobStage::Dead},
            {QStringLiteral("scheduled")},
            {QStringLiteral("deferred")},
            {QStringLiteral("canceled"), JobStage::Finished}};
}

LibraryQueueUnit::StuckRule RqUnit::stuckRule() const
{
    return {QStringLiteral("stuck"), QStringLiteral("abandoned (started, past their expiry)"),
            QStringLiteral("oldest started")};
}

libraryqueue::JsonOptions RqUnit::jsonOptions() const
{
    // ZCOUNT counts the abandoned: exact.
    return {true, libraryqueue::LowerBound::Exact};
}

void RqUnit::writeLibraryJson(const ObjectState &, const Reading &r, qint64, QJsonObject &j) const
{
    j.insert(QStringLiteral("workers"), double(r.library().workers));
    j.insert(QStringLiteral("workersWithHeartbeat"), double(r.library().workersAlive));
}

QStringList RqUnit::itemHeaders() const
{
    return {QStringLiteral("Started job"), QStringLiteral("Running for"), QStringLiteral("Expiry")};
}

QList<QStringList> RqUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items) {
        rows.append({printableBytes(item.job, 120), formatMs(s.reading.ageAt(item.ageMs, nowMs)),
                     item.locked ? QStringLiteral("ahead") : QStringLiteral("past: abandoned")});
    }
    return rows;
}

} // namespace gatehouse
