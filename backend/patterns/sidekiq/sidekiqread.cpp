// SPDX-License-Identifier: MIT
#include "sidekiqlayout.h"
#include "sidekiqunit.h"

#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/libraryqueue/libraryqueue.h>
#include <redis/printabletext.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>

namespace gatehouse {

using namespace SidekiqInternal;

namespace {

// The part (process) named holder, or nullptr.
const LibraryPart *processPart(const Reading &r, const QByteArray &holder)
{
    for (const LibraryPart &p : r.library().parts) {
        if (p.kind == QLatin1String("process") && p.name == holder)
            return &p;
    }
    return nullptr;
}

// A dead process's work that will expire (its countdown at nowMs); -1 when
// the process is alive, holds nothing or its hash has no TTL.
qint64 lostInMs(const Reading &r, const LibraryPart &p, qint64 nowMs)
{
    if (p.kind != QLatin1String("process") || p.alive || p.expiresInMs <= 0)
        return -1;
    for (const InFlightItem &item : r.queue().items) {
        if (item.holder == p.name)
            return r.countdownAt(p.expiresInMs, nowMs);
    }
    return -1;
}

} // namespace

qint64 SidekiqUnit::soonestLossMs(const Reading &r, qint64 nowMs)
{
    qint64 soonest = -1;
    for (const LibraryPart &p : r.library().parts) {
        const qint64 left = lostInMs(r, p, nowMs);
        if (left >= 0 && (soonest < 0 || left < soonest))
            soonest = left;
    }
    return soonest;
}

namespace {

// What reading the queues and processes gathers besides the Reading itself.
struct Tally
{
    int at = FixedReplies; // the next reply to read
    qint64 enqueued = 0, busy = 0;
    qint64 unread = 0;          // queues "queues" lists that were not read
    qint64 followed = 0;        // of those, read by the follow-up
    qsizetype followAt = 0;     // the next follow-up reply (after the probe's)
    QByteArray foreignQueue;    // a queue whose next job is not Sidekiq's
    QList<qint64> runningWaits; // of the jobs in flight: run_at - enqueued_at
};

// One queue's size and latency from its LLEN and LINDEX -1.
void readQueue(Reading &reading, Tally &t, const QByteArray &name, const RedisValue &len,
               const RedisValue &last, qint64 page, qint64 nowMs)
{
    if (len.isError())
        return;
    LibraryPart part;
    part.kind = QStringLiteral("queue");
    part.name = name;
    part.count = len.toInteger();
    t.enqueued = saturatingAdd(t.enqueued, part.count);
    if (!last.isError() && !last.isNil()) {
        const JobFields f = jobFields(last.bytes());
        part.ageMs = since(nowMs, f.enqueuedAtMs);
        // Every Sidekiq job carries a jid (Sidekiq::Client#normalize_item);
        // Resque's {class, args} does not.
        if (f.jid.isEmpty() && t.foreignQueue.isEmpty())
            t.foreignQueue = part.name;
    } else {
        part.ageMs = 0; // Sidekiq's latency of an empty queue
    }
    if (reading.editLibrary().parts.size() < page)
        reading.editLibrary().parts.append(part);
}

// Each queue's size and latency (LLEN, LINDEX -1), then the queues "queues"
// lists that the object does not read yet, from the follow-up's replies
// (from followAt) when it was sent.
void readQueues(Reading &reading, Tally &t, const QList<RedisValue> &r,
                const QList<QByteArray> &queues, const QByteArray &ns, qint64 page, qint64 nowMs,
                qsizetype followAt)
{
    for (const QByteArray &q : queues) {
        readQueue(reading, t, q.mid(ns.size() + 6), r.at(t.at), r.at(t.at + 1), page, nowMs);
        t.at += QueueReplies;
    }
    qsizetype &at = t.followAt;
    at = followAt;
    for (const QByteArray &name : notMembers(r.at(1), ns + "queue:", queues)) {
        if (at + 1 < r.size()) {
            readQueue(reading, t, name, r.at(at), r.at(at + 1), page, nowMs);
            ++t.followed;
        } else if (reading.editLibrary().parts.size() < page) {
            // Not followed up (an action's check): read from the next
            // reading on (afterRead).
            ++t.unread;
            reading.editLibrary().parts.append(
                {QStringLiteral("queue"), name, -1, -1, -1, true, false});
        }
        at += QueueReplies;
    }
}

// A process's heartbeat hash (HMGET info, busy, beat, concurrency, quiet)
// into its part; the first version a process reports is the layout's.
void readHeartbeat(Reading &reading, LibraryPart &part, const RedisValue &fields, qint64 nowMs)
{
    const QJsonObject info = QJsonDocument::fromJson(fields.at(0).bytes()).object();
    part.count = fields.at(1).bytes().toLongLong();
    if (auto n = numberOf(fields.at(3)))
        part.limit = toInt64(*n);
    else if (auto ic = numberOf(info.value(QStringLiteral("concurrency"))))
        part.limit = toInt64(*ic);
    if (auto beat = numberOf(fields.at(2)))
        part.ageMs = since(nowMs, epochMs(*beat));
    part.quiet = fields.at(4).bytes() == "true";
    const QString version = info.value(QStringLiteral("version")).toString();
    if (!version.isEmpty() && reading.editLibrary().layoutVersion.isEmpty())
        reading.editLibrary().layoutVersion = QStringLiteral("sidekiq:") + version.left(32);
}

// One HSCAN page of a process's work hash (":workers" in 6, ":work" in 7
// and 8): its jobs in flight, stuck when the process is dead.
void readWork(Reading &reading, Tally &t, const RedisValue &work, const LibraryPart &part,
              qint64 page, qint64 nowMs)
{
    if (work.isError() || work.size() != 2)
        return;
    const auto &e = work.at(1).elements();
    for (qsizetype i = 0; i + 1 < e.size(); i += 2) {
        const QJsonObject entry = QJsonDocument::fromJson(e.at(i + 1).bytes()).object();
        const QJsonValue payload = entry.value(QStringLiteral("payload"));
        const QByteArray json = payload.isString() ? payload.toString().toUtf8()
                                                   : QJsonDocument(payload.toObject()).toJson();
        const JobFields f = jobFields(json);
        InFlightItem item;
        item.job = f.jid;
        item.name = f.klass;
        item.attempts = f.retryCount < 0 ? 0 : f.retryCount + 1;
        item.queue = entry.value(QStringLiteral("queue")).toString().toUtf8().left(120);
        item.holder = part.name; // the process's identity
        item.locked = part.alive;
        item.source = AgeSource::Library;
        const std::optional<double> runAt = numberOf(entry.value(QStringLiteral("run_at")));
        const qint64 runAtMs = runAt ? epochMs(*runAt) : -1;
        item.ageMs = since(nowMs, runAtMs);
        if (runAtMs >= 0 && f.enqueuedAtMs >= 0)
            t.runningWaits.append(saturatingSub(runAtMs, f.enqueuedAtMs));
        ++reading.editQueue().inFlight;
        reading.editQueue().oldestInFlightAgeMs
            = std::max(reading.queue().oldestInFlightAgeMs, item.ageMs);
        if (!part.alive) {
            ++reading.editQueue().stuck;
            if (reading.editLibrary().stuckJobs.size() < page)
                reading.editLibrary().stuckJobs.append(
                    {item.job, QString::fromLatin1(StuckReason), runAtMs});
        }
        if (reading.queue().items.size() < page)
            reading.editQueue().items.append(item);
        else
            reading.editQueue().truncated = true;
    }
}

// Each process: its heartbeat, whether "processes" lists it, its hash's and
// its work's PTTL, and its work in flight.
void readProcesses(Reading &reading, Tally &t, const QList<RedisValue> &r,
                   const QList<QByteArray> &processes, const QByteArray &ns, qint64 page,
                   qint64 nowMs)
{
    // "processes" read: the workers Sidekiq lists are counted from none (a
    // deployment none of whose processes runs has no worker, not an unknown).
    if (!r.at(5).isError()) {
        reading.editLibrary().workers = std::max<qint64>(0, reading.library().workers);
        reading.editLibrary().workersAlive = std::max<qint64>(0, reading.library().workersAlive);
    }
    for (const QByteArray &p : processes) {
        const RedisValue &fields = r.at(t.at);
        const RedisValue &v6 = r.at(t.at + 1), &v7 = r.at(t.at + 2);
        const bool inSet = r.at(t.at + 3).toInteger() == 1;
        const bool setRead = !r.at(t.at + 3).isError();
        const qint64 hashTtl = r.at(t.at + 4).toInteger();
        const qint64 workTtl = std::max(r.at(t.at + 5).toInteger(), r.at(t.at + 6).toInteger());
        t.at += ProcessReplies;
        const QByteArray identity = p.mid(ns.size());
        LibraryPart part;
        part.kind = QStringLiteral("process");
        part.name = identity;
        const bool hashGone = fields.isError() || fields.size() != 5
                              || (fields.at(0).isNil() && fields.at(2).isNil());
        if (!hashGone)
            readHeartbeat(reading, part, fields, nowMs);
        // A running process is in "processes" (each beat adds it); one
        // stopped cleanly took itself out (Launcher#clear_heartbeat: SREM, and
        // its work hash unlinked), leaving its hash to expire.
        part.alive = (inSet || !setRead) && !hashGone && part.ageMs <= SidekiqUnit::DeadAfterMs;
        // The processes Sidekiq lists (its Busy page), and of those the
        // ones beating: none alive with jobs enqueued is "no worker seen".
        if (inSet) {
            reading.editLibrary().workers = std::max<qint64>(0, reading.editLibrary().workers) + 1;
            reading.editLibrary().workersAlive
                = std::max<qint64>(0, reading.editLibrary().workersAlive) + (part.alive ? 1 : 0);
        }
        // Sidekiq::Stats#workers_size (api.rb, fetch_stats_slow!): HGET busy
        // .to_i of every member of "processes", dead or alive: a process
        // killed -9 counts until its hash expires and is pruned.
        if (inSet && !hashGone)
            t.busy = saturatingAdd(t.busy, std::max<qint64>(0, part.count));
        // When its work is lost (work hash, else heartbeat hash: PTTL > 0).
        part.expiresInMs = workTtl > 0 ? workTtl : hashTtl > 0 ? hashTtl : -1;
        if (!inSet && setRead && v6.size() == 2 && v7.size() == 2 && v6.at(1).size() == 0
            && v7.at(1).size() == 0)
            continue; // stopped, or gone and pruned, nothing in flight: Sidekiq lists it no more
        for (const RedisValue *work : {&v6, &v7})
            readWork(reading, t, *work, part, page, nowMs);
        if (reading.editLibrary().parts.size() < 2 * page)
            reading.editLibrary().parts.append(part);
    }
    // "processes" lists ones the object reads in full from the next reading
    // on (started since the scan): their beat, read by the follow-up, says
    // whether they are alive; not followed up, none alive is not "none".
    bool unknown = false;
    for (qsizetype i = notMembers(r.at(5), ns, processes).size(); i > 0; --i) {
        const RedisValue beat = t.followAt < r.size() ? r.at(t.followAt) : RedisValue::failed({});
        ++t.followAt;
        if (beat.isError()) {
            unknown = true;
            continue;
        }
        const auto at = beat.isNil() ? std::nullopt : numberOf(beat);
        const bool alive = at && since(nowMs, epochMs(*at)) <= SidekiqUnit::DeadAfterMs;
        reading.editLibrary().workers = std::max<qint64>(0, reading.library().workers) + 1;
        reading.editLibrary().workersAlive
            = std::max<qint64>(0, reading.library().workersAlive) + (alive ? 1 : 0);
    }
    if (unknown && reading.library().workersAlive == 0)
        reading.editLibrary().workers = reading.editLibrary().workersAlive = -1;
}

// Sidekiq keeps no finished job: the waits known are the running jobs';
// the oldest waiting is the largest of its queues' latencies.
void readTimes(Reading &reading, const Tally &t, qint64 nowMs)
{
    libraryqueue::setRunningWaits(reading, t.runningWaits);
    qint64 oldestAge = -1;
    for (const LibraryPart &p : std::as_const(reading.editLibrary().parts)) {
        if (p.kind == QLatin1String("queue"))
            oldestAge = std::max(oldestAge, p.ageMs);
    }
    libraryqueue::setOldestWaiting(reading, oldestAge >= 0 ? saturatingSub(nowMs, oldestAge) : -1,
                                   nowMs, t.enqueued == 0);
}

// The sets' sizes and busy, then the lifetime counters (the probe's last
// reply, before the follow-up's from probed).
void readCounts(Reading &reading, const Tally &t, const QList<RedisValue> &r, qsizetype probed)
{
    reading.editQueue().deadLength = r.at(4).toInteger();
    reading.editLibrary().counts = {{QStringLiteral("enqueued"), t.enqueued},
                                    {QStringLiteral("scheduled"), r.at(2).toInteger()},
                                    {QStringLiteral("retry"), r.at(3).toInteger()},
                                    {QStringLiteral("dead"), reading.queue().deadLength},
                                    {QStringLiteral("busy"), t.busy}};
    // Sidekiq's own lifetime counters, as its dashboard shows them beside
    // the sets (absent until a process first flushes them: 0). A counter
    // that is not a number (not Sidekiq's) is left out, not shown as 0.
    if (const qsizetype statAt = probed - StatReplies;
        statAt >= t.at && statAt >= 0 && statAt < r.size()) {
        const RedisValue &stats = r.at(statAt);
        if (!stats.isError() && stats.size() == 2) {
            for (int i = 0; i < 2; ++i) {
                const RedisValue &v = stats.at(i);
                bool ok = v.isNil();
                const qint64 n = ok ? 0 : v.bytes().toLongLong(&ok);
                if (ok && n >= 0)
                    reading.editLibrary().counts.append(
                        {i == 0 ? QStringLiteral("processed") : QStringLiteral("failed"), n});
            }
        }
    }
}

} // namespace

Reading SidekiqUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                          const ProbeContext &c) const
{
    const QByteArray ns = nsOf(o);
    const QList<QByteArray> queues = queueMembers(o, ns);
    const QList<QByteArray> processes = processMembers(o, ns);
    QList<QByteArray> replyKeys{keyOf(o, Queues),   keyOf(o, Queues), keyOf(o, Schedule),
                                keyOf(o, Retry),    keyOf(o, Dead),   keyOf(o, Processes),
                                keyOf(o, Processes)};
    const qsizetype expected = probeReplies(queues, processes);
    if (r.size() < expected) {
        if (auto f = failure(o, r, replyKeys, c.nowMs))
            return *f;
        Reading bad;
        bad.atMs = c.nowMs;
        bad.status = Reading::Status::Error;
        bad.message = QStringLiteral("Reading Sidekiq \"%1\" got %2 replies for %3 commands.")
                          .arg(printableBytes(o.key))
                          .arg(r.size())
                          .arg(expected);
        return bad;
    }
    if (auto f = failure(o, r.mid(0, FixedReplies), replyKeys, c.nowMs))
        return *f;

    Reading reading;
    reading.atMs = c.nowMs;
    const qint64 page = std::max(1, o.params.pageSize);
    Tally t;
    readQueues(reading, t, r, queues, ns, page, c.nowMs, expected);
    readProcesses(reading, t, r, processes, ns, page, c.nowMs);
    std::sort(reading.editQueue().items.begin(), reading.editQueue().items.end(),
              [](const InFlightItem &a, const InFlightItem &b) { return a.ageMs > b.ageMs; });
    if (reading.editLibrary().workers < 0 && !r.at(5).isError() && r.at(5).elements().isEmpty())
        reading.editLibrary().workers = reading.editLibrary().workersAlive
            = 0; // no process ever started, or all pruned

    const qint64 queueCount = r.at(0).toInteger();
    reading.editQueue().length = t.enqueued;
    readTimes(reading, t, c.nowMs);
    readCounts(reading, t, r, expected);
    reading.editQueue().stuckIsLowerBound = reading.queue().truncated;
    reading.editLibrary().layoutKnown
        = reading.editLibrary().layoutVersion.isEmpty()
          || reading.editLibrary().layoutVersion.startsWith(QLatin1String("sidekiq:6."))
          || reading.editLibrary().layoutVersion.startsWith(QLatin1String("sidekiq:7."))
          || reading.editLibrary().layoutVersion.startsWith(QLatin1String("sidekiq:8."));
    reading.editLibrary().layoutKnown
        = reading.editLibrary().layoutKnown && t.foreignQueue.isEmpty();
    if (queueCount == 0 && r.at(6).toInteger() == 0 && reading.queue().inFlight == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No Sidekiq keys at \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    if (!t.foreignQueue.isEmpty())
        reading.message = QStringLiteral("Queue \"%1\"'s next job has no jid: not a Sidekiq job "
                                         "(Resque's {class, args}?); shown read-only.")
                              .arg(printableBytes(t.foreignQueue, 80));
    else if (!reading.editLibrary().layoutKnown)
        reading.message = QStringLiteral("Layout %1 is not one Gatehouse knows (Sidekiq 6-8): "
                                         "shown read-only.")
                              .arg(reading.editLibrary().layoutVersion);
    else if (t.unread > 0 || queueCount > queues.size() + t.followed + t.unread)
        reading.message = QStringLiteral("%1 queues listed; %2 were read (the others from the next "
                                         "reading on).")
                              .arg(queueCount)
                              .arg(queues.size() + t.followed);
    return reading;
}

QJsonArray SidekiqUnit::jsonKeys(const PatternObject &object) const
{
    return keysToJson(object.keys());
}

void SidekiqUnit::writeLibraryJson(const ObjectState &s, const Reading &, qint64 nowMs,
                                   QJsonObject &j) const
{
    const Reading &read = s.reading;
    QJsonArray queues, processes;
    for (const LibraryPart &p : read.library().parts) {
        const double age = double(read.ageAt(p.ageMs, nowMs));
        if (p.kind == QLatin1String("queue")) {
            const bool read = p.count >= 0;
            queues.append(
                QJsonObject{{QStringLiteral("name"), keyToJson(p.name)},
                            {QStringLiteral("size"), read ? double(p.count) : QJsonValue()},
                            {QStringLiteral("latencyMs"), read ? age : QJsonValue()}});
            continue;
        }
        QJsonArray work;
        for (const InFlightItem &item : read.queue().items) {
            if (item.holder != p.name)
                continue;
            work.append(
                QJsonObject{{QStringLiteral("job"), keyToJson(item.job)},
                            {QStringLiteral("class"), keyToJson(item.name)},
                            {QStringLiteral("queue"), keyToJson(item.queue)},
                            {QStringLiteral("ageMs"), double(read.ageAt(item.ageMs, nowMs))}});
        }
        const qint64 lost = lostInMs(read, p, nowMs);
        processes.append(QJsonObject{
            {QStringLiteral("identity"), keyToJson(p.name)},
            {QStringLiteral("busy"), double(p.count)},
            {QStringLiteral("concurrency"), p.limit < 0 ? QJsonValue() : double(p.limit)},
            {QStringLiteral("beatAgeMs"), p.ageMs < 0 ? QJsonValue() : age},
            {QStringLiteral("alive"), p.alive},
            {QStringLiteral("state"), p.alive ? QStringLiteral("alive") : QStringLiteral("dead")},
            // A dead process's in-flight work is gone for good (basic fetch)
            // when its hash expires: the countdown, null when not at risk.
            {QStringLiteral("workLostInMs"), lost >= 0 ? QJsonValue(double(lost)) : QJsonValue()},
            {QStringLiteral("expiresInMs"),
             p.expiresInMs > 0 ? QJsonValue(double(read.countdownAt(p.expiresInMs, nowMs)))
                               : QJsonValue()},
            {QStringLiteral("quiet"), p.quiet},
            {QStringLiteral("work"), work}});
    }
    j.insert(QStringLiteral("queues"), queues);
    j.insert(QStringLiteral("processes"), processes);
    const qint64 soonest = soonestLossMs(read, nowMs);
    j.insert(QStringLiteral("workLostInMs"),
             soonest >= 0 ? QJsonValue(double(soonest)) : QJsonValue());
}

QStringList SidekiqUnit::itemHeaders() const
{
    return {QStringLiteral("Job (jid)"), QStringLiteral("Class"), QStringLiteral("Queue"),
            QStringLiteral("Running for"), QStringLiteral("Process")};
}

QList<QStringList> SidekiqUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items) {
        QString holder = printableText(item.holder, 120);
        if (!item.locked) {
            const LibraryPart *p = processPart(s.reading, item.holder);
            const qint64 lost = p ? lostInMs(s.reading, *p, nowMs) : -1;
            holder += lost >= 0 ? QStringLiteral(" (dead: stuck; lost in %1)").arg(formatMs(lost))
                                : QStringLiteral(" (dead: stuck)");
        }
        rows.append({printableBytes(item.job, 120), printableText(item.name, 80),
                     printableText(item.queue, 80), formatMs(s.reading.ageAt(item.ageMs, nowMs)),
                     holder});
    }
    return rows;
}

bool SidekiqUnit::itemUrgent(const ObjectState &s, int i, qint64 nowMs) const
{
    if (i < 0 || i >= s.reading.queue().items.size() || s.reading.queue().items.at(i).locked)
        return false;
    const LibraryPart *p = processPart(s.reading, s.reading.queue().items.at(i).holder);
    return p && lostInMs(s.reading, *p, nowMs) >= 0;
}

QString SidekiqUnit::displayName(const PatternObject &object) const
{
    const QByteArray ns = nsOf(object);
    return ns.isEmpty() ? QStringLiteral("Sidekiq")
                        : QStringLiteral("Sidekiq %1").arg(printableBytes(ns.chopped(1)));
}

QString SidekiqUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    QString text = LibraryQueueUnit::attentionText(state, nowMs);
    if (const qint64 lost = soonestLossMs(r, nowMs); lost >= 0)
        text += QStringLiteral("; lost for good in %1 (the dead process's work hash expires): "
                               "requeue now")
                    .arg(formatMs(lost));
    return text;
}

} // namespace gatehouse
