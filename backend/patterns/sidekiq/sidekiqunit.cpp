// SPDX-License-Identifier: MIT
#include "sidekiqunit.h"

#include <patterns/globmatch.h>
#include <patterns/sections.h>

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

ActionInput jobInput(bool required)
{
    ActionInput job{QStringLiteral("job"), QStringLiteral("Job id (jid)"),
                    ActionInput::Source::Item};
    job.required = required;
    return job;
}

ActionInput optional(const QString &id, const QString &label)
{
    ActionInput in{id, label};
    in.required = false;
    return in;
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

ActionInput flag(const QString &id, const QString &label)
{
    ActionInput f{id, label, ActionInput::Source::Flag};
    f.required = false;
    return f;
}

ReplyMeaning oneJob(qint64 reply, const QByteArray &jid, const QString &did, const QString &where)
{
    const QString name = printableBytes(jid, 80);
    switch (reply) {
    case 1:
        return {true, QStringLiteral("Job %1 %2.").arg(name, did)};
    case 0:
        return {false,
                QStringLiteral("No job %1 %2 (it moved on); nothing changed.").arg(name, where)};
    case -1:
        return {false, QStringLiteral("Job %1 is in flight on a live Sidekiq process; nothing "
                                      "changed.")
                           .arg(name)};
    case -2:
        return {false, QStringLiteral("Job %1's record is not a Sidekiq job Gatehouse can move; "
                                      "nothing changed.")
                           .arg(name)};
    default:
        return {
            false,
            QStringLiteral("Unexpected reply %1; nothing is known to have changed.").arg(reply)};
    }
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
    if (r.size()
        < FixedReplies + QueueReplies * queues.size() + ProcessReplies * processes.size()) {
        if (auto f = failure(o, r, replyKeys, c.nowMs))
            return *f;
        Reading bad;
        bad.atMs = c.nowMs;
        bad.status = Reading::Status::Error;
        bad.message
            = QStringLiteral("Too few replies reading Sidekiq \"%1\".").arg(printableBytes(o.key));
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
        const QString s = QString::fromLatin1(state);
        return [s](const Reading &r, qint64) {
            return double(r.countOf(s));
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
             {{QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("oldest (s)"), 0.001}}}};
}

QList<Column> SidekiqUnit::columns() const
{
    Column stuck = Column::count(QStringLiteral("Stuck"), &Reading::stuck);
    stuck.text = [](const ObjectState &s, qint64) -> QString {
        return QString::number(s.reading.stuck)
               + (s.reading.stuckIsLowerBound ? QStringLiteral("+") : QString());
    };
    return {Column::key(QStringLiteral("Queue")),
            Column::library(QStringLiteral("sidekiq")),
            Column::count(QStringLiteral("Length"), &Reading::length),
            Column::count(QStringLiteral("In flight"), &Reading::inFlight),
            Column::age(QStringLiteral("Oldest in flight"), &Reading::oldestInFlightAgeMs),
            stuck,
            Column::count(QStringLiteral("Dead"), &Reading::deadLength),
            Column::counts(),
            Column::status()};
}

void SidekiqUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                            QJsonObject &j) const
{
    j.insert(QStringLiteral("keys"), keysToJson(s.object.keys()));
    j.insert(QStringLiteral("length"), double(r.length));
    j.insert(QStringLiteral("inFlight"), double(r.inFlight));
    j.insert(QStringLiteral("deadLength"), double(r.deadLength));
    j.insert(QStringLiteral("stuckCount"), double(r.stuck));
    j.insert(QStringLiteral("stuckIsLowerBound"), r.stuckIsLowerBound);
    j.insert(QStringLiteral("oldestInFlightAgeMs"), double(r.oldestInFlightAgeMs));
    j.insert(QStringLiteral("truncated"), r.truncated);
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
    if (i < 0 || i >= s.reading.items.size())
        return {};
    return {{QStringLiteral("job"), s.reading.items.at(i).job}};
}

std::optional<Attention> SidekiqUnit::attention(const ObjectState &state, qint64) const
{
    if (state.gone || state.reading.stuck <= 0)
        return std::nullopt;
    return Attention{2.0 + double(state.reading.stuck), QStringLiteral("stuck")};
}

QString SidekiqUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    return QStringLiteral("Sidekiq %1: %2 jobs in flight on dead processes, oldest running %3")
        .arg(printableBytes(state.object.key))
        .arg(r.stuck)
        .arg(formatMs(r.ageAt(r.oldestInFlightAgeMs, nowMs)));
}

QList<PatternAction> SidekiqUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);
    const QByteArray deadAfter = QByteArray::number(DeadAfterMs);

    PatternAction requeue;
    requeue.id = QStringLiteral("queue.requeue");
    requeue.verb = QStringLiteral("requeue");
    requeue.label = QStringLiteral("Requeue…");
    requeue.objectName = QStringLiteral("requeueButton");
    requeue.usage = QStringLiteral("queue requeue QUEUE (--job ID | --stuck)");
    ActionInput olderThan{QStringLiteral("older-than"), QStringLiteral("(reliable queues only)")};
    olderThan.required = false;
    olderThan.integer = true;
    olderThan.console = false;
    requeue.inputs = {jobInput(false),
                      flag(QStringLiteral("stuck"), QStringLiteral("Every stuck job")), olderThan};
    requeue.check = [](const ActionRequest &r) -> QString {
        if (r.has(QStringLiteral("older-than")))
            return QStringLiteral("A Sidekiq job is stuck when its process is dead, whatever its "
                                  "age: queue requeue takes no --older-than for Sidekiq.");
        if (r.input(QStringLiteral("job")).isEmpty() == !r.has(QStringLiteral("stuck")))
            return QStringLiteral("queue requeue needs either --job ID or --stuck.");
        return {};
    };
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
            call.meaning = [](const RedisValue &reply) {
                const qint64 n = reply.size() >= 2 ? reply.at(1).toInteger() : 0;
                return ReplyMeaning{n > 0, n > 0 ? QStringLiteral("Requeued %1 stuck jobs.").arg(n)
                                                 : QStringLiteral("Nothing to do; nothing "
                                                                  "changed.")};
            };
        }
        return call;
    };

    PatternAction stuckAll = requeue;
    stuckAll.id = QStringLiteral("queue.requeue-stuck");
    stuckAll.verb.clear();
    stuckAll.usage.clear();
    stuckAll.label = QStringLiteral("Requeue all stuck…");
    stuckAll.objectName = QStringLiteral("requeueStuckButton");
    stuckAll.consoleOnly = true;
    stuckAll.inputs = {};
    stuckAll.check = {};
    stuckAll.build = [build = requeue.build](const ActionRequest &r) {
        ActionRequest all = r;
        all.inputs = {{QStringLiteral("stuck"), QByteArray()}};
        return build(all);
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
        a.inputs = {jobInput(true), optional(QStringLiteral("from"),
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

    return QList<PatternAction>{requeue, stuckAll} + setActions;
}

} // namespace gatehouse
