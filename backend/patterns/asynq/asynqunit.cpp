// SPDX-License-Identifier: MIT
#include "asynqunit.h"

#include "asynqlayout.h"
#include <patterns/timemath.h>

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/libraryqueue/libraryqueue.h>

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QSet>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(AsynqUnit::Kind, LibraryQueueUnit::judgement());

using namespace AsynqInternal;

namespace {

// Where the probe's replies hold the lease's page, and how many it has: the
// follow-up's replies come after them.
constexpr qsizetype LeasePage = 14;
constexpr qsizetype ProbedReplies = 20;

// asynq's keys that belong to no one queue (internal/base/base.go): each
// server's info and workers, the schedulers' entries and history.
constexpr const char *GlobalPrefixes[]
    = {"asynq:servers:{", "asynq:workers:{", "asynq:schedulers", "asynq:scheduler_history:"};

const char *StuckReason = "lease expired 30 s ago or more: its worker stopped extending the lease "
                          "(it crashed or lost Redis); asynq's recoverer would retry or archive "
                          "it";

// The suffix after "asynq:{<name>}:"; empty when key is not a queue's.
QByteArray suffixOf(const QByteArray &key)
{
    if (!key.startsWith(Root))
        return {};
    const qsizetype close = key.indexOf("}:", Root.size());
    return close <= Root.size() ? QByteArray() : key.mid(close + 2);
}

// The State of a per-queue key by its suffix, or -1.
int perQueueState(const QByteArray &suffix)
{
    for (int s = 0; s < PerQueue; ++s) {
        if (suffix == Names[s])
            return s;
    }
    return -1;
}

// The type a per-queue key of that suffix has; empty when none of asynq's.
QByteArray typeOfSuffix(const QByteArray &suffix)
{
    if (const int s = perQueueState(suffix); s >= 0)
        return Types[s];
    for (const Family &f : Families) {
        if (suffix.startsWith(f.prefix) && suffix.size() >= qsizetype(qstrlen(f.prefix)))
            return f.type;
    }
    return {};
}

bool isShared(const QByteArray &key)
{
    for (int s = AsynqUnit::Queues; s < AsynqUnit::KeyCount; ++s) {
        if (key == Names[s])
            return true;
    }
    return false;
}

bool isGlobal(const QByteArray &key)
{
    return std::any_of(std::begin(GlobalPrefixes), std::end(GlobalPrefixes),
                       [&](const char *p) { return key.startsWith(p); });
}

QByteArray utcDay(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC)
        .toString(QStringLiteral("yyyy-MM-dd"))
        .toLatin1();
}

// A counter's value (GET): nil is 0, a non-number -1.
qint64 counter(const RedisValue &v)
{
    if (v.isNil())
        return 0;
    bool ok = false;
    const qint64 n = v.bytes().toLongLong(&ok);
    return ok && n >= 0 ? n : -1;
}

} // namespace

QByteArray AsynqUnit::prefixOf(const QByteArray &name)
{
    return Root + name + "}:";
}

QByteArray AsynqUnit::keyOf(const PatternObject &o, State s)
{
    const QByteArray k = o.relatedKey(s);
    if (!k.isEmpty())
        return k;
    return s < PerQueue ? prefixOf(nameOf(o.key)) + Names[s] : QByteArray(Names[s]);
}

QByteArray AsynqUnit::nameOf(const QByteArray &key)
{
    if (suffixOf(key).isEmpty())
        return {};
    return key.mid(Root.size(), key.indexOf("}:", Root.size()) - Root.size());
}

PatternObject AsynqUnit::objectForName(const QByteArray &name)
{
    PatternObject o;
    o.kind = Kind;
    o.key = prefixOf(name) + Names[Pending];
    for (int s = 0; s < KeyCount; ++s)
        o.related << (s < PerQueue ? prefixOf(name) + Names[s] : QByteArray(Names[s]));
    return o;
}

QList<PatternUnit::Command> AsynqUnit::identifyProbe(const QByteArray &target) const
{
    const QByteArray name = nameOf(target);
    if (name.isEmpty())
        return {{"TYPE", target}};
    const PatternObject o = objectForName(name);
    return {{"TYPE", keyOf(o, Pending)},
            {"SISMEMBER", Names[Queues], name},
            {"EXISTS", keyOf(o, Active), keyOf(o, Scheduled), keyOf(o, Retry), keyOf(o, Archived),
             keyOf(o, Completed), keyOf(o, Lease)}};
}

bool AsynqUnit::identifies(const QByteArray &target, const QList<RedisValue> &r) const
{
    // A queue's key ("asynq:{<name>}:..."), its pending list a list or none,
    // that asynq knows: in asynq:queues, or with a state key of its own.
    return !nameOf(target).isEmpty() && r.size() == 3
           && (r.at(0).bytes() == "list" || r.at(0).bytes() == "none")
           && (r.at(1).toInteger() == 1 || r.at(2).toInteger() > 0);
}

QList<QByteArray> AsynqUnit::scanGlobs(const ProfileRule &rule) const
{
    // A rule names queues by their prefix ("asynq:{*}:*" or "asynq:{emails}:*").
    return {rule.match};
}

std::optional<PatternObject> AsynqUnit::objectFor(const ProfileRule &rule,
                                                  const QByteArray &key) const
{
    const QByteArray name = nameOf(key);
    if (name.isEmpty() || typeOfSuffix(suffixOf(key)).isEmpty())
        return std::nullopt;
    const PatternObject o = objectForName(name);
    if (!globMatch(rule.match, key) || rule.excludes(o.key))
        return std::nullopt;
    PatternObject out = o;
    out.params = rule.params;
    out.source = QString(); // the registry names the rule
    return out;
}

PatternObject AsynqUnit::conventionalObject(const QByteArray &key) const
{
    // Any of a queue's keys, its prefix "asynq:{<name>}:", or the name alone.
    QByteArray name = nameOf(key);
    if (name.isEmpty() && key.startsWith(Root) && key.endsWith("}:"))
        name = key.mid(Root.size(), key.size() - Root.size() - 2);
    return objectForName(name.isEmpty() ? key : name);
}

std::optional<KeyClaim> AsynqUnit::claimKey(const KeyShape &shape, qint64) const
{
    // Only asynq's own names, each with asynq's type; a foreign type under
    // a queue's prefix is claimed weakly, so the queue still shows (as a
    // layout read-only) rather than another pattern taking the key.
    const QByteArray suffix = suffixOf(shape.key);
    if (!suffix.isEmpty()) {
        const QByteArray type = typeOfSuffix(suffix);
        if (type.isEmpty())
            return std::nullopt;
        return KeyClaim{QStringLiteral("asynq:%1").arg(QString::fromLatin1(type)),
                        shape.type == type ? 30 : 5};
    }
    if (isShared(shape.key)) {
        const int s = int(std::find_if(std::begin(Names), std::end(Names),
                                       [&](const char *n) { return shape.key == n; })
                          - std::begin(Names));
        return shape.type == Types[s]
                   ? std::optional<KeyClaim>(KeyClaim{QString::fromLatin1(Names[s]), 30})
                   : std::nullopt;
    }
    if (isGlobal(shape.key))
        return KeyClaim{QStringLiteral("asynq"), 20};
    return std::nullopt;
}

QList<PatternObject> AsynqUnit::groupClaims(ClaimPool &pool) const
{
    // A queue name is asynq's when one of its state keys or task hashes has
    // asynq's type and either asynq:queues (a SET) or a task hash of the
    // queue is there: the "asynq:{<name>}:" hash tag with those is asynq's
    // alone. Every key of such a queue, and asynq's global keys, are taken.
    QMap<QByteArray, QList<QByteArray>> keysOf;
    QSet<QByteArray> typed;
    QSet<QByteArray> withTask;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (pool.roleOf(key, Kind).isEmpty())
            continue;
        const QByteArray name = nameOf(key);
        if (name.isEmpty())
            continue;
        keysOf[name] << key;
        const ClaimPool::Entry *e = pool.find(key);
        const QByteArray suffix = suffixOf(key);
        if (e && e->shape.type == typeOfSuffix(suffix)) {
            typed.insert(name);
            if (suffix.startsWith("t:"))
                withTask.insert(name);
        }
    }
    const ClaimPool::Entry *queues = pool.find(Names[Queues]);
    const bool listed = queues && queues->shape.type == "set";
    QList<PatternObject> out;
    for (auto it = keysOf.cbegin(); it != keysOf.cend(); ++it) {
        if (!typed.contains(it.key()) || !(listed || withTask.contains(it.key())))
            continue;
        PatternObject o = objectForName(it.key());
        o.source = QStringLiteral("autodetected");
        out.append(o);
        for (const QByteArray &key : it.value())
            pool.take(key);
    }
    if (out.isEmpty())
        return {};
    for (int s = Queues; s < KeyCount; ++s)
        pool.take(Names[s]);
    for (const char *p : GlobalPrefixes) {
        for (const QByteArray &key : pool.under(p))
            pool.take(key);
    }
    return out;
}

QList<PatternUnit::Command> AsynqUnit::probe(const PatternObject &o, const ProbeContext &c) const
{
    const int page = std::max(1, o.params.pageSize);
    const qint64 nowSec = c.nowMs / 1000;
    const QByteArray base = prefixOf(nameOf(o.key));
    const QByteArray day = utcDay(c.nowMs);
    return {
        {"LLEN", keyOf(o, Pending)},
        {"LLEN", keyOf(o, Active)},
        {"ZCARD", keyOf(o, Scheduled)},
        {"ZCARD", keyOf(o, Retry)},
        {"ZCARD", keyOf(o, Archived)},
        {"ZCARD", keyOf(o, Completed)},
        {"ZCARD", keyOf(o, Lease)},
        // The recoverer's cutoff: expired 30 s ago or more (recoverer.go).
        {"ZCOUNT", keyOf(o, Lease), "-inf", "(" + number(nowSec - RecovererGraceS)},
        {"EXISTS", keyOf(o, Paused)},
        {"GET", base + "processed:" + day},
        {"GET", base + "failed:" + day},
        {"GET", keyOf(o, Processed)},
        {"GET", keyOf(o, Failed)},
        {"SISMEMBER", keyOf(o, Queues), nameOf(o.key)},
        // The lease's first page, the earliest expiry first (the follow-up
        // reads each task's state).
        libraryqueue::pageProbe(keyOf(o, Lease), page, false, true),
        // The newest pending task's state (the list's left end: LPUSH).
        {"SORT_RO", keyOf(o, Pending), "BY", "nosort", "LIMIT", "0", "1", "GET", "#", "GET",
         base + "t:*->state"},
        {"ZCOUNT", keyOf(o, Servers), number(nowSec), "+inf"},
        {"ZCARD", keyOf(o, Servers)},
        {"ZCOUNT", keyOf(o, Workers), number(nowSec), "+inf"},
        // The oldest pending task (the right end: dequeue takes it from
        // there) and when it began to wait (pending_since, ns), asynq's
        // Inspector's queue latency.
        {"SORT_RO", keyOf(o, Pending), "BY", "nosort", "LIMIT", "0", "1", "DESC", "GET", "#", "GET",
         base + "t:*->pending_since"},
    };
}

QList<PatternUnit::Command> AsynqUnit::followUp(const PatternObject &o, const QList<RedisValue> &r,
                                                const ProbeContext &) const
{
    if (r.size() < ProbedReplies)
        return {};
    return libraryqueue::fieldsFollowUp(libraryqueue::pageMembers(r.at(LeasePage), true),
                                        prefixOf(nameOf(o.key)) + "t:", {"state"});
}

Reading AsynqUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                        const ProbeContext &c) const
{
    const QByteArray base = prefixOf(nameOf(o.key));
    const QList<QByteArray> replyKeys{
        keyOf(o, Pending),  keyOf(o, Active),    keyOf(o, Scheduled), keyOf(o, Retry),
        keyOf(o, Archived), keyOf(o, Completed), keyOf(o, Lease),     keyOf(o, Lease),
        keyOf(o, Paused),   base + "processed:", base + "failed:",    keyOf(o, Processed),
        keyOf(o, Failed),   keyOf(o, Queues),    keyOf(o, Lease),     keyOf(o, Pending),
        keyOf(o, Servers),  keyOf(o, Servers),   keyOf(o, Workers),   keyOf(o, Pending)};
    if (auto f = failure(o, r.mid(0, replyKeys.size()), replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    qint64 total = 0;
    const QStringList names = jobStates(); // pending .. completed, as probed
    for (int i = 0; i < 6; ++i) {
        reading.editLibrary().counts.append({names.at(i), r.at(i).toInteger()});
        total = saturatingAdd(total, r.at(i).toInteger());
    }
    // asynq's QueueInfo: Processed and Failed are today's (UTC), the totals beside.
    const char *counters[] = {"processed", "failed", "processedTotal", "failedTotal"};
    for (int i = 0; i < 4; ++i) {
        if (const qint64 n = counter(r.at(9 + i)); n >= 0)
            reading.editLibrary().counts.append({QString::fromLatin1(counters[i]), n});
    }
    reading.editQueue().length = r.at(0).toInteger();
    reading.editQueue().inFlight = r.at(1).toInteger();
    reading.editQueue().deadLength = r.at(4).toInteger();
    reading.editQueue().stuck = r.at(7).toInteger();
    reading.editLibrary().paused = r.at(8).toInteger() == 1;
    reading.editLibrary().workers = r.at(17).toInteger();      // servers
    reading.editLibrary().workersAlive = r.at(16).toInteger(); // servers whose info has not expired
    reading.editLibrary().parts.append(
        {QStringLiteral("process"), "asynq:workers", r.at(18).toInteger(), -1, -1, true, false});

    if (total == 0 && r.at(6).toInteger() == 0 && r.at(13).toInteger() == 0) {
        reading.status = Reading::Status::Missing;
        reading.message
            = QStringLiteral("No asynq keys for queue \"%1\".").arg(printableBytes(nameOf(o.key)));
        return reading;
    }

    // The lease page: members and expiries, and each task's state (the
    // follow-up's; not known without it).
    QHash<QByteArray, QByteArray> stateOf;
    const auto states = libraryqueue::fieldRows(libraryqueue::pageMembers(r.at(LeasePage), true), r,
                                                ProbedReplies, 1);
    for (const QList<QByteArray> &row : states.value_or(QList<QList<QByteArray>>()))
        stateOf.insert(row.at(0), row.at(1).isEmpty() ? QByteArray("<none>") : row.at(1));
    QByteArray foreign;
    const auto &pendingHead = r.at(15).elements();
    if (pendingHead.size() == 2 && pendingHead.at(1).bytes() != "pending")
        foreign = "pending task " + pendingHead.at(0).bytes().left(64) + " in state \""
                  + (pendingHead.at(1).isNil() ? "none" : pendingHead.at(1).bytes().left(32))
                  + "\"";
    const qint64 nowSec = c.nowMs / 1000;
    const auto &scored = r.at(LeasePage).elements();
    for (qsizetype i = 0; i + 1 < scored.size(); i += 2) {
        const QByteArray id = scored.at(i).bytes();
        bool ok = false;
        const qint64 expiry = scored.at(i + 1).bytes().toLongLong(&ok);
        const QByteArray state = stateOf.value(id, "<none>");
        if (states && state != "active" && foreign.isEmpty())
            foreign = "leased task " + id.left(64) + " in state \"" + state.left(32) + "\"";
        InFlightItem item;
        item.job = id;
        item.source = AgeSource::Library;
        item.locked = !(ok && expiry < nowSec - RecovererGraceS);
        // The lease is extended to now + 30 s while the worker lives: its
        // last extension was 30 s before the expiry.
        const qint64 lastAliveMs
            = ok ? secondsToMs(double(expiry) - double(RecovererGraceS)).value_or(-1) : -1;
        item.ageMs
            = lastAliveMs >= 0 ? std::max<qint64>(0, saturatingSub(c.nowMs, lastAliveMs)) : 0;
        if (!item.locked && reading.editLibrary().stuckJobs.size() < o.params.pageSize)
            reading.editLibrary().stuckJobs.append(
                {id, QString::fromLatin1(StuckReason), lastAliveMs});
        reading.editQueue().oldestInFlightAgeMs
            = std::max(reading.queue().oldestInFlightAgeMs, item.ageMs);
        reading.editQueue().items.append(item);
    }
    std::sort(reading.editQueue().items.begin(), reading.editQueue().items.end(),
              [](const InFlightItem &a, const InFlightItem &b) { return a.ageMs > b.ageMs; });
    reading.editQueue().truncated = r.at(6).toInteger() > reading.queue().items.size();
    // asynq records when a task began to wait, and drops it when the task
    // is taken: the oldest waiting task's age, no wait of finished ones.
    const auto &oldest = r.at(19).elements();
    bool nsOk = false;
    const qint64 sinceNs = oldest.size() == 2 ? oldest.at(1).bytes().toLongLong(&nsOk) : -1;
    libraryqueue::setOldestWaiting(reading, nsOk && sinceNs > 0 ? sinceNs / 1'000'000 : -1, c.nowMs,
                                   reading.queue().length == 0);

    reading.editLibrary().layoutKnown = foreign.isEmpty();
    if (!reading.editLibrary().layoutKnown)
        reading.message = QStringLiteral("Layout with a %1 is not asynq's (0.2x): shown "
                                         "read-only.")
                              .arg(printableBytes(foreign));
    else if (reading.queue().truncated)
        reading.message = QStringLiteral("%1 tasks leased; %2 were read.")
                              .arg(r.at(6).toInteger())
                              .arg(reading.queue().items.size());
    return reading;
}

QList<Figure> AsynqUnit::figures() const
{
    return {
        countFigure(QStringLiteral("pending"), QStringLiteral("Pending"),
                    QStringLiteral("pending")),
        countFigure(QStringLiteral("inFlight"), QStringLiteral("Active"), QStringLiteral("active")),
        countFigure(QStringLiteral("retry"), QStringLiteral("Retry"), QStringLiteral("retry")),
        countFigure(QStringLiteral("archived"), QStringLiteral("Archived"),
                    QStringLiteral("archived")),
        countFigure(QStringLiteral("processed"), QStringLiteral("Processed today"),
                    QStringLiteral("processed")),
        countFigure(QStringLiteral("failed"), QStringLiteral("Failed today"),
                    QStringLiteral("failed")),
        stuckFigure(QStringLiteral("Lease expired")),
        {QStringLiteral("serversAlive"), QStringLiteral("Servers alive"), false,
         [](const Reading &r, qint64) {
             return double(std::max<qint64>(0, r.library().workersAlive));
         }},
        oldestFigure(QStringLiteral("Longest without a lease extension")),
        libraryqueue::oldestWaitingFigure(),
    };
}

QList<Chart> AsynqUnit::charts() const
{
    return {{QStringLiteral("Tasks by state"),
             QStringLiteral("tasks"),
             {{QStringLiteral("pending"), QStringLiteral("pending")},
              {QStringLiteral("inFlight"), QStringLiteral("active")},
              {QStringLiteral("retry"), QStringLiteral("retry")},
              {QStringLiteral("archived"), QStringLiteral("archived")},
              {QStringLiteral("stuck"), QStringLiteral("lease expired")}}},
            oldestChart(QStringLiteral("Longest without a lease extension")),
            libraryqueue::throughputChart(QStringLiteral("processed"), QStringLiteral("failed")),
            libraryqueue::oldestWaitingChart()};
}

QList<LibraryQueueUnit::JobState> AsynqUnit::states() const
{
    // asynq's TaskState names (internal/base/base.go), in its order.
    return {{QStringLiteral("pending")},
            {QStringLiteral("active"), JobStage::InFlight},
            {QStringLiteral("scheduled")},
            {QStringLiteral("retry")},
            {QStringLiteral("archived"), JobStage::Dead},
            {QStringLiteral("completed"), JobStage::Finished}};
}

LibraryQueueUnit::StuckRule AsynqUnit::stuckRule() const
{
    return {QStringLiteral("stuck"),
            QStringLiteral("leases expired (active, not extended by any worker)"),
            QStringLiteral("longest without a lease extension")};
}

libraryqueue::JsonOptions AsynqUnit::jsonOptions() const
{
    return {true, libraryqueue::LowerBound::Exact}; // ZCOUNT counts them
}

void AsynqUnit::writeLibraryJson(const ObjectState &, const Reading &r, qint64,
                                 QJsonObject &j) const
{
    j.insert(QStringLiteral("paused"), r.library().paused);
    j.insert(QStringLiteral("servers"), double(r.library().workers));
    j.insert(QStringLiteral("serversAlive"), double(r.library().workersAlive));
    if (!r.library().parts.isEmpty())
        j.insert(QStringLiteral("workerSetsAlive"), double(r.library().parts.first().count));
}

QStringList AsynqUnit::itemHeaders() const
{
    return {QStringLiteral("Active task"), QStringLiteral("Since its last lease extension"),
            QStringLiteral("Lease")};
}

QList<QStringList> AsynqUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items) {
        rows.append({printableBytes(item.job, 120), formatMs(s.reading.ageAt(item.ageMs, nowMs)),
                     item.locked ? QStringLiteral("held") : QStringLiteral("expired: stuck")});
    }
    return rows;
}

} // namespace gatehouse
