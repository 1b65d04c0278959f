// SPDX-License-Identifier: MIT
#include "resqueunit.h"
#include "resquelayout.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/libraryqueue.h>

#include <QSet>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(ResqueUnit::Kind, LibraryQueueUnit::judgement());

using namespace ResqueInternal;

namespace {

// The rest of a key after its namespace's "<ns>:" for one of Resque's own
// names, by type; the role it plays, empty when none. distinctive: a part
// only Resque (or node-resque, resque-scheduler) writes.
struct Part
{
    QString role;
    bool distinctive = false;
};

bool isDigits(const QByteArray &s)
{
    return !s.isEmpty()
           && std::all_of(s.cbegin(), s.cend(), [](char c) { return c >= '0' && c <= '9'; });
}

Part partOf(const QByteArray &rest, const QByteArray &type)
{
    if (rest == "queues" && type == "set")
        return {QStringLiteral("queues"), false};
    if (rest.startsWith("queue:") && rest.size() > 6 && type == "list")
        return {QStringLiteral("queue"), false};
    if ((rest == "stat:processed" || rest == "stat:failed" || rest.startsWith("stat:processed:")
         || rest.startsWith("stat:failed:"))
        && type == "string")
        return {QStringLiteral("stat"), false};
    if (rest == "failed" && type == "list")
        return {QStringLiteral("failed"), true};
    if (rest == "workers" && type == "set")
        return {QStringLiteral("workers"), false};
    if (rest == "workers:heartbeat" && type == "hash")
        return {QStringLiteral("heartbeat"), true};
    if (rest.startsWith("worker:") && rest.size() > 7 && type == "string")
        return {QStringLiteral("worker"), true};
    if (rest == "delayed_queue_schedule" && type == "zset")
        return {QStringLiteral("schedule"), true};
    if (rest.startsWith("delayed:") && isDigits(rest.mid(8)) && type == "list")
        return {QStringLiteral("delayed"), true};
    if (rest.startsWith("timestamps:") && type == "set")
        return {QStringLiteral("timestamps"), true};
    if ((rest == "resque_scheduler_leader_lock" || rest == "resque_scheduler_master_lock")
        && type == "string")
        return {QStringLiteral("scheduler"), true};
    // node-resque's Connection checks the server with it (connection.js).
    if (rest == "connection_test_key" && type == "string")
        return {QStringLiteral("connection"), false};
    return {};
}

// The namespaces a key could be under: every prefix ending in ':' before one
// of Resque's names ("resque:queue:mail" -> "resque:").
QList<QByteArray> namespacesOf(const QByteArray &key)
{
    QList<QByteArray> out;
    for (qsizetype i = key.indexOf(':'); i > 0; i = key.indexOf(':', i + 1))
        out << key.left(i + 1);
    return out;
}

} // namespace

std::optional<QByteArray> ResqueUnit::namespaceOf(const QByteArray &key)
{
    if (key.endsWith(":queues") && key.size() > 7)
        return key.chopped(6);
    return std::nullopt;
}

QByteArray ResqueUnit::keyOf(const PatternObject &o, Shared s)
{
    if (s == Queues)
        return o.key;
    const QByteArray k = o.relatedKey(s - 1);
    return k.isEmpty() ? nsOf(o) + SharedNames[s] : k;
}

PatternObject ResqueUnit::objectForKey(const QByteArray &queuesKey)
{
    PatternObject o;
    o.kind = Kind;
    o.key = queuesKey;
    const QByteArray ns = namespaceOf(queuesKey).value_or(QByteArray());
    for (int s = Failed; s < SharedCount; ++s)
        o.related << ns + SharedNames[s];
    return o;
}

namespace {

// The deployment's "<ns>:queues" key for the name the snapshot shows it by
// ("Resque resque": displayName), so a command takes either; any other
// target as it is.
QByteArray queuesKeyOf(const QByteArray &target)
{
    if (target.startsWith("Resque ") && target.size() > 7)
        return target.mid(7) + ":queues";
    return target;
}

} // namespace

QList<PatternUnit::Command> ResqueUnit::identifyProbe(const QByteArray &named) const
{
    const QByteArray target = queuesKeyOf(named);
    const QByteArray ns = namespaceOf(target).value_or(QByteArray("\x01"));
    return {{"TYPE", target},
            {"TYPE", ns + "failed"},
            {"TYPE", ns + "workers:heartbeat"},
            {"TYPE", ns + "delayed_queue_schedule"},
            {"TYPE", ns + "retry"},
            {"TYPE", ns + "processes"}};
}

bool ResqueUnit::identifies(const QByteArray &named, const QList<RedisValue> &r) const
{
    const QByteArray target = queuesKeyOf(named);
    // "<ns>:queues" beside a part only Resque writes, and none of Sidekiq's.
    if (!namespaceOf(target) || r.size() != 6 || r.at(0).bytes() != "set")
        return false;
    const bool resque
        = r.at(1).bytes() == "list" || r.at(2).bytes() == "hash" || r.at(3).bytes() == "zset";
    const bool sidekiq = r.at(4).bytes() == "zset" || r.at(5).bytes() == "set";
    return resque && !sidekiq;
}

bool ResqueUnit::parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const
{
    std::optional<qint64> stuck;
    if (!reader.integer(json, "stuckAfter", &stuck))
        return false;
    if (stuck)
        rule.params.stuckAfterMs = *stuck;
    return true;
}

void ResqueUnit::writeRule(const ProfileRule &rule, QJsonObject &json) const
{
    json.insert(QStringLiteral("stuckAfter"), double(rule.params.stuckAfterMs));
}

std::optional<PatternObject> ResqueUnit::objectFor(const ProfileRule &rule,
                                                   const QByteArray &key) const
{
    // The rule names the "<ns>:queues" SET; its other keys (what SCAN and
    // keyspace events report) are the same deployment's.
    QByteArray queuesKey = key;
    if (!namespaceOf(key)) {
        queuesKey.clear();
        for (const QByteArray &ns : namespacesOf(key)) {
            if (globMatch(rule.match, ns + "queues")) {
                queuesKey = ns + "queues";
                break;
            }
        }
        if (queuesKey.isEmpty())
            return std::nullopt;
    }
    if (!globMatch(rule.match, queuesKey) || rule.excludes(queuesKey))
        return std::nullopt;
    PatternObject o = objectForKey(queuesKey);
    o.params = rule.params;
    return o;
}

PatternObject ResqueUnit::conventionalObject(const QByteArray &named) const
{
    const QByteArray key = queuesKeyOf(named);
    return objectForKey(namespaceOf(key) ? key : QByteArray("resque:queues"));
}

std::optional<KeyClaim> ResqueUnit::claimKey(const KeyShape &shape, qint64) const
{
    // Only Resque's own names under a namespace, weakly: groupClaims makes
    // a deployment only of a namespace with a part no other library writes.
    for (const QByteArray &ns : namespacesOf(shape.key)) {
        const Part p = partOf(shape.key.mid(ns.size()), shape.type);
        if (!p.role.isEmpty())
            return KeyClaim{p.role, p.role == QLatin1String("queues") ? 20 : 10};
    }
    return std::nullopt;
}

QList<PatternObject> ResqueUnit::groupClaims(ClaimPool &pool) const
{
    const QList<QByteArray> mine = pool.claimed(Kind, 1000);
    QList<QByteArray> namespaces;
    for (const QByteArray &key : mine) {
        if (pool.roleOf(key, Kind) == QLatin1String("queues"))
            namespaces << *namespaceOf(key);
    }
    // Longest first: "app:resque:" takes its keys before "app:" could.
    std::sort(namespaces.begin(), namespaces.end(),
              [](const QByteArray &a, const QByteArray &b) { return a.size() > b.size(); });
    QList<PatternObject> out;
    for (const QByteArray &ns : namespaces) {
        QList<QByteArray> keys, queues;
        bool distinctive = false;
        for (const QByteArray &key : pool.claimed(Kind, 1000)) {
            if (!key.startsWith(ns))
                continue;
            const ClaimPool::Entry *e = pool.find(key);
            if (!e)
                continue;
            const Part p = partOf(key.mid(ns.size()), e->shape.type);
            if (p.role.isEmpty())
                continue;
            distinctive = distinctive || p.distinctive;
            keys << key;
            if (p.role == QLatin1String("queue"))
                queues << key;
        }
        if (!distinctive)
            continue;
        PatternObject o = objectForKey(ns + "queues");
        o.source = QStringLiteral("autodetected");
        for (const QByteArray &k : std::as_const(keys))
            pool.take(k);
        o.members = queues;
        out.append(o);
    }
    return out;
}

QList<PatternUnit::Command> ResqueUnit::probe(const PatternObject &o, const ProbeContext &) const
{
    const QByteArray ns = nsOf(o);
    const QByteArray page = QByteArray::number(std::max(1, o.params.pageSize));
    QList<Command> cmds{
        {"SCARD", keyOf(o, Queues)},
        {"SRANDMEMBER", keyOf(o, Queues), page},
        {"LLEN", keyOf(o, Failed)},
        {"SCARD", keyOf(o, Workers)},
        // A page of workers with what each works on and since when (SORT of
        // a SET BY nosort reads only the page; worker:<id> is its id's key).
        {"SORT_RO", keyOf(o, Workers), "BY", "nosort", "LIMIT", "0", page, "GET", "#", "GET",
         ns + "worker:*", "GET", ns + "worker:*:started"},
        {"HSCAN", keyOf(o, Heartbeat), "0", "COUNT", page},
        {"ZCARD", keyOf(o, Schedule)},
        {"ZRANGE", keyOf(o, Schedule), "0", "0", "WITHSCORES"},
        {"MGET", keyOf(o, Processed), keyOf(o, FailedStat)},
        {"EXISTS", keyOf(o, Failed), keyOf(o, Workers), keyOf(o, Schedule), keyOf(o, Heartbeat)},
    };
    // The next job of each queue: Resque pushes right and reserves left;
    // and whether "queues" lists it (push SADDs it before the RPUSH): a
    // list of that name it does not list is not a Resque queue.
    for (const QByteArray &q : queueMembers(o)) {
        cmds.append({"LLEN", q});
        cmds.append({"LINDEX", q, "0"});
        cmds.append({"SISMEMBER", keyOf(o, Queues), q.mid(ns.size() + 6)});
    }
    return cmds;
}

bool ResqueUnit::merge(PatternObject &current, const PatternObject &found) const
{
    return libraryqueue::mergeMembers(current, found);
}

std::optional<PatternObject> ResqueUnit::afterRead(const PatternObject &probed,
                                                   const PatternObject &current,
                                                   const QList<RedisValue> &r) const
{
    // Queues "queues" lists that the object does not read yet: read from
    // the next tick on.
    if (r.size() < 2 || r.at(1).isError())
        return std::nullopt;
    PatternObject found;
    const QByteArray ns = nsOf(probed);
    for (const RedisValue &v : r.at(1).elements())
        found.members << ns + "queue:" + v.bytes();
    PatternObject next = current;
    bool changed = merge(next, found);
    // Lists "queues" does not list leave (another library's list of a
    // resembling name; a queue Resque.remove_queue is removing).
    const QList<QByteArray> probedQueues = queueMembers(probed);
    for (qsizetype i = 0; i < probedQueues.size(); ++i) {
        const qsizetype at = FixedReplies + QueueReplies * i + 2;
        if (at < r.size() && r.at(at).isInteger() && r.at(at).toInteger() == 0)
            changed = next.members.removeAll(probedQueues.at(i)) > 0 || changed;
    }
    return changed ? std::optional<PatternObject>(next) : std::nullopt;
}

} // namespace gatehouse
