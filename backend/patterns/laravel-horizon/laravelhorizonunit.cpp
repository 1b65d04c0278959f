// SPDX-License-Identifier: MIT
#include "laravelhorizonunit.h"

#include <patterns/timemath.h>

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(LaravelHorizonUnit::Kind, LibraryQueueUnit::judgement());

namespace {

constexpr const char *Names[]
    = {"recent_jobs", "pending_jobs",       "completed_jobs", "silenced_jobs",
       "failed_jobs", "recent_failed_jobs", "supervisors",    "masters"};
// Horizon's own liveness windows (names() of its supervisor and master
// repositories), seconds.
constexpr qint64 SupervisorFreshSec = 29;
constexpr qint64 MasterFreshSec = 14;

// Recent jobs whose status says whose layout it is (LaravelHorizonUnit::read).
constexpr int SampledJobs = 10;

// Where the probe's replies hold the supervisors' page, the recent jobs'
// and the job times' pages, and how many it has: the follow-up's replies
// come after them.
constexpr qsizetype SupervisorPage = 10;
constexpr qsizetype RecentHighest = 11;
constexpr qsizetype RecentPage = 12;
constexpr qsizetype JobTimesAt = 13;
constexpr qsizetype ProbedReplies = 16;

const QList<QByteArray> CompletedFields{"created_at", "reserved_at", "completed_at"};
const QList<QByteArray> FailedFields{"created_at", "reserved_at", "failed_at"};
const QList<QByteArray> PendingFields{"status", "created_at"};

const char *QuietReason = "supervisor gone quiet: no heartbeat for 29 s, so Horizon no longer "
                          "lists it; its processes are not taking jobs";

int stateOfName(const QByteArray &key)
{
    for (int s = 0; s < LaravelHorizonUnit::KeyCount; ++s) {
        const QByteArray name = Names[s];
        if (key.endsWith(name)
            && (key.size() == name.size() || key.at(key.size() - name.size() - 1) == ':'
                || key.at(key.size() - name.size() - 1) == '}'))
            return s;
    }
    return -1;
}

// The processes of a supervisor hash's "processes" field
// ({"<connection>:<queue>": n, ...}); -1 when unreadable.
qint64 processesOf(const QByteArray &json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    if (!doc.isObject())
        return -1;
    qint64 n = 0;
    const QJsonObject o = doc.object();
    for (auto it = o.begin(); it != o.end(); ++it)
        n += qint64(it->toDouble());
    return n;
}

// What is not Horizon's among the sampled keys, in words; empty when all is.
// Horizon scores its recent jobs by minus the time they entered
// (storeJobReference), and its job hashes' status is one its repository
// writes (pushed, reserved, released: pending/reserved; completed; failed).
// A hash gone (trimmed before the set) or without a status says nothing.
QString foreignPart(const RedisValue &highest, const QList<QList<QByteArray>> &statuses)
{
    const auto &scored = highest.elements();
    if (scored.size() == 2 && scored.at(1).bytes().toDouble() >= 0)
        return QStringLiteral("recent_jobs entry scored %1 (Horizon scores by minus the time)")
            .arg(printableBytes(scored.at(1).bytes(), 24));
    for (const QList<QByteArray> &row : statuses) {
        const QByteArray status = row.value(1);
        if (status.isEmpty())
            continue;
        if (status != "pending" && status != "reserved" && status != "completed"
            && status != "failed")
            return QStringLiteral("recent job with status \"%1\"").arg(printableBytes(status, 32));
    }
    return QString();
}

// A job hash's time (microtime(true): seconds, a fraction) in ms; -1 when
// not recorded.
qint64 horizonTimeMs(const QByteArray &field)
{
    bool ok = false;
    const double seconds = field.toDouble(&ok);
    return ok && seconds > 0 ? secondsToMs(seconds).value_or(-1) : -1;
}

// How long jobs waited and ran, from the times Horizon's job hashes record
// (RedisJobRepository, v5.29.1: pushed() sets created_at, reserved()
// reserved_at, completed() completed_at, failed() failed_at). Its sets score
// a job by minus the time it entered, so a set's start is its newest: a page
// of the newest completed and failed jobs, and pending_jobs' oldest (its
// end); the follow-up reads their times, and the pending jobs' status (it
// holds reserved jobs too, until they finish).
QList<PatternUnit::Command> jobTimesProbe(const PatternObject &o)
{
    using libraryqueue::pageProbe;
    return {pageProbe(o.related.value(LaravelHorizonUnit::Completed), libraryqueue::FinishedPage,
                      false),
            pageProbe(o.related.value(LaravelHorizonUnit::Failed), libraryqueue::FinishedPage / 4,
                      false),
            pageProbe(o.related.value(LaravelHorizonUnit::Pending), SampledJobs, true)};
}

// The pages the follow-up reads, in its order: the supervisors, the recent
// jobs, then the job times' completed, failed and pending jobs.
struct FollowedPages
{
    QList<QByteArray> pages[5];
    qsizetype at(int page) const
    {
        qsizetype n = ProbedReplies;
        for (int i = 0; i < page; ++i)
            n += pages[i].size();
        return n;
    }
};

FollowedPages followedPages(const QList<RedisValue> &r)
{
    FollowedPages f;
    if (r.size() < ProbedReplies)
        return f;
    f.pages[0] = libraryqueue::pageMembers(r.at(SupervisorPage), true);
    f.pages[1] = libraryqueue::pageMembers(r.at(RecentPage));
    for (int i = 0; i < 3; ++i)
        f.pages[2 + i] = libraryqueue::pageMembers(r.at(JobTimesAt + i));
    return f;
}

// The job times' pages and their follow-up into the reading's job times. A
// delayed job's wait counts its delay: Horizon records when it was pushed,
// not when it became due.
void readJobTimes(Reading &reading, const QList<RedisValue> &r, const FollowedPages &f,
                  qint64 nowMs)
{
    if (r.size() < ProbedReplies || r.at(JobTimesAt).isError() || r.at(JobTimesAt + 1).isError())
        return; // unknown, not none
    const auto completed = libraryqueue::fieldRows(f.pages[2], r, f.at(2), 3);
    const auto failed = libraryqueue::fieldRows(f.pages[3], r, f.at(3), 3);
    const auto pending = libraryqueue::fieldRows(f.pages[4], r, f.at(4), 2);
    if (!completed || !failed || !pending)
        return; // not followed up: unknown
    QList<libraryqueue::JobTiming> finished;
    const QList<QList<QByteArray>> rows = *completed + *failed;
    for (const QList<QByteArray> &row : rows)
        finished.append(
            {horizonTimeMs(row.at(1)), horizonTimeMs(row.at(2)), horizonTimeMs(row.at(3))});
    libraryqueue::setFinishedTimes(reading, finished, nowMs);
    qint64 oldest = -1;
    for (const QList<QByteArray> &row : *pending) {
        const qint64 at = horizonTimeMs(row.at(2));
        if (row.at(1) == "pending" && at >= 0 && (oldest < 0 || at < oldest))
            oldest = at;
    }
    // Nothing waits when the page held all of pending_jobs and none of it
    // was pending (reserved, or its hash already trimmed).
    const bool none = oldest < 0 && !r.at(JobTimesAt + 2).isError()
                      && pending->size() >= reading.queue().length;
    libraryqueue::setOldestWaiting(reading, oldest, nowMs, none);
}

} // namespace

QByteArray LaravelHorizonUnit::prefixOf(const QByteArray &key)
{
    const int s = stateOfName(key);
    return s < 0 ? QByteArray() : key.chopped(qsizetype(qstrlen(Names[s])));
}

PatternObject LaravelHorizonUnit::objectForPrefix(const QByteArray &prefix)
{
    PatternObject o;
    o.kind = Kind;
    o.key = prefix;
    for (int s = 0; s < KeyCount; ++s)
        o.related << prefix + Names[s];
    return o;
}

QList<PatternUnit::Command> LaravelHorizonUnit::identifyProbe(const QByteArray &target) const
{
    return {{"TYPE", target + Names[Recent]},
            {"TYPE", target + Names[Failed]},
            {"TYPE", target + Names[Supervisors]}};
}

bool LaravelHorizonUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    // The prefix of Horizon's sets: at least one of them is there, each a ZSET.
    bool any = false;
    for (const RedisValue &t : r) {
        if (t.bytes() != "none" && t.bytes() != "zset")
            return false;
        any = any || t.bytes() == "zset";
    }
    return r.size() == 3 && any;
}

QList<QByteArray> LaravelHorizonUnit::scanGlobs(const ProfileRule &rule) const
{
    // A rule names the prefix ("laravel_horizon:"); its sets are found by name.
    QList<QByteArray> globs;
    for (const char *name : Names)
        globs << rule.match + name;
    return globs;
}

std::optional<PatternObject> LaravelHorizonUnit::objectFor(const ProfileRule &rule,
                                                           const QByteArray &key) const
{
    const QByteArray prefix = prefixOf(key);
    if (prefix.isEmpty() || !globMatch(rule.match, prefix) || rule.excludes(prefix))
        return std::nullopt;
    PatternObject o = objectForPrefix(prefix);
    o.params = rule.params;
    o.source = QString();
    return o;
}

PatternObject LaravelHorizonUnit::conventionalObject(const QByteArray &key) const
{
    const QByteArray prefix = prefixOf(key);
    return objectForPrefix(prefix.isEmpty() ? key : prefix);
}

std::optional<KeyClaim> LaravelHorizonUnit::claimKey(const KeyShape &shape, qint64) const
{
    // Horizon's set names, ZSETs; its recent_jobs by their negative scores.
    // Horizon trims its sets by score and expires only its hashes: a set of
    // one of its names with a TTL is another's (a redis-semaphore named
    // "failed_jobs", PEXPIREd on every acquire), which this claim would hide.
    const int s = stateOfName(shape.key);
    if (s < 0 || shape.type != "zset" || shape.pttlMs > 0)
        return std::nullopt;
    if (s == Recent)
        return shape.size > 0 && shape.firstScore < 0 && shape.lastScore < 0
                   ? std::optional<KeyClaim>(KeyClaim{QString::fromLatin1(Names[s]), 40})
                   : std::nullopt;
    return KeyClaim{QString::fromLatin1(Names[s]), 30};
}

QList<PatternObject> LaravelHorizonUnit::groupClaims(ClaimPool &pool) const
{
    // A prefix is Horizon's when its recent_jobs (negative scores) has
    // another of Horizon's sets beside it; then every claimed key under the
    // prefix is Horizon's (job hashes, supervisors, metrics), so none shows
    // as a token, lock or limiter.
    QMap<QByteArray, QList<QByteArray>> byPrefix;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (!pool.roleOf(key, Kind).isEmpty())
            byPrefix[prefixOf(key)] << key;
    }
    QList<PatternObject> out;
    for (auto it = byPrefix.cbegin(); it != byPrefix.cend(); ++it) {
        const QByteArray &prefix = it.key();
        const bool recent = it->contains(prefix + Names[Recent]);
        if (!recent || it->size() < 2 || prefix.isEmpty())
            continue;
        PatternObject o = objectForPrefix(prefix);
        o.source = QStringLiteral("autodetected");
        out.append(o);
        for (const QByteArray &key : *it)
            pool.take(key);
        for (const QByteArray &key : pool.under(prefix))
            pool.take(key);
    }
    return out;
}

QList<PatternUnit::Command> LaravelHorizonUnit::probe(const PatternObject &o,
                                                      const ProbeContext &c) const
{
    const qint64 nowSec = c.nowMs / 1000;
    const QByteArray supervisors = o.related.value(Supervisors);
    QList<Command> commands;
    for (int s = Recent; s <= RecentFailed; ++s)
        commands.append({"ZCARD", o.related.value(s)});
    commands.append({"ZCARD", supervisors});
    commands.append({"ZCOUNT", supervisors, number(nowSec - SupervisorFreshSec), "+inf"});
    commands.append({"ZCARD", o.related.value(Masters)});
    commands.append({"ZCOUNT", o.related.value(Masters), number(nowSec - MasterFreshSec), "+inf"});
    // The supervisors, the longest quiet first, with their heartbeats (the
    // follow-up reads each one's status and processes).
    commands.append(libraryqueue::pageProbe(supervisors, o.params.pageSize, false, true));
    // Whether the layout is Horizon's (foreignPart): the highest score in
    // recent_jobs, and the newest recent jobs (the follow-up reads their
    // statuses).
    const QByteArray recent = o.related.value(Recent);
    commands.append({"ZRANGE", recent, "-1", "-1", "WITHSCORES"});
    commands.append(libraryqueue::pageProbe(recent, SampledJobs, false));
    return commands + jobTimesProbe(o);
}

QList<PatternUnit::Command> LaravelHorizonUnit::followUp(const PatternObject &o,
                                                         const QList<RedisValue> &r,
                                                         const ProbeContext &) const
{
    if (r.size() < ProbedReplies)
        return {};
    using libraryqueue::fieldsFollowUp;
    const FollowedPages f = followedPages(r);
    return fieldsFollowUp(f.pages[0], o.key + "supervisor:", {"status", "processes"})
           + fieldsFollowUp(f.pages[1], o.key, {"status"})
           + fieldsFollowUp(f.pages[2], o.key, CompletedFields)
           + fieldsFollowUp(f.pages[3], o.key, FailedFields)
           + fieldsFollowUp(f.pages[4], o.key, PendingFields);
}

Reading LaravelHorizonUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                                 const ProbeContext &c) const
{
    QList<QByteArray> replyKeys;
    for (int s = Recent; s <= RecentFailed; ++s)
        replyKeys << o.related.value(s);
    replyKeys << o.related.value(Supervisors) << o.related.value(Supervisors)
              << o.related.value(Masters) << o.related.value(Masters)
              << o.related.value(Supervisors) << o.related.value(Recent) << o.related.value(Recent);
    // Fewer replies than commands: an error (the job times' included).
    if (const QList<QByteArray> allKeys
        = replyKeys
          + QList<QByteArray>{o.related.value(Completed), o.related.value(Failed),
                              o.related.value(Pending)};
        r.size() < allKeys.size()) {
        if (auto f = failure(o, r, allKeys, c.nowMs))
            return *f;
    }
    // A failed read of the job times leaves the counts good.
    if (auto f = failure(o, r.mid(0, replyKeys.size()), replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    qint64 total = 0;
    const QStringList names = jobStates();
    for (int s = Recent; s <= RecentFailed; ++s) {
        reading.editLibrary().counts.append({names.at(s), r.at(s).toInteger()});
        total = saturatingAdd(total, r.at(s).toInteger());
    }
    reading.editQueue().length = r.at(Pending).toInteger();
    reading.editQueue().inFlight = 0; // Horizon marks a reserved job in its hash only
    reading.editQueue().deadLength = r.at(Failed).toInteger();
    reading.editLibrary().workers = r.at(6).toInteger();
    reading.editLibrary().workersAlive = r.at(7).toInteger();
    reading.editQueue().stuck = std::max<qint64>(
        0, saturatingSub(reading.editLibrary().workers, reading.editLibrary().workersAlive));
    if (total == 0 && reading.editLibrary().workers == 0 && r.at(8).toInteger() == 0) {
        reading.status = Reading::Status::Missing;
        reading.message
            = QStringLiteral("No Horizon keys under \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    const qint64 nowSec = c.nowMs / 1000;
    const FollowedPages followed = followedPages(r);
    QHash<QByteArray, std::pair<QByteArray, qint64>> detail; // name -> status, processes
    if (const auto rows = libraryqueue::fieldRows(followed.pages[0], r, followed.at(0), 2)) {
        for (const QList<QByteArray> &row : *rows)
            detail.insert(row.at(0), {row.at(1).left(32), processesOf(row.at(2))});
    }
    const auto &page = r.at(SupervisorPage).elements();
    for (qsizetype i = 0; i + 1 < page.size(); i += 2) {
        const QByteArray name = page.at(i).bytes();
        const qint64 beat = qint64(page.at(i + 1).bytes().toDouble());
        LibraryPart part;
        part.kind = QStringLiteral("process");
        part.name = name;
        part.ageMs = std::max<qint64>(0, secondsToMs(double(nowSec) - double(beat)).value_or(0));
        part.alive = beat >= nowSec - SupervisorFreshSec;
        const auto d = detail.value(name, {QByteArray(), -1});
        part.count = std::max<qint64>(0, d.second);
        part.quiet = d.first == "paused";
        reading.editLibrary().parts.append(part);
        if (!part.alive && reading.editLibrary().stuckJobs.size() < o.params.pageSize)
            reading.editLibrary().stuckJobs.append(
                {name, QString::fromLatin1(QuietReason), secondsToMs(double(beat)).value_or(-1)});
    }
    reading.editQueue().truncated
        = reading.editLibrary().workers > reading.editLibrary().parts.size();
    readJobTimes(reading, r, followed, c.nowMs);
    const QString foreign = foreignPart(
        r.at(RecentHighest), libraryqueue::fieldRows(followed.pages[1], r, followed.at(1), 1)
                                 .value_or(QList<QList<QByteArray>>()));
    reading.editLibrary().layoutKnown = foreign.isEmpty();
    if (!foreign.isEmpty())
        reading.message = QStringLiteral("Layout with a %1 is not Horizon's (5): shown read-only.")
                              .arg(foreign);
    return reading;
}

QList<Figure> LaravelHorizonUnit::figures() const
{
    return QList<Figure>{
               countFigure(QStringLiteral("recent"), QStringLiteral("Recent"),
                           QStringLiteral("recent")),
               countFigure(QStringLiteral("pending"), QStringLiteral("Pending"),
                           QStringLiteral("pending")),
               countFigure(QStringLiteral("completed"), QStringLiteral("Completed"),
                           QStringLiteral("completed")),
               countFigure(QStringLiteral("failed"), QStringLiteral("Failed"),
                           QStringLiteral("failed")),
               stuckFigure(QStringLiteral("Supervisors gone quiet")),
               {QStringLiteral("workersAlive"), QStringLiteral("Supervisors alive"), false,
                [](const Reading &r, qint64) {
                    return double(std::max<qint64>(0, r.library().workersAlive));
                }},
           }
           + libraryqueue::latencyFigures();
}

QList<Chart> LaravelHorizonUnit::charts() const
{
    return QList<Chart>{
               {QStringLiteral("Jobs by state"),
                QStringLiteral("jobs"),
                {{QStringLiteral("pending"), QStringLiteral("pending")},
                 {QStringLiteral("failed"), QStringLiteral("failed")},
                 {QStringLiteral("workersAlive"), QStringLiteral("supervisors alive")}}},
               libraryqueue::throughputChart(QStringLiteral("completed"), QStringLiteral("failed"))}
           + libraryqueue::latencyCharts();
}

QList<LibraryQueueUnit::JobState> LaravelHorizonUnit::states() const
{
    // Horizon's own names (JobRepository's countRecent, countPending,
    // countCompleted, countSilenced, countFailed, countRecentlyFailed).
    return {{QStringLiteral("recent"), JobStage::Finished},
            {QStringLiteral("pending")},
            {QStringLiteral("completed"), JobStage::Finished},
            {QStringLiteral("silenced"), JobStage::Finished},
            {QStringLiteral("failed"), JobStage::Dead},
            {QStringLiteral("recent_failed"), JobStage::Dead}};
}

LibraryQueueUnit::StuckRule LaravelHorizonUnit::stuckRule() const
{
    return {QStringLiteral("stuck"),
            QStringLiteral("supervisors gone quiet (no heartbeat for 29 s)"), QString()};
}

libraryqueue::ColumnOptions LaravelHorizonUnit::columnOptions() const
{
    return {};
}

libraryqueue::JsonOptions LaravelHorizonUnit::jsonOptions() const
{
    return {true, libraryqueue::LowerBound::Exact};
}

void LaravelHorizonUnit::writeLibraryJson(const ObjectState &, const Reading &r, qint64,
                                          QJsonObject &j) const
{
    j.insert(QStringLiteral("supervisors"), double(r.library().workers));
    j.insert(QStringLiteral("supervisorsWithHeartbeat"), double(r.library().workersAlive));
}

QStringList LaravelHorizonUnit::itemHeaders() const
{
    return {QStringLiteral("Supervisor"), QStringLiteral("Processes"), QStringLiteral("Heartbeat"),
            QStringLiteral("State")};
}

QList<QStringList> LaravelHorizonUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const LibraryPart &p : s.reading.library().parts) {
        rows.append({printableBytes(p.name, 120), QString::number(p.count),
                     QStringLiteral("%1 ago").arg(formatMs(s.reading.ageAt(p.ageMs, nowMs))),
                     !p.alive  ? QStringLiteral("gone quiet")
                     : p.quiet ? QStringLiteral("paused")
                               : QStringLiteral("running")});
    }
    return rows;
}

} // namespace gatehouse
