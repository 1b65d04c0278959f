// SPDX-License-Identifier: MIT
#include "sidekiqunit.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue.h>
#include <patterns/matchcounter.h>
#include <patterns/sections.h>
#include <redis/redisscript.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>

namespace gatehouse {

namespace {

constexpr const char *SharedNames[] = {"queues", "processes", "schedule", "retry", "dead"};
constexpr const char *SharedTypes[] = {"set", "set", "zset", "zset", "zset"};
constexpr int FixedReplies = 7;   // probe(): the shared keys' commands
constexpr int QueueReplies = 2;   // per queue: LLEN, LINDEX -1
constexpr int ProcessReplies = 3; // per process: HMGET, HSCAN :workers, HSCAN :work
// Last: MGET of the deployment's lifetime counters stat:processed and
// stat:failed (Sidekiq::Stats#processed and #failed; the processes flush
// them with each heartbeat), for its throughput.
constexpr int StatReplies = 1;

const char *StuckReason = "in flight on a dead Sidekiq process (its heartbeat stopped): with the "
                          "basic fetch no worker will run it again";

// "<hostname>:<pid>:<12 hex>": Sidekiq's identity (Sidekiq::Util#identity,
// SecureRandom.hex(6)), the name of its heartbeat hash.
bool isIdentity(const QByteArray &name)
{
    static const QRegularExpression re(QStringLiteral("^.+:[0-9]+:[0-9a-f]{12}$"));
    return re.match(QString::fromUtf8(name)).hasMatch();
}

// A number from a reply or a job's JSON as qint64: NaN and out-of-range
// values (not to be trusted) become -1, unknown.
qint64 toInt64(double v)
{
    return v > -9.2e18 && v < 9.2e18 ? qint64(v) : -1;
}

// Epoch seconds (Sidekiq 6 and 7) or ms (8) to ms, by magnitude: 1e11 s is
// the year 5138, 1e11 ms 1973. -1 when it is no time at all.
qint64 epochMs(double v)
{
    const qint64 ms = toInt64(v > 1e11 ? v : v * 1000.0);
    return ms >= 0 ? ms : -1;
}

// Time since t (ms) at now; 0 when t is unknown or after now.
qint64 since(qint64 nowMs, qint64 t)
{
    return t >= 0 ? std::max<qint64>(0, saturatingSub(nowMs, t)) : 0;
}

std::optional<double> numberOf(const QJsonValue &v)
{
    if (v.isDouble())
        return v.toDouble();
    if (v.isString()) {
        bool ok = false;
        const double d = v.toString().toDouble(&ok);
        if (ok)
            return d;
    }
    return std::nullopt;
}

std::optional<double> numberOf(const RedisValue &v)
{
    if (v.isNil())
        return std::nullopt;
    bool ok = false;
    const double d = v.bytes().toDouble(&ok);
    return ok ? std::optional<double>(d) : std::nullopt;
}

QByteArray workKey(const QByteArray &processKey, bool v6)
{
    return processKey + (v6 ? ":workers" : ":work");
}

// The object's members: its queue lists and its processes' heartbeat hashes.
QList<QByteArray> queueMembers(const PatternObject &o, const QByteArray &ns)
{
    QList<QByteArray> out;
    for (const QByteArray &m : o.members) {
        if (m.startsWith(QByteArray(ns + "queue:")))
            out << m;
    }
    return out;
}

QList<QByteArray> processMembers(const PatternObject &o, const QByteArray &ns)
{
    QList<QByteArray> out;
    for (const QByteArray &m : o.members) {
        if (!m.startsWith(QByteArray(ns + "queue:")))
            out << m;
    }
    return out;
}

QByteArray nsOf(const PatternObject &o)
{
    return SidekiqUnit::namespaceOf(o.key).value_or(QByteArray());
}

// One job record's fields the console shows; the payload is a JSON string.
struct JobFields
{
    QByteArray jid, klass;
    qint64 retryCount = -1;
    qint64 enqueuedAtMs = -1;
};

JobFields jobFields(const QByteArray &json)
{
    JobFields f;
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    f.jid = o.value(QStringLiteral("jid")).toString().toUtf8().left(120);
    f.klass = o.value(QStringLiteral("wrapped")).toString().toUtf8().left(120);
    if (f.klass.isEmpty())
        f.klass = o.value(QStringLiteral("class")).toString().toUtf8().left(120);
    if (auto n = numberOf(o.value(QStringLiteral("retry_count"))))
        f.retryCount = toInt64(*n);
    if (auto n = numberOf(o.value(QStringLiteral("enqueued_at"))))
        f.enqueuedAtMs = epochMs(*n);
    else if (auto c = numberOf(o.value(QStringLiteral("created_at"))))
        f.enqueuedAtMs = epochMs(*c);
    return f;
}

// Sidekiq Web names a job of a sorted set "<score>-<jid>" (its score finds
// it among the entries at that time); a bare jid is looked for in a page.
std::pair<QByteArray, QByteArray> scoreAndJid(const QByteArray &job)
{
    const qsizetype dash = job.indexOf('-');
    if (dash > 0) {
        bool ok = false;
        job.left(dash).toDouble(&ok);
        if (ok)
            return {job.left(dash), job.mid(dash + 1)};
    }
    return {QByteArray(), job};
}

ReplyMeaning oneJob(qint64 reply, const QByteArray &jid, const QString &did, const QString &where)
{
    return libraryqueue::jobMeaning(
        reply, jid, did,
        {{0, QStringLiteral("No job %1 %2 (it moved on); nothing changed.")
                 .arg(QStringLiteral("%1"), where)},
         {-1, QStringLiteral("Job %1 is in flight on a live Sidekiq process; nothing changed.")},
         {-2, QStringLiteral("Job %1's record is not a Sidekiq job Gatehouse can move; nothing "
                             "changed.")}});
}

} // namespace

std::optional<QByteArray> SidekiqUnit::namespaceOf(const QByteArray &key)
{
    if (key == "queues")
        return QByteArray();
    if (key.endsWith(":queues"))
        return key.chopped(6);
    return std::nullopt;
}

QByteArray SidekiqUnit::keyOf(const PatternObject &o, Shared s)
{
    // The object's key is its "queues" SET; related holds the rest.
    if (s == Queues)
        return o.key;
    const QByteArray k = o.relatedKey(s - 1);
    return k.isEmpty() ? nsOf(o) + SharedNames[s] : k;
}

PatternObject SidekiqUnit::objectForKey(const QByteArray &queuesKey)
{
    PatternObject o;
    o.kind = Kind;
    o.key = queuesKey;
    const QByteArray ns = namespaceOf(queuesKey).value_or(QByteArray());
    for (int s = Processes; s < SharedCount; ++s)
        o.related << ns + SharedNames[s];
    return o;
}

Section SidekiqUnit::section() const
{
    return sections::queue();
}

QList<PatternUnit::Command> SidekiqUnit::identifyProbe(const QByteArray &target) const
{
    const QByteArray ns = namespaceOf(target).value_or(QByteArray("\x01"));
    return {{"TYPE", target}, {"TYPE", ns + "processes"}, {"TYPE", ns + "retry"}};
}

bool SidekiqUnit::identifies(const QByteArray &target, const QList<RedisValue> &r) const
{
    // "queues" is a plain name: a SET of that name is Sidekiq's when its
    // processes or retry set sits beside it (or nothing else says otherwise).
    return namespaceOf(target) && r.size() == 3 && r.at(0).bytes() == "set"
           && (r.at(1).bytes() == "set" || r.at(2).bytes() == "zset" || r.at(1).bytes() == "none");
}

std::optional<PatternObject> SidekiqUnit::objectFor(const ProfileRule &rule,
                                                    const QByteArray &key) const
{
    // The rule names the "queues" SET; its queue lists and shared sets (what
    // SCAN and keyspace events report) are the same deployment's.
    QByteArray queuesKey = key;
    if (!namespaceOf(key)) {
        const qsizetype inner = key.indexOf(":queue:");
        const QByteArray last = key.mid(key.lastIndexOf(':') + 1);
        if (key.startsWith("queue:"))
            queuesKey = "queues";
        else if (inner >= 0)
            queuesKey = key.left(inner + 1) + "queues";
        else if (last == "processes" || last == "schedule" || last == "retry" || last == "dead")
            queuesKey = key.chopped(last.size()) + "queues";
        else
            return std::nullopt;
    }
    if (!globMatch(rule.match, queuesKey) || rule.excludes(queuesKey))
        return std::nullopt;
    PatternObject o = objectForKey(queuesKey);
    o.params = rule.params;
    return o;
}

PatternObject SidekiqUnit::conventionalObject(const QByteArray &key) const
{
    return objectForKey(key);
}

std::optional<KeyClaim> SidekiqUnit::claimKey(const KeyShape &shape, qint64) const
{
    // Only Sidekiq's own names, weakly: a deployment is made of them only
    // when its "queues" SET has company (groupClaims), and an application's
    // own "retry" set stays what it is otherwise.
    const QByteArray &k = shape.key;
    const QByteArray last = k.mid(k.lastIndexOf(':') + 1);
    for (int s = 0; s < SharedCount; ++s) {
        if (last == SharedNames[s] && shape.type == SharedTypes[s])
            return KeyClaim{QString::fromLatin1(SharedNames[s]), s == Queues ? 20 : 10};
    }
    if (shape.type == "list" && (k.startsWith("queue:") || k.contains(":queue:")))
        return KeyClaim{QStringLiteral("queue"), 10};
    if (shape.type == "hash" && (k.endsWith(":workers") || k.endsWith(":work"))
        && isIdentity(k.left(k.lastIndexOf(':'))))
        return KeyClaim{QStringLiteral("work"), 10};
    if (shape.type == "hash" && isIdentity(k))
        return KeyClaim{QStringLiteral("process"), 10};
    if (shape.type == "list" && k.endsWith("-signals") && isIdentity(k.chopped(8)))
        return KeyClaim{QStringLiteral("signals"), 10};
    if (shape.type == "string"
        && (k.startsWith("stat:processed") || k.startsWith("stat:failed")
            || k.contains(":stat:processed") || k.contains(":stat:failed")))
        return KeyClaim{QStringLiteral("stat"), 10};
    return std::nullopt;
}

QList<PatternObject> SidekiqUnit::groupClaims(ClaimPool &pool) const
{
    const QList<QByteArray> mine = pool.claimed(Kind, 1000);
    // Deployments by namespace, longest first: "app:" takes its keys before
    // the unnamespaced one could.
    QList<QByteArray> namespaces;
    for (const QByteArray &key : mine) {
        if (pool.roleOf(key, Kind) == QLatin1String("queues"))
            namespaces << *namespaceOf(key);
    }
    std::sort(namespaces.begin(), namespaces.end(),
              [](const QByteArray &a, const QByteArray &b) { return a.size() > b.size(); });
    QList<PatternObject> out;
    for (const QByteArray &ns : namespaces) {
        const auto role = [&](const QByteArray &key) {
            return pool.roleOf(key, Kind);
        };
        QList<QByteArray> queues, processes, others;
        bool company = false;
        for (const QByteArray &key : pool.claimed(Kind, 1000)) {
            if (!key.startsWith(ns))
                continue;
            const QByteArray rest = key.mid(ns.size());
            const QString r = role(key);
            if (r == QLatin1String("queue") && rest.startsWith("queue:")) {
                queues << key;
                company = true;
            } else if (r == QLatin1String("process") && isIdentity(rest)) {
                processes << key;
            } else if (r == QLatin1String("work") && isIdentity(rest.left(rest.lastIndexOf(':')))) {
                processes << key.left(key.lastIndexOf(':'));
                others << key;
                company = true;
            } else if (r == QLatin1String("signals") && isIdentity(rest.chopped(8))) {
                others << key;
            } else if (r == QLatin1String("stat") && rest.startsWith("stat:")) {
                others << key;
                company = true;
            } else if (rest == "processes" || rest == "schedule" || rest == "retry"
                       || rest == "dead") {
                others << key;
                company = true;
            }
        }
        if (!company)
            continue;
        PatternObject o = objectForKey(ns + "queues");
        o.source = QStringLiteral("autodetected");
        pool.take(o.key);
        for (const QByteArray &k : std::as_const(others))
            pool.take(k);
        for (const QByteArray &k : std::as_const(queues))
            pool.take(k);
        for (const QByteArray &k : std::as_const(processes))
            pool.take(k);
        std::sort(processes.begin(), processes.end());
        processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
        o.members = queues + processes;
        out.append(o);
    }
    return out;
}

QList<PatternUnit::Command> SidekiqUnit::probe(const PatternObject &o, const ProbeContext &) const
{
    const QByteArray page = QByteArray::number(std::max(1, o.params.pageSize));
    QList<Command> cmds{
        {"SCARD", keyOf(o, Queues)},
        {"SRANDMEMBER", keyOf(o, Queues), page},
        {"ZCARD", keyOf(o, Schedule)},
        {"ZCARD", keyOf(o, Retry)},
        {"ZCARD", keyOf(o, Dead)},
        {"SRANDMEMBER", keyOf(o, Processes), page},
        {"EXISTS", keyOf(o, Processes), keyOf(o, Schedule), keyOf(o, Retry), keyOf(o, Dead)},
    };
    const QByteArray ns = nsOf(o);
    // Sidekiq::Queue#latency: the job at the right end is the next one taken
    // (clients LPUSH, the fetch BRPOPs); one element, never the list.
    for (const QByteArray &q : queueMembers(o, ns)) {
        cmds.append({"LLEN", q});
        cmds.append({"LINDEX", q, "-1"});
    }
    // A process's work hash holds one field per busy thread (at most its
    // concurrency); HSCAN keeps even a strange one to a page.
    for (const QByteArray &p : processMembers(o, ns)) {
        cmds.append({"HMGET", p, "info", "busy", "beat", "concurrency", "quiet"});
        cmds.append({"HSCAN", workKey(p, true), "0", "COUNT", page});
        cmds.append({"HSCAN", workKey(p, false), "0", "COUNT", page});
    }
    cmds.append({"MGET", ns + "stat:processed", ns + "stat:failed"});
    return cmds;
}

Reading SidekiqUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                          const ProbeContext &c) const
{
    const QByteArray ns = nsOf(o);
    const QList<QByteArray> queues = queueMembers(o, ns);
    const QList<QByteArray> processes = processMembers(o, ns);
    QList<QByteArray> replyKeys{keyOf(o, Queues),   keyOf(o, Queues), keyOf(o, Schedule),
                                keyOf(o, Retry),    keyOf(o, Dead),   keyOf(o, Processes),
                                keyOf(o, Processes)};
    const qsizetype expected = FixedReplies + QueueReplies * queues.size()
                               + ProcessReplies * processes.size() + StatReplies;
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
    qint64 enqueued = 0, busy = 0;
    int at = FixedReplies;
    for (const QByteArray &q : queues) {
        const RedisValue &len = r.at(at), &last = r.at(at + 1);
        at += QueueReplies;
        if (len.isError())
            continue;
        LibraryPart part;
        part.kind = QStringLiteral("queue");
        part.name = q.mid(ns.size() + 6);
        part.count = len.toInteger();
        enqueued = saturatingAdd(enqueued, part.count);
        if (!last.isError() && !last.isNil()) {
            const JobFields f = jobFields(last.bytes());
            part.ageMs = since(c.nowMs, f.enqueuedAtMs);
        } else {
            part.ageMs = 0; // Sidekiq's latency of an empty queue
        }
        if (reading.parts.size() < page)
            reading.parts.append(part);
    }

    // Queues "queues" lists whose list did not exist at the scan (an empty
    // queue has no key): read from the next reading on (afterRead).
    qint64 unread = 0;
    for (const RedisValue &v : r.at(1).elements()) {
        if (!queues.contains(ns + "queue:" + v.bytes()) && reading.parts.size() < page) {
            ++unread;
            reading.parts.append({QStringLiteral("queue"), v.bytes(), -1, -1, -1, true, false});
        }
    }

    QSet<QByteArray> listed;
    for (const RedisValue &v : r.at(5).elements())
        listed.insert(v.bytes());
    for (const QByteArray &p : processes) {
        const RedisValue &fields = r.at(at);
        const RedisValue &v6 = r.at(at + 1), &v7 = r.at(at + 2);
        at += ProcessReplies;
        const QByteArray identity = p.mid(ns.size());
        LibraryPart part;
        part.kind = QStringLiteral("process");
        part.name = identity;
        const bool hashGone = fields.isError() || fields.size() != 5
                              || (fields.at(0).isNil() && fields.at(2).isNil());
        if (!hashGone) {
            const QJsonObject info = QJsonDocument::fromJson(fields.at(0).bytes()).object();
            part.count = fields.at(1).bytes().toLongLong();
            if (auto n = numberOf(fields.at(3)))
                part.limit = toInt64(*n);
            else if (auto ic = numberOf(info.value(QStringLiteral("concurrency"))))
                part.limit = toInt64(*ic);
            if (auto beat = numberOf(fields.at(2)))
                part.ageMs = since(c.nowMs, epochMs(*beat));
            part.quiet = fields.at(4).bytes() == "true";
            const QString version = info.value(QStringLiteral("version")).toString();
            if (!version.isEmpty() && reading.layoutVersion.isEmpty())
                reading.layoutVersion = QStringLiteral("sidekiq:") + version.left(32);
        }
        part.alive = !hashGone && part.ageMs <= DeadAfterMs;
        if (part.alive)
            busy = saturatingAdd(busy, part.count);
        if (hashGone && !listed.contains(identity) && v6.size() == 2 && v7.size() == 2
            && v6.at(1).size() == 0 && v7.at(1).size() == 0)
            continue; // gone and pruned, nothing in flight: Sidekiq forgot it too
        for (const RedisValue *work : {&v6, &v7}) {
            if (work->isError() || work->size() != 2)
                continue;
            const auto &e = work->at(1).elements();
            for (qsizetype i = 0; i + 1 < e.size(); i += 2) {
                const QJsonObject entry = QJsonDocument::fromJson(e.at(i + 1).bytes()).object();
                const QJsonValue payload = entry.value(QStringLiteral("payload"));
                const QByteArray json = payload.isString()
                                            ? payload.toString().toUtf8()
                                            : QJsonDocument(payload.toObject()).toJson();
                const JobFields f = jobFields(json);
                InFlightItem item;
                item.job = f.jid;
                item.name = f.klass;
                item.attempts = f.retryCount < 0 ? 0 : f.retryCount + 1;
                item.queue = entry.value(QStringLiteral("queue")).toString().toUtf8().left(120);
                item.holder = identity;
                item.locked = part.alive;
                item.source = AgeSource::Library;
                const std::optional<double> runAt = numberOf(entry.value(QStringLiteral("run_at")));
                const qint64 runAtMs = runAt ? epochMs(*runAt) : -1;
                item.ageMs = since(c.nowMs, runAtMs);
                ++reading.inFlight;
                reading.oldestInFlightAgeMs = std::max(reading.oldestInFlightAgeMs, item.ageMs);
                if (!part.alive) {
                    ++reading.stuck;
                    if (reading.stuckJobs.size() < page)
                        reading.stuckJobs.append(
                            {item.job, QString::fromLatin1(StuckReason), runAtMs});
                }
                if (reading.items.size() < page)
                    reading.items.append(item);
                else
                    reading.truncated = true;
            }
        }
        if (reading.parts.size() < 2 * page)
            reading.parts.append(part);
    }
    std::sort(reading.items.begin(), reading.items.end(),
              [](const InFlightItem &a, const InFlightItem &b) { return a.ageMs > b.ageMs; });

    const qint64 queueCount = r.at(0).toInteger();
    reading.length = enqueued;
    reading.deadLength = r.at(4).toInteger();
    reading.counts = {{QStringLiteral("enqueued"), enqueued},
                      {QStringLiteral("scheduled"), r.at(2).toInteger()},
                      {QStringLiteral("retry"), r.at(3).toInteger()},
                      {QStringLiteral("dead"), reading.deadLength},
                      {QStringLiteral("busy"), busy}};
    // Sidekiq's own lifetime counters, as its dashboard shows them beside
    // the sets (absent until a process first flushes them: 0). A counter
    // that is not a number (not Sidekiq's) is left out, not shown as 0.
    if (const qsizetype statAt = r.size() - StatReplies; statAt >= at && statAt >= 0) {
        const RedisValue &stats = r.at(statAt);
        if (!stats.isError() && stats.size() == 2) {
            for (int i = 0; i < 2; ++i) {
                const RedisValue &v = stats.at(i);
                bool ok = v.isNil();
                const qint64 n = ok ? 0 : v.bytes().toLongLong(&ok);
                if (ok && n >= 0)
                    reading.counts.append(
                        {i == 0 ? QStringLiteral("processed") : QStringLiteral("failed"), n});
            }
        }
    }
    reading.stuckIsLowerBound = reading.truncated;
    reading.layoutKnown = reading.layoutVersion.isEmpty()
                          || reading.layoutVersion.startsWith(QLatin1String("sidekiq:6."))
                          || reading.layoutVersion.startsWith(QLatin1String("sidekiq:7."))
                          || reading.layoutVersion.startsWith(QLatin1String("sidekiq:8."));
    if (queueCount == 0 && r.at(6).toInteger() == 0 && reading.inFlight == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No Sidekiq keys at \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    if (!reading.layoutKnown)
        reading.message = QStringLiteral("Layout %1 is not one Gatehouse knows (Sidekiq 6-8): "
                                         "shown read-only.")
                              .arg(reading.layoutVersion);
    else if (unread > 0 || queueCount > queues.size() + unread)
        reading.message = QStringLiteral("%1 queues listed; %2 were read (the others from the next "
                                         "reading on).")
                              .arg(queueCount)
                              .arg(queues.size());
    return reading;
}

bool SidekiqUnit::merge(PatternObject &current, const PatternObject &found) const
{
    bool changed = false;
    for (const QByteArray &m : found.members) {
        if (!current.members.contains(m) && current.members.size() < 4 * current.params.pageSize) {
            current.members << m;
            changed = true;
        }
    }
    return changed;
}

std::optional<PatternObject> SidekiqUnit::afterRead(const PatternObject &probed,
                                                    const PatternObject &current,
                                                    const QList<RedisValue> &r) const
{
    // Queues and processes that "queues" and "processes" list and the object
    // does not read yet: read from the next tick on. A process gone for good
    // (no heartbeat hash, no work, pruned from "processes") is forgotten, so
    // restarts (a new identity each) never fill the object.
    const QByteArray ns = nsOf(probed);
    const QList<QByteArray> queues = queueMembers(probed, ns);
    const QList<QByteArray> processes = processMembers(probed, ns);
    if (r.size() < FixedReplies + QueueReplies * queues.size() + ProcessReplies * processes.size()
        || r.at(1).isError() || r.at(5).isError())
        return std::nullopt;
    QSet<QByteArray> listed;
    for (const RedisValue &v : r.at(5).elements())
        listed.insert(ns + v.bytes());
    QSet<QByteArray> forgotten;
    qsizetype at = FixedReplies + QueueReplies * queues.size();
    for (const QByteArray &p : processes) {
        const RedisValue &fields = r.at(at), &v6 = r.at(at + 1), &v7 = r.at(at + 2);
        at += ProcessReplies;
        const bool hashGone = !fields.isError() && fields.size() == 5 && fields.at(0).isNil()
                              && fields.at(2).isNil();
        const auto empty = [](const RedisValue &w) {
            return !w.isError() && w.size() == 2 && w.at(1).size() == 0;
        };
        if (hashGone && empty(v6) && empty(v7) && !listed.contains(p))
            forgotten.insert(p);
    }
    PatternObject next = current;
    next.members.removeIf([&](const QByteArray &m) { return forgotten.contains(m); });
    bool changed = next.members.size() != current.members.size();
    PatternObject found;
    for (const RedisValue &v : r.at(1).elements())
        found.members << ns + "queue:" + v.bytes();
    for (const RedisValue &v : r.at(5).elements())
        found.members << ns + v.bytes();
    changed = merge(next, found) || changed;
    if (!changed)
        return std::nullopt;
    return next;
}

QList<Figure> SidekiqUnit::figures() const
{
    auto count = [](const char *state) {
        return libraryqueue::countFigure(QString::fromLatin1(state));
    };
    auto lifetime = [](const char *counter) {
        return [name = QString::fromLatin1(counter)](const Reading &r, qint64) {
            return double(r.countOf(name) % (qint64(1) << 24));
        };
    };
    return {
        {QStringLiteral("enqueued"), QStringLiteral("Enqueued"), false, count("enqueued")},
        {QStringLiteral("inFlight"), QStringLiteral("Busy"), false, count("busy")},
        {QStringLiteral("retry"), QStringLiteral("Retries"), false, count("retry")},
        {QStringLiteral("dead"), QStringLiteral("Dead"), false, count("dead")},
        {QStringLiteral("stuck"), QStringLiteral("Stuck"), false,
         [](const Reading &r, qint64) {
             return double(r.stuck);
         }},
        {QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("Oldest in flight"), true,
         [](const Reading &r, qint64 at) {
             return double(r.ageAt(r.oldestInFlightAgeMs, at));
         }},
        // The lifetime counters for the throughput chart (their rise per
        // minute), modulo 2^24 so a float sample holds them exactly: a
        // counter in the billions would otherwise rise in steps of hundreds.
        // A wrap reads as a fall, which the chart counts as none once.
        {QStringLiteral("processed"), QStringLiteral("Processed"), false, lifetime("processed")},
        {QStringLiteral("failed"), QStringLiteral("Failed"), false, lifetime("failed")},
    };
}

QList<Chart> SidekiqUnit::charts() const
{
    return {{QStringLiteral("Jobs by state"),
             QStringLiteral("jobs"),
             {{QStringLiteral("enqueued"), QStringLiteral("enqueued")},
              {QStringLiteral("inFlight"), QStringLiteral("busy")},
              {QStringLiteral("retry"), QStringLiteral("retry")},
              {QStringLiteral("stuck"), QStringLiteral("stuck")}}},
            {QStringLiteral("Oldest in flight"),
             QStringLiteral("s"),
             {{QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("oldest (s)"), 0.001}}},
            libraryqueue::throughputChart(QStringLiteral("processed"), QStringLiteral("failed"))};
}

QList<Column> SidekiqUnit::columns() const
{
    return libraryqueue::columns(QStringLiteral("sidekiq"), {true, true, QString()});
}

void SidekiqUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                            QJsonObject &j) const
{
    libraryqueue::writeJson(r, keysToJson(s.object.keys()), j);
    const Reading &read = s.reading;
    QJsonArray queues, processes;
    for (const LibraryPart &p : read.parts) {
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
        for (const InFlightItem &item : read.items) {
            if (item.holder != p.name)
                continue;
            work.append(
                QJsonObject{{QStringLiteral("job"), keyToJson(item.job)},
                            {QStringLiteral("class"), keyToJson(item.name)},
                            {QStringLiteral("queue"), keyToJson(item.queue)},
                            {QStringLiteral("ageMs"), double(read.ageAt(item.ageMs, nowMs))}});
        }
        processes.append(QJsonObject{
            {QStringLiteral("identity"), keyToJson(p.name)},
            {QStringLiteral("busy"), double(p.count)},
            {QStringLiteral("concurrency"), p.limit < 0 ? QJsonValue() : double(p.limit)},
            {QStringLiteral("beatAgeMs"), p.ageMs < 0 ? QJsonValue() : age},
            {QStringLiteral("alive"), p.alive},
            {QStringLiteral("quiet"), p.quiet},
            {QStringLiteral("work"), work}});
    }
    j.insert(QStringLiteral("queues"), queues);
    j.insert(QStringLiteral("processes"), processes);
}

QStringList SidekiqUnit::itemHeaders() const
{
    return {QStringLiteral("Job (jid)"), QStringLiteral("Class"), QStringLiteral("Queue"),
            QStringLiteral("Running for"), QStringLiteral("Process")};
}

QList<QStringList> SidekiqUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.items) {
        rows.append({printableBytes(item.job, 120), printableBytes(item.name, 80),
                     printableBytes(item.queue, 80), formatMs(s.reading.ageAt(item.ageMs, nowMs)),
                     printableBytes(item.holder, 120)
                         + (item.locked ? QString() : QStringLiteral(" (dead: stuck)"))});
    }
    return rows;
}

QHash<QString, QByteArray> SidekiqUnit::itemInputs(const ObjectState &s, int i) const
{
    return libraryqueue::itemJob(s, i);
}

std::optional<Attention> SidekiqUnit::attention(const ObjectState &state, qint64) const
{
    return libraryqueue::stuckAttention(state, QStringLiteral("stuck"));
}

QString SidekiqUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    return QStringLiteral("Sidekiq %1: %2 jobs in flight on dead processes, oldest running %3")
        .arg(printableBytes(state.object.key))
        .arg(r.stuck)
        .arg(formatMs(r.ageAt(r.oldestInFlightAgeMs, nowMs)));
}

namespace {

// sidekiq_recover with no jid (KEYS[2] processes SET, ARGV[1] namespace,
// ARGV[3] dead after, ARGV[4] batch): the jobs in flight on dead processes,
// counted by sidekiq_count_stranded (read-only, HLEN of the dead processes'
// work hashes: dead by the server's clock, as the recover script judges).
[[maybe_unused]] const bool s_recoverCounted = MatchCounter::add(
    QStringLiteral("sidekiq_recover"),
    {[](const ScriptCall &call, qint64) {
         if (!call.args.value(1).isEmpty())
             return QList<QList<QByteArray>>();
         static const QByteArray source
             = RedisScript::fromResource(QStringLiteral("sidekiq_count_stranded")).source();
         return QList<QList<QByteArray>>{{"EVAL", source, "1", call.keys.value(1),
                                          call.args.value(0), call.args.value(2),
                                          call.args.value(3)}};
     },
     [](const QList<RedisValue> &r) {
         const RedisValue reply = r.value(0); // {stranded, dead, examined}
         return reply.size() >= 1 ? reply.at(0).toInteger() : qint64(0);
     },
     [](const ScriptCall &call) {
         return QStringLiteral("they are requeued %1 per run until none is left")
             .arg(QString::fromLatin1(call.args.value(3)));
     }});

} // namespace

QList<PatternAction> SidekiqUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);
    const QByteArray deadAfter = QByteArray::number(DeadAfterMs);

    libraryqueue::RequeueSpec requeue;
    requeue.jobLabel = QStringLiteral("Job id (jid)");
    requeue.stuckLabel = QStringLiteral("Every stuck job");
    requeue.olderThanRefusal
        = QStringLiteral("A Sidekiq job is stuck when its process is dead, whatever its age: queue "
                         "requeue takes no --older-than for Sidekiq.");
    requeue.build = [batch, cut, deadAfter](const ActionRequest &r) {
        ScriptCall call;
        call.action = QStringLiteral("queue.requeue");
        call.script = QStringLiteral("sidekiq_recover");
        call.keys = {keyOf(r.object, Queues), keyOf(r.object, Processes)};
        call.keyRoles = {QStringLiteral("queues set"), QStringLiteral("processes set")};
        const QByteArray job = r.input(QStringLiteral("job"));
        call.args = {nsOf(r.object), job, deadAfter, batch, cut};
        if (!job.isEmpty()) {
            call.summary = QStringLiteral("Push Sidekiq job %1, in flight on a dead process of "
                                          "\"%2\", back to its queue and remove it from the "
                                          "process's work, as Sidekiq requeues in-progress work "
                                          "at shutdown.")
                               .arg(printableBytes(job, 80), printableBytes(r.object.key));
            call.meaning = [job](const RedisValue &v) {
                return oneJob(v.toInteger(), job, QStringLiteral("was pushed back to its queue"),
                              QStringLiteral("in flight on a dead process"));
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Push every job in flight on a dead Sidekiq process of "
                                          "\"%1\" (heartbeat gone or older than %2) back to its "
                                          "queue, up to %3 per run, as Sidekiq requeues "
                                          "in-progress work at shutdown.")
                               .arg(printableBytes(r.object.key), formatMs(DeadAfterMs))
                               .arg(Batch);
            call.batch = Batch;
            call.batchSummary = QStringLiteral("Requeued %1 stuck jobs.");
            call.meaning = libraryqueue::batchMeaning(QStringLiteral("Requeued %1 stuck jobs."));
        }
        return call;
    };

    // Sidekiq Web's buttons on a job of the retry, scheduled and dead pages.
    struct SetOp
    {
        const char *id, *verb, *label, *objectName, *usage, *defaultFrom;
        QList<QByteArray> allowed;
    };
    const QList<SetOp> ops{
        {"queue.retry",
         "retry",
         "Retry now…",
         "retryButton",
         "queue retry QUEUE --job [SCORE-]JID [--from retry|schedule|dead]",
         "retry",
         {"retry", "schedule", "dead"}},
        {"queue.delete",
         "delete",
         "Delete…",
         "deleteButton",
         "queue delete QUEUE --job [SCORE-]JID [--from retry|schedule|dead]",
         "retry",
         {"retry", "schedule", "dead"}},
        {"queue.kill",
         "kill",
         "Kill…",
         "killButton",
         "queue kill QUEUE --job [SCORE-]JID [--from retry|schedule]",
         "retry",
         {"retry", "schedule"}},
    };
    QList<PatternAction> setActions;
    for (const SetOp &op : ops) {
        PatternAction a;
        a.id = QString::fromLatin1(op.id);
        a.verb = QString::fromLatin1(op.verb);
        a.label = QString::fromUtf8(op.label);
        a.objectName = QString::fromLatin1(op.objectName);
        a.usage = QString::fromLatin1(op.usage);
        a.inputs = {libraryqueue::jobInput(true, QStringLiteral("Job id (jid)")),
                    libraryqueue::optionalInput(QStringLiteral("from"),
                                                QStringLiteral("From (retry, schedule or dead)"))};
        const QString verb = a.verb;
        const QByteArray defaultFrom = op.defaultFrom;
        const QList<QByteArray> allowed = op.allowed;
        a.check = [verb, allowed](const ActionRequest &r) -> QString {
            if (r.input(QStringLiteral("job")).isEmpty())
                return QStringLiteral("queue %1 needs --job JID.").arg(verb);
            const QByteArray from = r.input(QStringLiteral("from"));
            if (!from.isEmpty() && !allowed.contains(from))
                return QStringLiteral("queue %1 takes --from %2.")
                    .arg(verb, QString::fromLatin1(allowed.join('|')));
            return {};
        };
        a.build = [verb, defaultFrom, batch](const ActionRequest &r) {
            QByteArray from = r.input(QStringLiteral("from"));
            if (from.isEmpty())
                from = defaultFrom;
            const Shared set = from == "schedule" ? Schedule : from == "dead" ? Dead : Retry;
            ScriptCall call;
            call.action = QStringLiteral("queue.") + verb;
            call.script = QStringLiteral("sidekiq_move");
            call.keys = {keyOf(r.object, set), keyOf(r.object, Queues), keyOf(r.object, Dead)};
            call.keyRoles = {QStringLiteral("%1 zset").arg(QString::fromLatin1(from)),
                             QStringLiteral("queues set"), QStringLiteral("dead zset")};
            // Sidekiq Web: "retry" on the retry and dead pages (retry_count
            // given back), "add to queue" on the scheduled page.
            QByteArray op = verb.toUtf8();
            if (verb == QLatin1String("retry") && set == Schedule)
                op = "enqueue";
            // Plain variables, not a structured binding: clang 14 cannot capture those.
            const std::pair<QByteArray, QByteArray> named
                = scoreAndJid(r.input(QStringLiteral("job")));
            const QByteArray job = named.second;
            call.args = {op, job, named.first, batch, nsOf(r.object)};
            const QString jobName = printableBytes(job, 80);
            const QString where = QStringLiteral("in %1").arg(QString::fromLatin1(from));
            QString did;
            if (op == "delete") {
                call.summary = QStringLiteral("Delete Sidekiq job %1 from the %2 set of \"%3\", "
                                              "as Sidekiq Web's Delete does.");
                did = QStringLiteral("was deleted");
            } else if (op == "kill") {
                call.summary = QStringLiteral("Move Sidekiq job %1 from the %2 set of \"%3\" to "
                                              "the dead set, as Sidekiq Web's Kill does.");
                did = QStringLiteral("was moved to the dead set");
            } else {
                call.summary = QStringLiteral("Push Sidekiq job %1 from the %2 set of \"%3\" to "
                                              "its queue now, as Sidekiq Web's Retry Now (Add to "
                                              "Queue) does.");
                did = QStringLiteral("was pushed to its queue");
            }
            call.summary = call.summary.arg(jobName, QString::fromLatin1(from),
                                            printableBytes(r.object.key));
            call.meaning = [job, did, where](const RedisValue &v) {
                return oneJob(v.toInteger(), job, did, where);
            };
            return call;
        };
        setActions.append(a);
    }

    return libraryqueue::requeueActions(requeue) + setActions;
}

QStringList SidekiqUnit::jobStates() const
{
    return {QStringLiteral("enqueued"), QStringLiteral("scheduled"), QStringLiteral("retry"),
            QStringLiteral("dead"), QStringLiteral("busy")};
}

JobStage SidekiqUnit::jobStage(const QString &state) const
{
    if (state == QLatin1String("busy"))
        return JobStage::InFlight;
    if (state == QLatin1String("dead"))
        return JobStage::Dead;
    return JobStage::Waiting; // enqueued, scheduled, and retry (failed, to run again)
}

QList<JobVerb> SidekiqUnit::jobVerbs(const QString &state) const
{
    // Sidekiq Web's buttons: Retry Now on the dead page, Kill on the retry
    // and scheduled pages. It has no "delete dead jobs older than", only
    // Delete All, so there is no purge button (its dead set trims itself:
    // dead_max_jobs, dead_timeout_in_seconds).
    if (state == QLatin1String("dead"))
        return {{JobVerb::Role::RequeueFromDead,
                 QStringLiteral("queue.retry"),
                 {{QStringLiteral("from"), QByteArrayLiteral("dead")}}}};
    if (state == QLatin1String("retry") || state == QLatin1String("scheduled"))
        return {{JobVerb::Role::DeadLetter,
                 QStringLiteral("queue.kill"),
                 {{QStringLiteral("from"), state == QLatin1String("retry")
                                               ? QByteArrayLiteral("retry")
                                               : QByteArrayLiteral("schedule")}}}};
    return {};
}

namespace {

// The most queues or processes a job read looks at (a deployment has a few).
constexpr int MaxMembers = 1000;

// A job record as a page row: jid, class (the wrapped one for ActiveJob),
// retry_count, error_message; at is when it entered the state (ms), -1 unknown.
JobRow sidekiqRow(const QByteArray &json, qint64 atMs)
{
    JobRow row;
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    const JobFields f = jobFields(json);
    row.id = f.jid;
    row.name = printableBytes(f.klass, 80);
    row.attempts = f.retryCount < 0 ? 0 : f.retryCount;
    row.atMs = atMs >= 0 ? atMs : f.enqueuedAtMs;
    row.error = printableBytes(
        o.value(QStringLiteral("error_message")).toString().toUtf8().left(512), 200);
    if (o.isEmpty())
        row.error = QStringLiteral("(not a Sidekiq job record)");
    return row;
}

// The members of a SET (a deployment's "queues" or "processes"), sorted, at
// most MaxMembers: its size first, then SMEMBERS only when that is small.
JobRead setMembers(const QByteArray &set, const QString &state, qint64 offset,
                   std::function<JobRead(QList<QByteArray> members)> next)
{
    JobRead read;
    read.commands = {{"SCARD", set}};
    read.next = [set, state, offset, next](const QList<RedisValue> &r) {
        if (r.value(0).isError())
            return JobRead::done(
                libraryqueue::failedListing(state, offset, r.value(0).errorMessage()));
        JobRead members;
        members.commands
            = {r.value(0).toInteger() <= MaxMembers
                   ? QList<QByteArray>{"SMEMBERS", set}
                   : QList<QByteArray>{"SRANDMEMBER", set, QByteArray::number(MaxMembers)}};
        members.next = [next, state, offset](const QList<RedisValue> &m) {
            if (m.value(0).isError())
                return JobRead::done(
                    libraryqueue::failedListing(state, offset, m.value(0).errorMessage()));
            QList<QByteArray> names;
            const RedisValue reply = m.value(0); // outlives the loop
            for (const RedisValue &v : reply.elements())
                names << v.bytes();
            std::sort(names.begin(), names.end());
            return next(names);
        };
        return members;
    };
    return read;
}

// Every process's work (a page of each one's work hash, Sidekiq 6's
// ":workers" and 7-8's ":work"), as entries whose value is the work record
// {queue, payload, run_at}.
JobRead busyWork(const QByteArray &ns, const QByteArray &processesKey, const QString &state,
                 std::function<JobRead(qint64 total, QList<QByteArray> work)> next)
{
    return setMembers(processesKey, state, 0, [ns, next](QList<QByteArray> identities) {
        if (identities.isEmpty())
            return next(0, {});
        JobRead read;
        for (const QByteArray &id : identities) {
            for (bool v6 : {true, false}) {
                read.commands.append({"HLEN", workKey(ns + id, v6)});
                read.commands.append({"HSCAN", workKey(ns + id, v6), "0", "COUNT", "100"});
            }
        }
        read.next = [next](const QList<RedisValue> &r) {
            qint64 total = 0;
            QList<QByteArray> work;
            for (qsizetype i = 0; i + 1 < r.size(); i += 2) {
                if (r.at(i).isError() || r.at(i + 1).size() != 2)
                    continue;
                total = saturatingAdd(total, r.at(i).toInteger());
                const auto &e = r.at(i + 1).at(1).elements();
                for (qsizetype k = 1; k < e.size(); k += 2)
                    work << e.at(k).bytes();
            }
            return next(total, work);
        };
        return read;
    });
}

// A work record's payload (a JSON string in 7-8, an object in 6) and run_at.
std::pair<QByteArray, qint64> workPayload(const QByteArray &work)
{
    const QJsonObject entry = QJsonDocument::fromJson(work).object();
    const QJsonValue payload = entry.value(QStringLiteral("payload"));
    const QByteArray json = payload.isString()
                                ? payload.toString().toUtf8()
                                : QJsonDocument(payload.toObject()).toJson(QJsonDocument::Compact);
    return {json, libraryqueue::epochMs(entry.value(QStringLiteral("run_at")))};
}

} // namespace

JobRead SidekiqUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                             int count) const
{
    if (count <= 0 || offset < 0 || !jobStates().contains(state))
        return {};
    const QByteArray ns = nsOf(o);
    if (state == QLatin1String("enqueued")) {
        // Every queue of the deployment, by name; each list from its left
        // (the newest: Sidekiq LPUSHes and takes from the right).
        return setMembers(keyOf(o, Queues), state, offset,
                          [ns, state, offset, count](QList<QByteArray> names) {
                              QList<QByteArray> lists;
                              for (const QByteArray &name : names)
                                  lists << ns + "queue:" + name;
                              return libraryqueue::pageOfLists(
                                  state, lists, offset, count,
                                  [](JobListing page, QList<libraryqueue::PageEntry> entries) {
                                      for (const libraryqueue::PageEntry &e : entries) {
                                          JobRow row = sidekiqRow(e.value, -1);
                                          row.ref = libraryqueue::entryRef(e, row.id);
                                          page.rows.append(row);
                                      }
                                      return JobRead::done(page);
                                  });
                          });
    }
    if (state == QLatin1String("busy")) {
        return busyWork(ns, keyOf(o, Processes), state,
                        [state, offset, count](qint64 total, QList<QByteArray> work) {
                            JobListing page;
                            page.state = state;
                            page.offset = offset;
                            page.total = total;
                            for (qsizetype i = offset; i < work.size() && i < offset + count; ++i) {
                                const auto payload = workPayload(work.at(i));
                                page.rows.append(sidekiqRow(payload.first, payload.second));
                            }
                            if (total > work.size())
                                page.message = QStringLiteral("%1 jobs busy; the first %2 read.")
                                                   .arg(total)
                                                   .arg(work.size());
                            return JobRead::done(page);
                        });
    }
    // The sorted sets as Sidekiq Web shows them: scheduled and retry the next
    // first, dead the latest first. A job is named "<score>-<jid>", as
    // Sidekiq Web does and retry, delete and kill take it.
    const Shared set = state == QLatin1String("scheduled") ? Schedule
                       : state == QLatin1String("retry")   ? Retry
                                                           : Dead;
    return libraryqueue::pageOfSet(
        state, keyOf(o, set), set == Dead, offset, count,
        [set](JobListing page, QList<libraryqueue::PageEntry> entries) {
            for (const libraryqueue::PageEntry &e : entries) {
                bool ok = false;
                const double score = e.score.toDouble(&ok);
                qint64 at = set == Dead && ok ? libraryqueue::epochMs(score) : -1;
                if (set == Retry)
                    at = libraryqueue::epochMs(QJsonDocument::fromJson(e.value).object().value(
                        QStringLiteral("failed_at")));
                if (set == Schedule)
                    at = libraryqueue::epochMs(QJsonDocument::fromJson(e.value).object().value(
                        QStringLiteral("created_at")));
                JobRow row = sidekiqRow(e.value, at);
                row.ref = e.score + '-' + row.id;
                page.rows.append(row);
            }
            return JobRead::done(page);
        });
}

JobRead SidekiqUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    if (const auto entry = libraryqueue::parseEntryRef(job))
        return libraryqueue::entryDetail(job, *entry, QStringLiteral("Enqueued job."));
    const std::pair<QByteArray, QByteArray> named = scoreAndJid(job);
    const QByteArray jid = named.second;
    const QByteArray needle = "\"jid\":\"" + jid + '"';
    auto gone = [job, jid](const QString &why) {
        JobListing detail;
        detail.job = job;
        detail.ok = false;
        detail.message = why.isEmpty() ? QStringLiteral("Job %1 moved on (it ran, or was "
                                                        "retried, deleted or killed).")
                                             .arg(printableBytes(jid, 80))
                                       : why;
        return JobRead::done(detail);
    };
    if (!named.first.isEmpty()) {
        // A sorted-set job: the entries at its score in retry, schedule, dead.
        JobRead read;
        const QList<Shared> sets{Retry, Schedule, Dead};
        for (Shared s : sets)
            read.commands.append(
                {"ZRANGEBYSCORE", keyOf(o, s), named.first, named.first, "LIMIT", "0", "20"});
        read.next = [job, needle, gone, sets](const QList<RedisValue> &r) {
            for (qsizetype i = 0; i < r.size(); ++i) {
                for (const RedisValue &v : r.at(i).elements()) {
                    if (v.bytes().contains(needle))
                        return JobRead::done(libraryqueue::jsonDetail(
                            job, v.bytes(),
                            QStringLiteral("In the %1 set.")
                                .arg(QString::fromLatin1(SharedNames[sets.at(i)]))));
                }
            }
            return gone({});
        };
        return read;
    }
    // A bare jid: in flight on a process.
    return busyWork(nsOf(o), keyOf(o, Processes), QStringLiteral("busy"),
                    [job, needle, gone](qint64, QList<QByteArray> work) {
                        for (const QByteArray &w : work) {
                            const auto payload = workPayload(w);
                            if (payload.first.contains(needle) || w.contains(needle))
                                return JobRead::done(libraryqueue::jsonDetail(
                                    job, w, QStringLiteral("In flight (its process's work).")));
                        }
                        return gone({});
                    });
}

} // namespace gatehouse
