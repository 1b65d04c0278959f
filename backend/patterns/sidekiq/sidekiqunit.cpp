// SPDX-License-Identifier: MIT
#include "sidekiqunit.h"
#include "sidekiqlayout.h"

#include <patterns/alertfigure.h>
#include <patterns/countdownfigures.h>
#include <patterns/globmatch.h>
#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/objecthealth.h>
#include <patterns/presentation.h>

#include <algorithm>

namespace gatehouse {

using namespace SidekiqInternal;

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

namespace {

// The deployment's "queues" key for the name the snapshot shows it by
// ("Sidekiq", "Sidekiq myapp": displayName), so a command takes either;
// any other target as it is.
QByteArray queuesKeyOf(const QByteArray &target)
{
    if (target == "Sidekiq")
        return "queues";
    if (target.startsWith("Sidekiq ") && target.size() > 8)
        return target.mid(8) + ":queues";
    return target;
}

} // namespace

QList<PatternUnit::Command> SidekiqUnit::identifyProbe(const QByteArray &named) const
{
    const QByteArray target = queuesKeyOf(named);
    const QByteArray ns = namespaceOf(target).value_or(QByteArray("\x01"));
    return {{"TYPE", target},
            {"TYPE", ns + "processes"},
            {"TYPE", ns + "retry"},
            {"TYPE", ns + "failed"},
            {"TYPE", ns + "workers"}};
}

bool SidekiqUnit::identifies(const QByteArray &named, const QList<RedisValue> &r) const
{
    const QByteArray target = queuesKeyOf(named);
    // "queues" is a plain name: a SET of that name is Sidekiq's when its
    // processes or retry set sits beside it (or nothing else says otherwise:
    // a "failed" LIST or "workers" SET beside it is Resque's, never Sidekiq 6-8's).
    if (!namespaceOf(target) || r.size() != 5 || r.at(0).bytes() != "set"
        || r.at(3).bytes() == "list" || r.at(4).bytes() == "set")
        return false;
    return r.at(1).bytes() == "set" || r.at(2).bytes() == "zset" || r.at(1).bytes() == "none";
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
    return objectForKey(queuesKeyOf(key));
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
        // Sidekiq::Stats#workers_size sums "busy" of every member of
        // "processes" whose hash exists; a dead process's work is lost when
        // its hash expires (EXPIRE 60 at each beat): both countdowns.
        cmds.append({"SISMEMBER", keyOf(o, Processes), p.mid(ns.size())});
        cmds.append({"PTTL", p});
        cmds.append({"PTTL", workKey(p, true)});
        cmds.append({"PTTL", workKey(p, false)});
    }
    cmds.append({"MGET", ns + "stat:processed", ns + "stat:failed"});
    return cmds;
}

QList<PatternUnit::Command> SidekiqUnit::followUp(const PatternObject &o,
                                                  const QList<RedisValue> &r,
                                                  const ProbeContext &) const
{
    QList<Command> out;
    const QByteArray ns = nsOf(o);
    const QList<QByteArray> queues = queueMembers(o, ns);
    const QList<QByteArray> processes = processMembers(o, ns);
    // Only after a whole probe: its replies are what the follow-up reads.
    if (r.size() != probeReplies(queues, processes))
        return out;
    for (const QByteArray &name : notMembers(r.at(1), ns + "queue:", queues)) {
        out.append({"LLEN", ns + "queue:" + name});
        out.append({"LINDEX", ns + "queue:" + name, "-1"});
    }
    // And the processes "processes" lists that it does not know yet (started
    // since the scan): their last beat, whether any is alive.
    for (const QByteArray &identity : notMembers(r.at(5), ns, processes))
        out.append({"HGET", ns + identity, "beat"});
    return out;
}

bool SidekiqUnit::merge(PatternObject &current, const PatternObject &found) const
{
    return libraryqueue::mergeMembers(current, found);
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
    auto lifetime = [](const char *counter) {
        return [name = QString::fromLatin1(counter)](const Reading &r, qint64) {
            return double(r.library().countOf(name) % (qint64(1) << 24));
        };
    };
    return QList<Figure>{
               countFigure(QStringLiteral("enqueued"), QStringLiteral("Enqueued"),
                           QStringLiteral("enqueued")),
               countFigure(QStringLiteral("inFlight"), QStringLiteral("Busy"),
                           QStringLiteral("busy")),
               countFigure(QStringLiteral("retry"), QStringLiteral("Retries"),
                           QStringLiteral("retry")),
               countFigure(QStringLiteral("dead"), QStringLiteral("Dead"), QStringLiteral("dead")),
               stuckFigure(QStringLiteral("Stuck")),
               oldestFigure(QStringLiteral("Oldest in flight")),
               // The lifetime counters for the throughput chart (their rise per
               // minute), modulo 2^24 so a float sample holds them exactly: a
               // counter in the billions would otherwise rise in steps of hundreds.
               // A wrap reads as a fall, which the chart counts as none once.
               {QStringLiteral("processed"), QStringLiteral("Processed"), false,
                lifetime("processed")},
               {QStringLiteral("failed"), QStringLiteral("Failed"), false, lifetime("failed")},
           }
           + libraryqueue::latencyFigures(false);
}

namespace {

// The library-queue kit's judgement, and stuck work of a dead process
// counts down in its row's Status cell (red, as every stuck state):
// Sidekiq's basic fetch loses it for good when the process's work hash
// expires.
[[maybe_unused]] const bool s_judged = registerJudgement(
    SidekiqUnit::Kind, {[](const ObjectState &s, qint64 nowMs) {
                            ObjectHealth h = LibraryQueueUnit::health(s, nowMs);
                            if (h.id != states::Stuck)
                                return h;
                            if (const qint64 lost = SidekiqUnit::soonestLossMs(s.reading, nowMs);
                                lost >= 0)
                                h.words += QStringLiteral(" · lost in %1").arg(formatMs(lost));
                            return h;
                        },
                        &LibraryQueueUnit::healthStates,
                        {},
                        {}});

} // namespace

SidekiqUnit::SidekiqUnit()
{
    CountdownFigures::add(Kind, QStringLiteral("workLostInMs"));
}

QList<AlertFigure> SidekiqUnit::alertFigures() const
{
    // Nothing at risk reads as "never" (a rule "< 61s" resolves once the work
    // is requeued), not as unknown (which would hold a firing alert).
    return PatternUnit::alertFigures() << AlertFigure{
               QStringLiteral("workLostInMs"), QStringLiteral("Dead process's work lost in"),
               AlertFigure::Unit::Duration,
               [](const ObjectState &s, qint64 nowMs) -> std::optional<double> {
                   const qint64 left = soonestLossMs(s.reading, nowMs);
                   return left >= 0 ? double(left) : double(Reading::Forever);
               }};
}

QList<BuiltInAlert> SidekiqUnit::builtInAlerts() const
{
    // A process's work hash expires 60 s after its last beat: below 61 s
    // means a process holding work has died, and its work is lost for good
    // when the hash expires.
    BuiltInAlert workLost;
    workLost.name = QStringLiteral("sidekiq-work-lost");
    workLost.figure = QStringLiteral("workLostInMs");
    workLost.below = true;
    workLost.threshold = 61000;
    workLost.critical = true;
    return {workLost};
}

QList<Chart> SidekiqUnit::charts() const
{
    return QList<Chart>{{QStringLiteral("Jobs by state"),
                         QStringLiteral("jobs"),
                         {{QStringLiteral("enqueued"), QStringLiteral("enqueued")},
                          {QStringLiteral("inFlight"), QStringLiteral("busy")},
                          {QStringLiteral("retry"), QStringLiteral("retry")},
                          {QStringLiteral("stuck"), QStringLiteral("stuck")}}},
                        oldestChart(QStringLiteral("Oldest in flight"))}
           + libraryqueue::latencyCharts(false)
           + QList<Chart>{libraryqueue::throughputChart(QStringLiteral("processed"),
                                                        QStringLiteral("failed"))};
}

LibraryQueueUnit::StuckRule SidekiqUnit::stuckRule() const
{
    return {QStringLiteral("stuck"), QStringLiteral("jobs in flight on dead processes"),
            QStringLiteral("oldest running")};
}

} // namespace gatehouse
