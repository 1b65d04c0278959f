// SPDX-License-Identifier: MIT
#include "bullmqunit.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue.h>
#include <patterns/matchcounter.h>
#include <patterns/sections.h>

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace gatehouse {

namespace {

// The suffixes that name a BullMQ queue's own keys, in State order.
constexpr const char *Suffixes[]
    = {"meta",    "wait",      "active", "paused",           "prioritized",
       "delayed", "completed", "failed", "waiting-children", "events",
       "marker",  "pc",        "id",     "stalled",          "stalled-check"};

// The Redis type each of those keys has.
constexpr const char *Types[]
    = {"hash", "list",   "list", "list",   "zset",   "zset", "zset",  "zset",
       "zset", "stream", "zset", "string", "string", "set",  "string"};

// Keys whose name and type alone say "BullMQ": enough for a queue with
// another of its keys beside it.
bool isAnchor(int s)
{
    // Bull 3/4 has wait, active, id and stalled-check too, but no meta hash,
    // events stream or marker.
    return s == BullMqUnit::Meta || s == BullMqUnit::Events || s == BullMqUnit::Marker;
}

int stateOfKey(const QByteArray &key, const QByteArray &type)
{
    const qsizetype colon = key.lastIndexOf(':');
    if (colon <= 0)
        return -1;
    const QByteArray last = key.mid(colon + 1);
    for (int s = 0; s < BullMqUnit::KeyCount; ++s) {
        if (last == Suffixes[s])
            return type.isEmpty() || type == Types[s] ? s : -1;
    }
    return -1;
}

QByteArray sortPatternSafe(const QByteArray &base)
{
    // SORT's GET pattern substitutes the first '*' and splits a hash field
    // at "->": a base containing either cannot be read that way.
    return base.contains('*') || base.contains("->") ? QByteArray() : base;
}

const char *StuckReason = "active without a lock: its worker died or stopped renewing it";

ScriptCall baseCall(const PatternObject &o, const QString &action, const QString &script,
                    const QList<BullMqUnit::State> &keys)
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (BullMqUnit::State s : keys) {
        call.keys << BullMqUnit::keyOf(o, s);
        call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(Suffixes[s]),
                                                     QString::fromLatin1(Types[s]));
    }
    return call;
}

} // namespace

QByteArray BullMqUnit::suffix(State s)
{
    return Suffixes[s];
}

QByteArray BullMqUnit::keyOf(const PatternObject &o, State s)
{
    const QByteArray k = o.relatedKey(s);
    return k.isEmpty() ? o.key + ':' + Suffixes[s] : k;
}

QByteArray BullMqUnit::baseOf(const QByteArray &key)
{
    if (stateOfKey(key, {}) < 0)
        return {};
    return key.left(key.lastIndexOf(':'));
}

PatternObject BullMqUnit::objectForBase(const QByteArray &base)
{
    PatternObject o;
    o.kind = Kind;
    o.key = base;
    for (int s = 0; s < KeyCount; ++s)
        o.related << base + ':' + Suffixes[s];
    return o;
}

Section BullMqUnit::section() const
{
    return sections::queue();
}

QList<PatternUnit::Command> BullMqUnit::identifyProbe(const QByteArray &target) const
{
    return {{"TYPE", target + ":meta"},
            {"TYPE", target + ":events"},
            {"TYPE", target + ":meta-paused"}};
}

bool BullMqUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    // Bull 3/4's pause writes a "meta" hash too (for BullMQ's sake) beside
    // its own "meta-paused": that queue is Bull's.
    return r.size() == 3
           && (r.at(1).bytes() == "stream"
               || (r.at(0).bytes() == "hash" && r.at(2).bytes() == "none"));
}

QList<QByteArray> BullMqUnit::scanGlobs(const ProfileRule &rule) const
{
    return {rule.match + ":meta", rule.match + ":id"};
}

std::optional<PatternObject> BullMqUnit::objectFor(const ProfileRule &rule,
                                                   const QByteArray &key) const
{
    // One of the queue's own keys (what SCAN finds); a job's keys under the
    // base are not (an operator naming the base gets conventionalObject).
    const QByteArray base = baseOf(key);
    if (base.isEmpty() || !globMatch(rule.match, base) || rule.excludes(base))
        return std::nullopt;
    PatternObject o = objectForBase(base);
    o.params = rule.params;
    o.source = QString(); // the registry names the rule
    return o;
}

PatternObject BullMqUnit::conventionalObject(const QByteArray &key) const
{
    return objectForBase(key);
}

std::optional<KeyClaim> BullMqUnit::claimKey(const KeyShape &shape, qint64) const
{
    // Only the queue's own names; the jobs' hashes, locks and logs under its
    // base are taken when the queue groups (pool.under), whoever claimed them.
    const int s = stateOfKey(shape.key, shape.type);
    if (s < 0)
        return std::nullopt;
    return KeyClaim{QString::fromLatin1(Suffixes[s]), isAnchor(s) ? 30 : 10};
}

QList<PatternObject> BullMqUnit::groupClaims(ClaimPool &pool) const
{
    // A base with one of BullMQ's distinctive keys and at least two of its
    // names is a queue; it takes every key under "<base>:" from the pool
    // (job hashes, locks, logs), so none shows as a lock or token of its own.
    // A paused Bull 3/4 queue has a "meta" hash too (Bull's pause writes it
    // for BullMQ's sake) beside its own "meta-paused": without BullMQ's
    // events stream or marker, that base is Bull's.
    struct Base
    {
        int names = 0;
        bool anchored = false;
        bool bullMqOnly = false; // events stream or marker
    };
    QMap<QByteArray, Base> bases;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        const QString role = pool.roleOf(key, Kind);
        if (role.isEmpty())
            continue;
        Base &b = bases[key.left(key.lastIndexOf(':'))];
        ++b.names;
        const int s = stateOfKey(key, pool.find(key)->shape.type);
        b.anchored = b.anchored || (s >= 0 && isAnchor(s));
        b.bullMqOnly = b.bullMqOnly || s == Events || s == Marker;
    }
    QList<PatternObject> out;
    for (auto it = bases.cbegin(); it != bases.cend(); ++it) {
        if (it->names < 2 || !it->anchored)
            continue;
        if (!it->bullMqOnly && pool.find(it.key() + ":meta-paused"))
            continue;
        PatternObject o = objectForBase(it.key());
        o.source = QStringLiteral("autodetected");
        for (const QByteArray &key : pool.under(it.key() + ':'))
            pool.take(key);
        out.append(o);
    }
    return out;
}

QList<PatternUnit::Command> BullMqUnit::probe(const PatternObject &o, const ProbeContext &) const
{
    const QByteArray page = number(std::max(1, o.params.pageSize));
    QList<Command> cmds{
        {"HMGET", keyOf(o, Meta), "paused", "concurrency", "max", "duration", "version"},
        {"LLEN", keyOf(o, Wait)},
        {"LLEN", keyOf(o, Active)},
        {"LLEN", keyOf(o, Paused)},
        {"ZCARD", keyOf(o, Prioritized)},
        {"ZCARD", keyOf(o, Delayed)},
        {"ZCARD", keyOf(o, Completed)},
        {"ZCARD", keyOf(o, Failed)},
        {"ZCARD", keyOf(o, WaitingChildren)},
        {"EXISTS", keyOf(o, Id), keyOf(o, Events)},
    };
    // Every active job with its lock, when it was taken, its name and
    // attempts: one bounded read (the active list holds what workers run).
    const QByteArray base = sortPatternSafe(o.key);
    if (!base.isEmpty())
        cmds.append({"SORT_RO", keyOf(o, Active), "BY", "nosort", "LIMIT", "0", page, "GET", "#",
                     "GET", base + ":*:lock", "GET", base + ":*->processedOn", "GET",
                     base + ":*->name", "GET", base + ":*->atm"});
    return cmds;
}

Reading BullMqUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                         const ProbeContext &c) const
{
    const QList<QByteArray> replyKeys{
        keyOf(o, Meta),      keyOf(o, Wait),        keyOf(o, Active),
        keyOf(o, Paused),    keyOf(o, Prioritized), keyOf(o, Delayed),
        keyOf(o, Completed), keyOf(o, Failed),      keyOf(o, WaitingChildren),
        keyOf(o, Id)};
    QList<QByteArray> allKeys = replyKeys;
    if (!sortPatternSafe(o.key).isEmpty())
        allKeys << keyOf(o, Active);
    if (r.size() < allKeys.size()) {
        if (auto f = failure(o, r, allKeys, c.nowMs))
            return *f;
    }
    // A failed read of the active jobs' locks leaves the counts good.
    if (auto f = failure(o, r.mid(0, replyKeys.size()), replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    if (r.at(0).size() != 5) {
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("Unexpected reply reading \"%1\".")
                              .arg(printableBytes(keyOf(o, Meta)));
        return reading;
    }
    const RedisValue &meta = r.at(0);
    reading.paused = !meta.at(0).isNil();
    reading.layoutVersion = QString::fromUtf8(meta.at(4).bytes().left(64));
    reading.layoutKnown = reading.layoutVersion.isEmpty()
                          || reading.layoutVersion.startsWith(QLatin1String("bullmq:5."))
                          || reading.layoutVersion.startsWith(QLatin1String("bullmq:6."));
    const char *names[] = {"wait",    "active",    "paused", "prioritized",
                           "delayed", "completed", "failed", "waiting-children"};
    for (int i = 0; i < 8; ++i)
        reading.counts.append({QString::fromLatin1(names[i]), r.at(1 + i).toInteger()});
    const qint64 wait = r.at(1).toInteger(), active = r.at(2).toInteger(),
                 paused = r.at(3).toInteger(), prioritized = r.at(4).toInteger();
    reading.length = saturatingAdd(saturatingAdd(wait, paused), prioritized);
    reading.inFlight = active;
    reading.deadLength = r.at(7).toInteger();
    qint64 total = 0;
    for (const StateCount &n : std::as_const(reading.counts))
        total = saturatingAdd(total, n.count); // sizes from replies (fuzz_patternread)
    if (total == 0 && meta.at(4).isNil() && r.at(9).toInteger() == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No BullMQ keys under \"%1\".").arg(printableBytes(o.key));
        return reading;
    }

    if (r.size() > 10 && r.at(10).isError()) {
        reading.stuckIsLowerBound = true;
        reading.message = QStringLiteral("Cannot read the active jobs' locks (%1): stalled jobs "
                                         "are not known.")
                              .arg(r.at(10).errorMessage());
    } else if (r.size() > 10) {
        const auto &e = r.at(10).elements();
        for (qsizetype i = 0; i + 4 < e.size(); i += 5) {
            InFlightItem item;
            item.job = e.at(i).bytes();
            if (item.job.startsWith("0:"))
                continue; // BullMQ 5's marker in a list
            item.locked = !e.at(i + 1).isNil();
            bool ok = false;
            const qint64 processedOn = e.at(i + 2).bytes().toLongLong(&ok);
            item.source = AgeSource::Library;
            item.ageMs = ok ? std::max<qint64>(0, saturatingSub(c.nowMs, processedOn)) : 0;
            item.name = e.at(i + 3).bytes().left(120);
            item.attempts = e.at(i + 4).isNil() ? 0 : e.at(i + 4).toInteger();
            if (!item.locked) {
                ++reading.stuck;
                if (reading.stuckJobs.size() < o.params.pageSize)
                    reading.stuckJobs.append(
                        {item.job, QString::fromLatin1(StuckReason), ok ? processedOn : -1});
            }
            reading.oldestInFlightAgeMs = std::max(reading.oldestInFlightAgeMs, item.ageMs);
            reading.items.append(item);
        }
        std::sort(reading.items.begin(), reading.items.end(),
                  [](const InFlightItem &a, const InFlightItem &b) { return a.ageMs > b.ageMs; });
        reading.truncated = active > reading.items.size();
        reading.stuckIsLowerBound = reading.truncated;
    } else {
        reading.stuckIsLowerBound = true;
        reading.message = QStringLiteral("The queue's name holds '*' or \"->\": stalled jobs are "
                                         "not read.");
    }
    if (!reading.layoutKnown)
        reading.message = QStringLiteral("Layout %1 is not one Gatehouse knows (BullMQ 5-6): shown "
                                         "read-only.")
                              .arg(reading.layoutVersion);
    else if (reading.truncated)
        reading.message
            = QStringLiteral("%1 jobs active; %2 were read.").arg(active).arg(reading.items.size());
    return reading;
}

QList<Figure> BullMqUnit::figures() const
{
    auto count = [](const char *state) {
        const QString s = QString::fromLatin1(state);
        return [s](const Reading &r, qint64) {
            return double(r.countOf(s));
        };
    };
    return {
        {QStringLiteral("wait"), QStringLiteral("Waiting"), false, count("wait")},
        {QStringLiteral("inFlight"), QStringLiteral("Active"), false, count("active")},
        {QStringLiteral("delayed"), QStringLiteral("Delayed"), false, count("delayed")},
        {QStringLiteral("failed"), QStringLiteral("Failed"), false, count("failed")},
        {QStringLiteral("completed"), QStringLiteral("Completed"), false, count("completed")},
        {QStringLiteral("stuck"), QStringLiteral("Stalled"), false,
         [](const Reading &r, qint64) {
             return double(r.stuck);
         }},
        {QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("Oldest active"), true,
         [](const Reading &r, qint64 at) {
             return double(r.ageAt(r.oldestInFlightAgeMs, at));
         }},
    };
}

QList<Chart> BullMqUnit::charts() const
{
    return {{QStringLiteral("Jobs by state"),
             QStringLiteral("jobs"),
             {{QStringLiteral("wait"), QStringLiteral("waiting")},
              {QStringLiteral("inFlight"), QStringLiteral("active")},
              {QStringLiteral("delayed"), QStringLiteral("delayed")},
              {QStringLiteral("stuck"), QStringLiteral("stalled")}}},
            {QStringLiteral("Oldest active"),
             QStringLiteral("s"),
             {{QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("oldest (s)"), 0.001}}},
            libraryqueue::throughputChart(QStringLiteral("completed"), QStringLiteral("failed"))};
}

QList<Column> BullMqUnit::columns() const
{
    return libraryqueue::columns(QStringLiteral("bullmq"), {true, true, QString()});
}

void BullMqUnit::writeJson(const ObjectState &s, const Reading &r, qint64, QJsonObject &j) const
{
    libraryqueue::writeJson(r, keysToJson(s.object.related), j);
}

QStringList BullMqUnit::itemHeaders() const
{
    return libraryqueue::activeJobHeaders();
}

QList<QStringList> BullMqUnit::items(const ObjectState &s, qint64 nowMs) const
{
    return libraryqueue::activeJobRows(s, nowMs);
}

QHash<QString, QByteArray> BullMqUnit::itemInputs(const ObjectState &s, int i) const
{
    return libraryqueue::itemJob(s, i);
}

std::optional<Attention> BullMqUnit::attention(const ObjectState &state, qint64) const
{
    return libraryqueue::stuckAttention(state, QStringLiteral("inFlight"));
}

QString BullMqUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    return QStringLiteral("BullMQ queue %1: %2 stalled (active without a lock), oldest active %3")
        .arg(printableBytes(state.object.key))
        .arg(r.stuck)
        .arg(formatMs(r.ageAt(r.oldestInFlightAgeMs, nowMs)));
}

ReplyMeaning BullMqUnit::jobMeaning(qint64 reply, const QByteArray &job, const QString &did,
                                    const QString &state)
{
    return libraryqueue::jobMeaning(
        reply, job, did,
        {{0, QStringLiteral("Job %1 is not %2 (it moved on); nothing changed.")
                 .arg(QStringLiteral("%1"), state)},
         {-1, QStringLiteral("Job %1 is locked: a worker is running it; nothing changed.")},
         {-2, QStringLiteral("There is no job %1 in this queue; nothing changed.")},
         {-4, QStringLiteral("Job %1 has a parent or children: Gatehouse does not re-link BullMQ "
                             "flows; nothing changed.")}});
}

namespace {

// bullmq_remove as clean (KEYS: the remove keys, then the cleaned ZSET;
// ARGV[3] older than ms, ARGV[4] batch): the finished jobs scored before the
// cut-off; a single job's remove and a count-only run are not counted.
[[maybe_unused]] const bool s_cleanCounted = MatchCounter::add(
    QStringLiteral("bullmq_remove"),
    MatchCounter::scoredBefore(QStringLiteral("queue.clean"), -1, 2, 3,
                               QStringLiteral("locked ones are left; up to %1 will be removed")));

// bullmq_promote with no job (KEYS[9] delayed ZSET, ARGV[3] batch): every
// delayed job.
[[maybe_unused]] const bool s_promoteCounted = MatchCounter::add(
    QStringLiteral("bullmq_promote"), MatchCounter::wholeSet(8, 1, 2, QStringLiteral("promoted")));

// bullmq_retry with no job (KEYS[9] the finished ZSET, ARGV[3] batch): every
// failed (or completed) job.
[[maybe_unused]] const bool s_retryCounted = MatchCounter::add(
    QStringLiteral("bullmq_retry"), MatchCounter::wholeSet(8, 1, 2, QStringLiteral("retried")));

} // namespace

QList<PatternAction> BullMqUnit::actions() const
{
    using namespace libraryqueue;
    const auto prefix = [](const PatternObject &o) -> QByteArray {
        return o.key + ':';
    };
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);

    RequeueSpec requeue;
    requeue.stuckLabel = QStringLiteral("Every stalled job");
    requeue.olderThanRefusal
        = QStringLiteral("A BullMQ job is stalled when its lock is gone, whatever its age: queue "
                         "requeue takes no --older-than for a BullMQ queue.");
    requeue.build = [prefix, batch, cut](const ActionRequest &r) {
        ScriptCall call
            = baseCall(r.object, QStringLiteral("queue.requeue"), QStringLiteral("bullmq_requeue"),
                       {Meta, Wait, Active, Paused, Marker, Events});
        const QByteArray job = r.input(QStringLiteral("job"));
        call.args = {prefix(r.object), job, batch, cut};
        if (!job.isEmpty()) {
            call.summary = QStringLiteral("Move BullMQ job %1 of \"%2\" from active back to wait, "
                                          "only if its lock is gone (stalled), as BullMQ's stall "
                                          "check does.")
                               .arg(printableBytes(job, 80), printableBytes(r.object.key));
            call.meaning = [job](const RedisValue &v) {
                return jobMeaning(v.toInteger(), job, QStringLiteral("was requeued to wait"),
                                  QStringLiteral("active"));
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Move every stalled BullMQ job of \"%1\" (active without "
                                          "a lock) back to wait, up to %2 per run, as BullMQ's "
                                          "stall check does.")
                               .arg(printableBytes(r.object.key))
                               .arg(Batch);
            call.batch = Batch;
            call.batchSummary = QStringLiteral("Requeued %1 stalled jobs.");
            call.meaning = batchMeaning(QStringLiteral("Requeued %1 stalled jobs."));
        }
        return call;
    };

    PatternAction retry = jobOrAllAction(
        QStringLiteral("retry"), QStringLiteral("Retry…"), QStringLiteral("all"),
        QStringLiteral("Every failed job"), [prefix, batch, cut](const ActionRequest &r) {
            const bool completed = r.has(QStringLiteral("completed"));
            const QString state
                = completed ? QStringLiteral("completed") : QStringLiteral("failed");
            ScriptCall call
                = baseCall(r.object, QStringLiteral("queue.retry"), QStringLiteral("bullmq_retry"),
                           {Meta, Wait, Active, Paused, Marker, Events, Prioritized,
                            PriorityCounter, completed ? Completed : Failed});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {prefix(r.object), job, batch, state.toUtf8(), cut};
            if (!job.isEmpty()) {
                call.summary
                    = QStringLiteral("Retry BullMQ job %1 of \"%2\": from %3 back to "
                                     "wait, as BullMQ's Job.retry does.")
                          .arg(printableBytes(job, 80), printableBytes(r.object.key), state);
                call.meaning = [job, state](const RedisValue &v) {
                    return jobMeaning(v.toInteger(), job, QStringLiteral("was moved back to wait"),
                                      state);
                };
            } else {
                call.summary = QStringLiteral("Retry every %1 BullMQ job of \"%2\", oldest first, "
                                              "up to %3 per run, as BullMQ's retryJobs does.")
                                   .arg(state, printableBytes(r.object.key))
                                   .arg(Batch);
                call.batch = Batch;
                call.batchSummary = QStringLiteral("Retried %1 jobs.");
                call.meaning = batchMeaning(QStringLiteral("Retried %1 jobs."));
            }
            return call;
        });
    retry.usage = QStringLiteral("queue retry QUEUE (--job ID | --all) [--completed]");
    retry.inputs << flag(QStringLiteral("completed"), QStringLiteral("From completed"));
    retry.inputs[2].console = false;

    PatternAction promote = jobOrAllAction(
        QStringLiteral("promote"), QStringLiteral("Promote…"), QStringLiteral("all"),
        QStringLiteral("Every delayed job"), [prefix, batch, cut](const ActionRequest &r) {
            ScriptCall call = baseCall(r.object, QStringLiteral("queue.promote"),
                                       QStringLiteral("bullmq_promote"),
                                       {Meta, Wait, Active, Paused, Marker, Events, Prioritized,
                                        PriorityCounter, Delayed});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {prefix(r.object), job, batch, cut};
            if (!job.isEmpty()) {
                call.summary = QStringLiteral("Run delayed BullMQ job %1 of \"%2\" now, as "
                                              "BullMQ's promote does.")
                                   .arg(printableBytes(job, 80), printableBytes(r.object.key));
                call.meaning = [job](const RedisValue &v) {
                    return jobMeaning(v.toInteger(), job, QStringLiteral("was promoted to wait"),
                                      QStringLiteral("delayed"));
                };
            } else {
                call.summary = QStringLiteral("Run every delayed BullMQ job of \"%1\" now, soonest "
                                              "first, up to %2 per run.")
                                   .arg(printableBytes(r.object.key))
                                   .arg(Batch);
                call.batch = Batch;
                call.batchSummary = QStringLiteral("Promoted %1 jobs.");
                call.meaning = batchMeaning(QStringLiteral("Promoted %1 jobs."));
            }
            return call;
        });

    const QList<State> removeKeys{Meta,    Wait,      Active, Paused,          Prioritized,
                                  Delayed, Completed, Failed, WaitingChildren, Events};
    PatternAction remove = oneJobAction(
        QStringLiteral("remove"), QStringLiteral("Remove…"), QStringLiteral("removeButton"),
        [prefix, removeKeys](const ActionRequest &r) {
            ScriptCall call = baseCall(r.object, QStringLiteral("queue.remove"),
                                       QStringLiteral("bullmq_remove"), removeKeys);
            call.keys << keyOf(r.object, Failed);
            call.keyRoles << QStringLiteral("failed zset");
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {prefix(r.object), job, "0", "0", ""};
            call.summary = QStringLiteral("Remove BullMQ job %1 of \"%2\" and its keys, unless a "
                                          "worker holds its lock, as BullMQ's removeJob does.")
                               .arg(printableBytes(job, 80), printableBytes(r.object.key));
            call.meaning = [job](const RedisValue &v) {
                return jobMeaning(v.toInteger(), job, QStringLiteral("was removed"),
                                  QStringLiteral("in the queue"));
            };
            return call;
        });

    PatternAction clean = cleanAction([prefix, removeKeys, batch](const ActionRequest &r) {
        ScriptCall call = baseCall(r.object, QStringLiteral("queue.clean"),
                                   QStringLiteral("bullmq_remove"), removeKeys);
        call.keys << keyOf(r.object, cleansCompleted(r) ? Completed : Failed);
        call.keyRoles << QStringLiteral("cleaned zset");
        const bool count = r.has(QStringLiteral("count-only"));
        call.args = {prefix(r.object), QByteArray(),
                     QByteArray::number(r.integer(QStringLiteral("older-than"))), batch,
                     count ? QByteArray("count") : QByteArray()};
        finishClean(call, r, QStringLiteral("BullMQ"), QStringLiteral("as BullMQ's clean does"),
                    Batch);
        return call;
    });

    auto pausing = [](bool pause) {
        return pauseAction(pause, [pause](const ActionRequest &r) {
            ScriptCall call = baseCall(
                r.object, pause ? QStringLiteral("queue.pause") : QStringLiteral("queue.resume"),
                QStringLiteral("bullmq_pause"),
                {Meta, Wait, Paused, Prioritized, Delayed, Marker, Events});
            call.args = {pause ? "paused" : "resumed"};
            call.summary = pause ? QStringLiteral("Pause BullMQ queue \"%1\": workers take no new "
                                                  "job until it is resumed.")
                                       .arg(printableBytes(r.object.key))
                                 : QStringLiteral("Resume BullMQ queue \"%1\".")
                                       .arg(printableBytes(r.object.key));
            call.meaning = pauseMeaning(pause);
            return call;
        });
    };

    return requeueActions(requeue)
           + QList<PatternAction>{retry, promote, remove, clean, pausing(true), pausing(false)};
}

QStringList BullMqUnit::jobStates() const
{
    return {QStringLiteral("wait"),    QStringLiteral("active"),
            QStringLiteral("paused"),  QStringLiteral("prioritized"),
            QStringLiteral("delayed"), QStringLiteral("completed"),
            QStringLiteral("failed"),  QStringLiteral("waiting-children")};
}

JobStage BullMqUnit::stageOfState(const QString &state)
{
    if (state == QLatin1String("active"))
        return JobStage::InFlight;
    if (state == QLatin1String("failed"))
        return JobStage::Dead;
    if (state == QLatin1String("completed"))
        return JobStage::Finished;
    return JobStage::Waiting;
}

QList<JobVerb> BullMqUnit::failedSetVerbs(const QString &state)
{
    if (state != QLatin1String("failed"))
        return {};
    return {{JobVerb::Role::RequeueFromDead, QStringLiteral("queue.retry"), {}},
            {JobVerb::Role::Purge,
             QStringLiteral("queue.clean"),
             {{QStringLiteral("state"), QByteArrayLiteral("failed")}}}};
}

JobStage BullMqUnit::jobStage(const QString &state) const
{
    return stageOfState(state);
}

QList<JobVerb> BullMqUnit::jobVerbs(const QString &state) const
{
    return failedSetVerbs(state);
}

namespace {

// The failed reason shown in a page: a short one whole, a long one by size.
constexpr qint64 ReasonCutBytes = 512;

JobRead jobRows(const PatternObject &o, JobListing page, QList<QByteArray> ids,
                const QByteArray &attemptsField)
{
    JobRead read;
    const QByteArray prefix = o.key + ':';
    for (const QByteArray &id : ids) {
        read.commands.append({"HMGET", prefix + id, "name", "timestamp", "processedOn",
                              "finishedOn", attemptsField});
        read.commands.append({"HSTRLEN", prefix + id, "failedReason"});
    }
    read.next = [o, page, ids, prefix](const QList<RedisValue> &r) mutable {
        QList<QByteArray> shortReasons;
        for (qsizetype i = 0; i < ids.size() && 2 * i + 1 < r.size(); ++i) {
            const RedisValue &f = r.at(2 * i);
            JobRow row;
            row.id = ids.at(i);
            if (f.size() == 5) {
                row.name = printableBytes(f.at(0).bytes().left(200), 80);
                const QByteArray at = page.state == QLatin1String("active") ? f.at(2).bytes()
                                      : page.state == QLatin1String("completed")
                                              || page.state == QLatin1String("failed")
                                          ? f.at(3).bytes()
                                          : f.at(1).bytes();
                bool ok = false;
                row.atMs = at.toLongLong(&ok);
                if (!ok)
                    row.atMs = -1;
                row.attempts = f.at(4).isNil() ? 0 : f.at(4).toInteger();
            } else {
                row.error = QStringLiteral("(job hash not readable)");
            }
            const qint64 reason = r.at(2 * i + 1).toInteger();
            if (reason > ReasonCutBytes)
                row.error = QStringLiteral("(%1 bytes; see the job's detail)").arg(reason);
            else if (reason > 0)
                shortReasons << row.id;
            page.rows.append(row);
        }
        if (shortReasons.isEmpty())
            return JobRead::done(page);
        JobRead reasons;
        for (const QByteArray &id : shortReasons)
            reasons.commands.append({"HGET", prefix + id, "failedReason"});
        reasons.next = [page, shortReasons](const QList<RedisValue> &rr) mutable {
            for (qsizetype i = 0; i < shortReasons.size() && i < rr.size(); ++i) {
                for (JobRow &row : page.rows) {
                    if (row.id == shortReasons.at(i))
                        row.error = printableBytes(rr.at(i).bytes().left(ReasonCutBytes), 200);
                }
            }
            return JobRead::done(page);
        };
        return reasons;
    };
    return read;
}

} // namespace

JobRead BullMqUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                            int count) const
{
    int s = -1;
    for (int i = 0; i < KeyCount; ++i) {
        if (state == QLatin1String(Suffixes[i]))
            s = i;
    }
    if (s < 0 || !jobStates().contains(state))
        return {};
    return listJobs(o, state, keyOf(o, State(s)), QByteArray(Types[s]) == "list",
                    s == Completed || s == Failed, offset, count, "atm");
}

JobRead BullMqUnit::listJobs(const PatternObject &o, const QString &state, const QByteArray &key,
                             bool isList, bool newestFirst, qint64 offset, int count,
                             const QByteArray &attemptsField)
{
    if (count <= 0 || offset < 0)
        return {};
    const QByteArray from = QByteArray::number(offset);
    const QByteArray to = QByteArray::number(offset + count - 1);
    // Lists: the newest first (both libraries push at the left). Finished
    // sets: the most recent first; delayed and prioritized: the next first.
    JobRead read;
    read.commands = {{isList ? "LLEN" : "ZCARD", key},
                     isList        ? QList<QByteArray>{"LRANGE", key, from, to}
                     : newestFirst ? QList<QByteArray>{"ZRANGE", key, from, to, "REV"}
                                   : QList<QByteArray>{"ZRANGE", key, from, to}};
    read.next = [o, state, offset, attemptsField](const QList<RedisValue> &r) {
        JobListing page;
        page.state = state;
        page.offset = offset;
        if (r.size() != 2 || r.at(0).isError() || r.at(1).isError()) {
            page.ok = false;
            page.message
                = QStringLiteral("Cannot list the %1 jobs: %2")
                      .arg(state, r.size() == 2 && r.at(1).isError() ? r.at(1).errorMessage()
                                                                     : r.value(0).errorMessage());
            return JobRead::done(page);
        }
        page.total = r.at(0).toInteger();
        QList<QByteArray> ids;
        for (const RedisValue &v : r.at(1).elements()) {
            if (!v.bytes().startsWith("0:")) // BullMQ 5's marker in a list
                ids << v.bytes();
        }
        if (ids.isEmpty())
            return JobRead::done(page);
        return jobRows(o, page, ids, attemptsField);
    };
    return read;
}

JobRead BullMqUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    return readJob(o, job,
                   {"name", "timestamp", "processedOn", "finishedOn", "atm", "ats", "stc", "delay",
                    "priority", "pb", "parentKey", "rjk"});
}

JobRead BullMqUnit::readJob(const PatternObject &o, const QByteArray &job,
                            const QList<QByteArray> &small)
{
    static const QList<QByteArray> large{"data",         "opts",       "returnvalue",
                                         "failedReason", "stacktrace", "progress"};
    const QByteArray key = o.key + ':' + job;
    JobRead read;
    read.commands.append({"TYPE", key});
    read.commands.append(QList<QByteArray>{"HMGET", key} + small);
    for (const QByteArray &f : large)
        read.commands.append({"HSTRLEN", key, f});
    read.next = [key, job, small](const QList<RedisValue> &r) {
        JobListing detail;
        detail.job = job;
        if (r.size() != 2 + large.size() || r.at(0).bytes() != "hash") {
            detail.ok = false;
            detail.message = r.value(0).isError()
                                 ? r.value(0).errorMessage()
                                 : QStringLiteral("Job %1 is gone (finished and removed, or "
                                                  "cleaned).")
                                       .arg(printableBytes(job, 80));
            return JobRead::done(detail);
        }
        QJsonObject json{{QStringLiteral("id"), keyToJson(job)}};
        const RedisValue &f = r.at(1);
        for (qsizetype i = 0; i < small.size() && i < f.size(); ++i) {
            if (!f.at(i).isNil())
                json.insert(QString::fromLatin1(small.at(i)),
                            QString::fromUtf8(f.at(i).bytes().left(1024)));
        }
        QList<QByteArray> readable;
        QStringList cut;
        for (qsizetype i = 0; i < large.size(); ++i) {
            const qint64 n = r.at(2 + i).toInteger();
            if (n > JobFieldCutBytes) {
                json.insert(QString::fromLatin1(large.at(i)),
                            QStringLiteral("(%1 bytes: over the %2 KiB cut, not read)")
                                .arg(n)
                                .arg(JobFieldCutBytes / 1024));
                cut << QString::fromLatin1(large.at(i));
            } else if (n > 0) {
                readable << large.at(i);
            }
        }
        auto finish = [json, cut, detail](const QList<QByteArray> &names,
                                          const QList<RedisValue> &values) mutable {
            for (qsizetype i = 0; i < names.size() && i < values.size(); ++i) {
                const QByteArray v = values.at(i).bytes();
                // JSON of any kind ("ok" and 42 too, wrapped to parse);
                // anything else as text.
                QJsonParseError error;
                const QJsonDocument doc = QJsonDocument::fromJson('[' + v + ']', &error);
                QJsonValue value = QString::fromUtf8(v);
                if (error.error == QJsonParseError::NoError && doc.array().size() == 1)
                    value = doc.array().first();
                json.insert(QString::fromLatin1(names.at(i)), value);
                if (names.at(i) == "data" || names.at(i) == "opts"
                    || names.at(i) == "returnvalue") {
                    JobPayload payload;
                    payload.field = QString::fromLatin1(names.at(i));
                    payload.bytes = v;
                    payload.size = v.size();
                    detail.payloads.append(payload);
                }
            }
            detail.detail = QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
            if (!cut.isEmpty())
                detail.message = QStringLiteral("Not read (over %1 KiB): %2.")
                                     .arg(JobFieldCutBytes / 1024)
                                     .arg(cut.join(QStringLiteral(", ")));
            return JobRead::done(detail);
        };
        if (readable.isEmpty())
            return finish({}, {});
        JobRead values;
        values.commands.append(QList<QByteArray>{"HMGET", key} + readable);
        values.next = [finish, readable](const QList<RedisValue> &v) mutable {
            return finish(readable, v.value(0).elements());
        };
        return values;
    };
    return read;
}

} // namespace gatehouse
