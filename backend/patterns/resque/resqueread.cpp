// SPDX-License-Identifier: MIT
#include "resquelayout.h"
#include "resqueunit.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/libraryqueue.h>
#include <redis/printabletext.h>

#include <QCryptographicHash>
#include <QDateTime>
#include <QRegularExpression>

#include <algorithm>

namespace gatehouse {

using namespace ResqueInternal;

qint64 ResqueInternal::resqueTimeMs(const QString &text)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return -1;
    bool ok = false;
    const double seconds = t.toDouble(&ok);
    if (ok)
        return seconds > 0 && seconds < 1e11 ? qint64(seconds * 1000) : -1;
    QDateTime d = QDateTime::fromString(t, Qt::ISODateWithMs);
    if (!d.isValid())
        d = QDateTime::fromString(t, Qt::RFC2822Date);
    if (!d.isValid()) {
        // Ruby's Time#to_s "2026-11-25 01:52:14 +0000", JavaScript's
        // Date#toString "Wed Nov 25 2026 01:52:14 GMT+0000 (...)".
        static const QRegularExpression ruby(
            QStringLiteral("^(\\d{4}-\\d\\d-\\d\\d) (\\d\\d:\\d\\d:\\d\\d) ([+-]\\d\\d)(\\d\\d)$"));
        static const QRegularExpression js(QStringLiteral(
            "^\\w{3} (\\w{3}) (\\d\\d) (\\d{4}) (\\d\\d:\\d\\d:\\d\\d) GMT([+-]\\d\\d)(\\d\\d)"));
        if (const auto m = ruby.match(t); m.hasMatch()) {
            d = QDateTime::fromString(
                QStringLiteral("%1T%2%3:%4")
                    .arg(m.captured(1), m.captured(2), m.captured(3), m.captured(4)),
                Qt::ISODate);
        } else if (const auto j = js.match(t); j.hasMatch()) {
            static const QStringList months{
                QStringLiteral("Jan"), QStringLiteral("Feb"), QStringLiteral("Mar"),
                QStringLiteral("Apr"), QStringLiteral("May"), QStringLiteral("Jun"),
                QStringLiteral("Jul"), QStringLiteral("Aug"), QStringLiteral("Sep"),
                QStringLiteral("Oct"), QStringLiteral("Nov"), QStringLiteral("Dec")};
            const int month = int(months.indexOf(j.captured(1))) + 1;
            if (month > 0)
                d = QDateTime::fromString(
                    QStringLiteral("%1-%2-%3T%4%5:%6")
                        .arg(j.captured(3))
                        .arg(month, 2, 10, QLatin1Char('0'))
                        .arg(j.captured(2), j.captured(4), j.captured(5), j.captured(6)),
                    Qt::ISODate);
        }
    }
    return d.isValid() ? d.toMSecsSinceEpoch() : -1;
}

QByteArray ResqueInternal::failedRef(qint64 index, const QByteArray &entry)
{
    return QByteArray::number(index) + ':'
           + QCryptographicHash::hash(entry, QCryptographicHash::Sha1).toHex();
}

namespace {

qint64 since(qint64 nowMs, qint64 t)
{
    return t >= 0 ? std::max<qint64>(0, saturatingSub(nowMs, t)) : 0;
}

// A counter's value; nullopt when it is not a number (not Resque's).
std::optional<qint64> counter(const RedisValue &v)
{
    if (v.isNil())
        return 0;
    bool ok = false;
    const qint64 n = v.bytes().toLongLong(&ok);
    return ok && n >= 0 ? std::optional<qint64>(n) : std::nullopt;
}

struct Foreign
{
    QString what; // "queue \"mail\"'s next job"
    void note(const QString &part)
    {
        if (what.isEmpty())
            what = part;
    }
};

// The workers of the page read: what each works on, since when, its
// heartbeat (Resque 2), as parts and in-flight items.
void readWorkers(const PatternObject &o, const QList<RedisValue> &r, qint64 nowMs, Reading &reading,
                 Foreign &foreign, bool &node)
{
    QHash<QByteArray, qint64> beats;
    if (r.at(5).size() == 2) {
        const auto &e = r.at(5).at(1).elements();
        for (qsizetype i = 0; i + 1 < e.size(); i += 2)
            beats.insert(e.at(i).bytes(),
                         resqueTimeMs(QString::fromUtf8(e.at(i + 1).bytes().left(64))));
    }
    const auto &w = r.at(4).elements();
    for (qsizetype i = 0; i + 2 < w.size(); i += 3) {
        const QByteArray id = w.at(i).bytes();
        LibraryPart part;
        part.kind = QStringLiteral("worker");
        part.name = id;
        part.count = 0;
        const qint64 beat = beats.value(id, -1);
        part.ageMs = beat >= 0 ? since(nowMs, beat) : -1;
        if (!w.at(i + 1).isNil()) {
            const QJsonObject working = QJsonDocument::fromJson(w.at(i + 1).bytes()).object();
            const QJsonObject payload = working.value(QStringLiteral("payload")).toObject();
            if (!isResqueJob(payload))
                foreign.note(QStringLiteral("worker \"%1\"'s job").arg(printableBytes(id, 80)));
            node = node || payload.contains(QStringLiteral("queue"));
            const qint64 runAt
                = resqueTimeMs(working.value(QStringLiteral("run_at")).toString().left(64));
            InFlightItem item;
            item.job = id;
            item.holder = id;
            item.name = payload.value(QStringLiteral("class")).toString().toUtf8().left(120);
            item.queue = working.value(QStringLiteral("queue")).toString().toUtf8().left(120);
            item.source = AgeSource::Library;
            item.ageMs = since(nowMs, runAt);
            item.locked = runAt < 0 || item.ageMs < o.params.stuckAfterMs;
            part.count = 1;
            part.alive = item.locked;
            ++reading.editQueue().inFlight;
            reading.editQueue().oldestInFlightAgeMs
                = std::max(reading.queue().oldestInFlightAgeMs, item.ageMs);
            if (!item.locked) {
                ++reading.editQueue().stuck;
                reading.editLibrary().stuckJobs.append(
                    {id, QString::fromLatin1(StuckReason), runAt});
            }
            reading.editQueue().items.append(item);
        }
        reading.editLibrary().parts.append(part);
    }
    reading.editQueue().truncated = r.at(3).toInteger() > w.size() / 3;
}

// Resque's own threshold for a dead worker: prune_dead_workers unregisters
// a worker whose workers:heartbeat entry is older than Resque.prune_interval,
// DEFAULT_PRUNE_INTERVAL = DEFAULT_HEARTBEAT_INTERVAL * 5 = 300 s (resque/resque
// v2.6.0, lib/resque.rb; lib/resque/worker.rb all_workers_with_expired_heartbeats:
// seconds since the heartbeat > prune_interval; the same in v3.0.0).
constexpr qint64 PruneIntervalMs = 300 * 1000;

// The queues a worker's id names, comma-separated: Resque's "host:pid:a,b"
// (Worker#to_s; Worker.find splits it with split(':', 3)), node-resque's
// "<name>:a,b" with a name "host:pid" or its own (queue.js workers(): two
// parts are name and queues). Patterns: "*" every queue, "mail*" (Resque's
// glob_match, File.fnmatch?). Empty when the id names none.
QList<QByteArray> workerQueues(const QByteArray &id)
{
    const QList<QByteArray> parts = id.split(':');
    if (parts.size() < 2)
        return {};
    const qsizetype at = parts.size() == 2 ? id.indexOf(':') : id.indexOf(':', id.indexOf(':') + 1);
    return id.mid(at + 1).split(',');
}

// Whether a worker would take a job of one of the queues (every queue when
// the list is empty); an id that names no queue might take any.
bool listensTo(const QByteArray &id, const QList<QByteArray> &queues)
{
    const QList<QByteArray> patterns = workerQueues(id);
    if (queues.isEmpty() || patterns.isEmpty())
        return true;
    return std::any_of(queues.cbegin(), queues.cend(), [&](const QByteArray &q) {
        return std::any_of(patterns.cbegin(), patterns.cend(),
                           [&](const QByteArray &p) { return globMatch(p.trimmed(), q); });
    });
}

// workersAlive: of the page of workers read, those that listen to a queue
// with jobs waiting (any worker when none waits) and whose heartbeat is
// within Resque's prune interval. A worker with no heartbeat read (one that
// writes none, as node-resque and Resque 1, or one past the HSCAN page) or
// workers past the page may be alive: with none seen alive, -1 (unknown),
// never 0.
void countAlive(Reading &reading)
{
    QList<QByteArray> waiting;
    for (const LibraryPart &p : reading.library().parts) {
        if (p.kind == QLatin1String("queue") && p.count > 0)
            waiting << p.name;
    }
    qint64 alive = 0;
    bool unknown = reading.queue().truncated;
    for (const LibraryPart &p : reading.library().parts) {
        if (p.kind != QLatin1String("worker") || !listensTo(p.name, waiting))
            continue;
        if (p.ageMs < 0)
            unknown = true;
        else if (p.ageMs <= PruneIntervalMs)
            ++alive;
    }
    reading.editLibrary().workersAlive = alive > 0 || !unknown ? alive : -1;
}

} // namespace

Reading ResqueUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                         const ProbeContext &c) const
{
    const QList<QByteArray> queues = queueMembers(o);
    const QList<QByteArray> replyKeys{keyOf(o, Queues),   keyOf(o, Queues),   keyOf(o, Failed),
                                      keyOf(o, Workers),  keyOf(o, Workers),  keyOf(o, Heartbeat),
                                      keyOf(o, Schedule), keyOf(o, Schedule), keyOf(o, Processed),
                                      keyOf(o, Failed)};
    const qsizetype expected = FixedReplies + QueueReplies * queues.size();
    if (auto f = failure(o, r.mid(0, FixedReplies), replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    if (r.size() < expected) {
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("Reading Resque \"%1\" got %2 replies for %3 commands.")
                              .arg(printableBytes(o.key))
                              .arg(r.size())
                              .arg(expected);
        return reading;
    }
    Foreign foreign;
    bool node = false;
    qint64 queued = 0;
    for (qsizetype i = 0; i < queues.size(); ++i) {
        const qsizetype at = FixedReplies + QueueReplies * i;
        const RedisValue &len = r.at(at), &next = r.at(at + 1);
        // Not listed in "queues": not one of this deployment's queues.
        if (r.at(at + 2).isInteger() && r.at(at + 2).toInteger() == 0)
            continue;
        const QByteArray name = queues.at(i).mid(nsOf(o).size() + 6);
        if (len.isError()) {
            foreign.note(QStringLiteral("queue \"%1\" (%2)")
                             .arg(printableBytes(name, 80), printableBytes(len.bytes(), 80)));
            continue;
        }
        if (!next.isNil()) {
            const QJsonObject job = QJsonDocument::fromJson(next.bytes()).object();
            if (!isResqueJob(job))
                foreign.note(QStringLiteral("queue \"%1\"'s next job").arg(printableBytes(name)));
            node = node || job.contains(QStringLiteral("queue"));
        }
        queued = saturatingAdd(queued, len.toInteger());
        reading.editLibrary().parts.append(
            {QStringLiteral("queue"), name, len.toInteger(), -1, -1, true, false});
    }
    readWorkers(o, r, c.nowMs, reading, foreign, node);
    countAlive(reading);

    reading.editQueue().length = queued;
    reading.editQueue().deadLength = r.at(2).toInteger();
    reading.editLibrary().workers = r.at(3).toInteger();
    reading.editLibrary().counts = {{QStringLiteral("queued"), queued},
                                    {QStringLiteral("working"), reading.queue().inFlight},
                                    {QStringLiteral("failed"), reading.queue().deadLength},
                                    {QStringLiteral("delayed timestamps"), r.at(6).toInteger()}};
    const auto &stats = r.at(8).elements();
    for (int i = 0; i < 2 && i < stats.size(); ++i) {
        if (const auto n = counter(stats.at(i)))
            reading.editLibrary().counts.append(
                {i == 0 ? QStringLiteral("stat:processed") : QStringLiteral("stat:failed"), *n});
        else
            foreign.note(QString::fromLatin1(i == 0 ? "stat:processed" : "stat:failed"));
    }
    // resque-scheduler's next due timestamp (s): how soon a delayed job
    // is due to be enqueued.
    if (const auto &next = r.at(7).elements(); next.size() == 2) {
        bool ok = false;
        const double due = next.at(1).bytes().toDouble(&ok);
        if (ok && due > 0 && due < 1e11)
            reading.editLibrary().parts.append(
                {QStringLiteral("delayed"), next.at(0).bytes().left(32), r.at(6).toInteger(), -1,
                 -1, true, false, std::max<qint64>(0, qint64(due * 1000) - c.nowMs)});
    }
    std::sort(reading.editQueue().items.begin(), reading.editQueue().items.end(),
              [](const InFlightItem &a, const InFlightItem &b) { return a.ageMs > b.ageMs; });
    reading.editQueue().stuckIsLowerBound = reading.queue().truncated;
    if (node)
        reading.editLibrary().layoutVersion = QStringLiteral("node-resque");

    const qint64 queueCount = r.at(0).toInteger();
    if (queueCount == 0 && r.at(9).toInteger() == 0 && queues.isEmpty()) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No Resque keys at \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    reading.editLibrary().layoutKnown = foreign.what.isEmpty();
    if (!reading.editLibrary().layoutKnown)
        reading.message = QStringLiteral("Layout not one Gatehouse knows (Resque 2, node-resque "
                                         "9): %1 is not Resque's; shown read-only.")
                              .arg(foreign.what);
    else if (queueCount > queues.size())
        reading.message = QStringLiteral("%1 queues listed; %2 were read (the others from the next "
                                         "reading on).")
                              .arg(queueCount)
                              .arg(queues.size());
    return reading;
}

QList<Figure> ResqueUnit::figures() const
{
    return {
        countFigure(QStringLiteral("queued"), QStringLiteral("Queued"), QStringLiteral("queued")),
        countFigure(QStringLiteral("inFlight"), QStringLiteral("Working"),
                    QStringLiteral("working")),
        countFigure(QStringLiteral("failed"), QStringLiteral("Failed"), QStringLiteral("failed")),
        countFigure(QStringLiteral("delayed"), QStringLiteral("Delayed timestamps"),
                    QStringLiteral("delayed timestamps")),
        stuckFigure(QStringLiteral("Stuck workers")),
        oldestFigure(QStringLiteral("Oldest working")),
        countFigure(QStringLiteral("processed"), QStringLiteral("Processed"),
                    QStringLiteral("stat:processed")),
        countFigure(QStringLiteral("failedTotal"), QStringLiteral("Failed (stat)"),
                    QStringLiteral("stat:failed")),
    };
}

QList<Chart> ResqueUnit::charts() const
{
    return {
        {QStringLiteral("Jobs by state"),
         QStringLiteral("jobs"),
         {{QStringLiteral("queued"), QStringLiteral("queued")},
          {QStringLiteral("inFlight"), QStringLiteral("working")},
          {QStringLiteral("failed"), QStringLiteral("failed")},
          {QStringLiteral("stuck"), QStringLiteral("stuck")}}},
        oldestChart(QStringLiteral("Oldest working")),
        libraryqueue::throughputChart(QStringLiteral("processed"), QStringLiteral("failedTotal"))};
}

QList<LibraryQueueUnit::JobState> ResqueUnit::states() const
{
    // Resque's own words: Resque.info's pending (queued), working, the
    // Failure backend's failed, resque-scheduler's delayed jobs (its
    // schedule counts due times, not jobs: "delayed timestamps").
    return {{QStringLiteral("queued")},
            {QStringLiteral("working"), JobStage::InFlight},
            {QStringLiteral("failed"), JobStage::Dead},
            {QStringLiteral("delayed")}};
}

LibraryQueueUnit::StuckRule ResqueUnit::stuckRule() const
{
    return {QStringLiteral("stuck"), QStringLiteral("workers stuck on a job past the threshold"),
            QStringLiteral("oldest working")};
}

QString ResqueUnit::displayName(const PatternObject &object) const
{
    // Named by its namespace ("Resque resque"); a key that names none, by the key.
    if (!namespaceOf(object.key))
        return LibraryQueueUnit::displayName(object);
    return QStringLiteral("Resque %1").arg(printableBytes(nsOf(object).chopped(1)));
}

QJsonArray ResqueUnit::jsonKeys(const PatternObject &object) const
{
    return keysToJson(object.keys());
}

void ResqueUnit::writeLibraryJson(const ObjectState &s, const Reading &, qint64 nowMs,
                                  QJsonObject &j) const
{
    const Reading &read = s.reading;
    QJsonArray queues, workers;
    for (const LibraryPart &p : read.library().parts) {
        if (p.kind == QLatin1String("queue")) {
            queues.append(QJsonObject{{QStringLiteral("name"), keyToJson(p.name)},
                                      {QStringLiteral("size"), double(p.count)}});
            continue;
        }
        if (p.kind == QLatin1String("delayed")) {
            j.insert(QStringLiteral("delayed"),
                     QJsonObject{{QStringLiteral("timestamps"), double(p.count)},
                                 {QStringLiteral("nextDueInMs"),
                                  double(read.countdownAt(p.expiresInMs, nowMs))}});
            continue;
        }
        QJsonObject worker{{QStringLiteral("id"), keyToJson(p.name)},
                           {QStringLiteral("heartbeatAgeMs"),
                            p.ageMs < 0 ? QJsonValue() : double(read.ageAt(p.ageMs, nowMs))}};
        QJsonValue job;
        for (const InFlightItem &item : read.queue().items) {
            if (item.holder != p.name)
                continue;
            job = QJsonObject{{QStringLiteral("class"), keyToJson(item.name)},
                              {QStringLiteral("queue"), keyToJson(item.queue)},
                              {QStringLiteral("ageMs"), double(read.ageAt(item.ageMs, nowMs))},
                              {QStringLiteral("stuck"), !item.locked}};
        }
        worker.insert(QStringLiteral("workingOn"), job);
        workers.append(worker);
    }
    j.insert(QStringLiteral("queues"), queues);
    j.insert(QStringLiteral("workers"), workers);
    // Of them, alive and listening to a queue with jobs waiting; null unknown.
    j.insert(QStringLiteral("workersAlive"),
             read.library().workersAlive < 0 ? QJsonValue() : double(read.library().workersAlive));
    j.insert(QStringLiteral("stuckAfterMs"), double(s.object->params.stuckAfterMs));
}

QStringList ResqueUnit::itemHeaders() const
{
    return {QStringLiteral("Worker"), QStringLiteral("Class"), QStringLiteral("Queue"),
            QStringLiteral("Working for")};
}

QList<QStringList> ResqueUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items) {
        QString worker = printableText(item.holder, 120);
        if (!item.locked)
            worker += QStringLiteral(" (stuck)");
        rows.append({worker, printableText(item.name, 80), printableText(item.queue, 80),
                     formatMs(s.reading.ageAt(item.ageMs, nowMs))});
    }
    return rows;
}

QHash<QString, QByteArray> ResqueUnit::itemInputs(const ObjectState &s, int i) const
{
    if (i < 0 || i >= s.reading.queue().items.size())
        return {};
    return {{QStringLiteral("job"), s.reading.queue().items.at(i).holder}};
}

} // namespace gatehouse
