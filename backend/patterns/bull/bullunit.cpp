// SPDX-License-Identifier: MIT
#include "bullunit.h"

#include <patterns/bullmq/bullmqunit.h>
#include <patterns/globmatch.h>
#include <patterns/libraryqueue.h>
#include <patterns/matchcounter.h>
#include <patterns/sections.h>

#include <algorithm>

namespace gatehouse {

namespace {

constexpr const char *Suffixes[]
    = {"wait",   "active",  "paused",        "priority", "delayed",    "completed",
       "failed", "stalled", "stalled-check", "id",       "meta-paused"};
constexpr const char *Types[]
    = {"list", "list", "list", "zset", "zset", "zset", "zset", "set", "string", "string", "string"};
constexpr int CountedStates = 7; // wait .. failed: Bull's own state names

int stateOfKey(const QByteArray &key, const QByteArray &type)
{
    const qsizetype colon = key.lastIndexOf(':');
    if (colon <= 0)
        return -1;
    const QByteArray last = key.mid(colon + 1);
    for (int s = 0; s < BullUnit::KeyCount; ++s) {
        if (last == Suffixes[s])
            return type.isEmpty() || type == Types[s] ? s : -1;
    }
    return -1;
}

QByteArray baseOf(const QByteArray &key)
{
    return stateOfKey(key, {}) < 0 ? QByteArray() : key.left(key.lastIndexOf(':'));
}

} // namespace

QByteArray BullUnit::keyOf(const PatternObject &o, State s)
{
    const QByteArray k = o.relatedKey(s);
    return k.isEmpty() ? o.key + ':' + Suffixes[s] : k;
}

PatternObject BullUnit::objectForBase(const QByteArray &base)
{
    PatternObject o;
    o.kind = Kind;
    o.key = base;
    for (int s = 0; s < KeyCount; ++s)
        o.related << base + ':' + Suffixes[s];
    return o;
}

Section BullUnit::section() const
{
    return sections::queue();
}

QList<PatternUnit::Command> BullUnit::identifyProbe(const QByteArray &target) const
{
    return {
        {"TYPE", target + ":id"}, {"TYPE", target + ":meta"}, {"TYPE", target + ":meta-paused"}};
}

bool BullUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    // No BullMQ meta hash; or the one Bull's own pause writes beside its
    // "meta-paused".
    return r.size() == 3 && r.at(0).bytes() == "string"
           && (r.at(1).bytes() != "hash" || r.at(2).bytes() == "string");
}

QList<QByteArray> BullUnit::scanGlobs(const ProfileRule &rule) const
{
    return {rule.match + ":id"};
}

std::optional<PatternObject> BullUnit::objectFor(const ProfileRule &rule,
                                                 const QByteArray &key) const
{
    const QByteArray base = baseOf(key);
    if (base.isEmpty() || !globMatch(rule.match, base) || rule.excludes(base))
        return std::nullopt;
    PatternObject o = objectForBase(base);
    o.params = rule.params;
    return o;
}

bool BullUnit::ownsKey(const PatternObject &o, const QByteArray &key) const
{
    return (key.size() > o.key.size() + 1 && key.startsWith(o.key) && key.at(o.key.size()) == ':')
           || PatternUnit::ownsKey(o, key);
}

PatternObject BullUnit::conventionalObject(const QByteArray &key) const
{
    return objectForBase(key);
}

std::optional<KeyClaim> BullUnit::claimKey(const KeyShape &shape, qint64) const
{
    const int s = stateOfKey(shape.key, shape.type);
    if (s < 0)
        return std::nullopt;
    return KeyClaim{QString::fromLatin1(Suffixes[s]), s == Id || s == MetaPaused ? 25 : 9};
}

QList<PatternObject> BullUnit::groupClaims(ClaimPool &pool) const
{
    // A base with Bull's id counter and another of its names (BullMQ's
    // queues, which group first, are gone from the pool by now).
    QMap<QByteArray, std::pair<int, bool>> bases;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (pool.roleOf(key, Kind).isEmpty())
            continue;
        auto &b = bases[key.left(key.lastIndexOf(':'))];
        ++b.first;
        b.second = b.second || stateOfKey(key, pool.find(key)->shape.type) == Id;
    }
    QList<PatternObject> out;
    for (auto it = bases.cbegin(); it != bases.cend(); ++it) {
        if (it->first < 2 || !it->second)
            continue;
        PatternObject o = objectForBase(it.key());
        o.source = QStringLiteral("autodetected");
        for (const QByteArray &key : pool.under(it.key() + ':'))
            pool.take(key);
        out.append(o);
    }
    return out;
}

QList<PatternUnit::Command> BullUnit::probe(const PatternObject &o, const ProbeContext &) const
{
    const QByteArray page = number(std::max(1, o.params.pageSize));
    QList<Command> cmds;
    for (int s = 0; s < CountedStates; ++s)
        cmds.append({QByteArray(Types[s]) == "list" ? "LLEN" : "ZCARD", keyOf(o, State(s))});
    cmds.append({"EXISTS", keyOf(o, MetaPaused)});
    cmds.append({"EXISTS", keyOf(o, Id)});
    if (!o.key.contains('*') && !o.key.contains("->"))
        cmds.append({"SORT_RO", keyOf(o, Active), "BY", "nosort", "LIMIT", "0", page, "GET", "#",
                     "GET", o.key + ":*:lock", "GET", o.key + ":*->processedOn", "GET",
                     o.key + ":*->name", "GET", o.key + ":*->attemptsMade"});
    return cmds;
}

Reading BullUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                       const ProbeContext &c) const
{
    QList<QByteArray> replyKeys;
    for (int s = 0; s < CountedStates; ++s)
        replyKeys << keyOf(o, State(s));
    replyKeys << keyOf(o, MetaPaused) << keyOf(o, Id);
    QList<QByteArray> allKeys = replyKeys;
    const bool sorts = !o.key.contains('*') && !o.key.contains("->");
    if (sorts)
        allKeys << keyOf(o, Active);
    if (r.size() < allKeys.size()) {
        if (auto f = failure(o, r, allKeys, c.nowMs))
            return *f;
    }
    if (auto f = failure(o, r.mid(0, replyKeys.size()), replyKeys, c.nowMs))
        return *f;
    Reading reading;
    reading.atMs = c.nowMs;
    qint64 total = 0;
    for (int s = 0; s < CountedStates; ++s) {
        reading.counts.append({QString::fromLatin1(Suffixes[s]), r.at(s).toInteger()});
        total = saturatingAdd(total, r.at(s).toInteger()); // sizes from replies (fuzz_patternread)
    }
    const bool metaPaused = r.at(CountedStates).toInteger() == 1;
    if (total == 0 && !metaPaused && r.at(CountedStates + 1).toInteger() == 0) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No Bull keys under \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    // Bull keeps a prioritised job's id in wait too: queued is wait + paused.
    reading.length = saturatingAdd(reading.countOf(u"wait"), reading.countOf(u"paused"));
    reading.inFlight = reading.countOf(u"active");
    reading.deadLength = reading.countOf(u"failed");
    reading.paused = metaPaused;
    if (sorts && r.size() > CountedStates + 2 && !r.at(CountedStates + 2).isError()) {
        const auto &e = r.at(CountedStates + 2).elements();
        for (qsizetype i = 0; i + 4 < e.size(); i += 5) {
            InFlightItem item;
            item.job = e.at(i).bytes();
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
                        {item.job,
                         QStringLiteral("active without a lock: its worker died or stopped "
                                        "renewing it"),
                         ok ? processedOn : -1});
            }
            reading.oldestInFlightAgeMs = std::max(reading.oldestInFlightAgeMs, item.ageMs);
            reading.items.append(item);
        }
        reading.truncated = reading.inFlight > reading.items.size();
        reading.stuckIsLowerBound = reading.truncated;
    } else {
        reading.stuckIsLowerBound = true;
    }
    return reading;
}

namespace {

ScriptCall bullCall(const PatternObject &o, const QString &action, const QString &script,
                    const QList<BullUnit::State> &keys)
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (BullUnit::State s : keys) {
        call.keys << BullUnit::keyOf(o, s);
        call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(Suffixes[s]),
                                                     QString::fromLatin1(Types[s]));
    }
    return call;
}

// Keys Bull's scripts take that are no state of the queue: the "meta" hash
// Bull's pause writes for BullMQ's sake, and the rate limiter's index.
void addKey(ScriptCall &call, const PatternObject &o, const char *suffix, const char *type)
{
    call.keys << o.key + ':' + suffix;
    call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(suffix),
                                                 QString::fromLatin1(type));
}

} // namespace

namespace {

// bull_clean (KEYS[1] the cleaned ZSET, ARGV[2] grace ms, ARGV[3] batch):
// the finished jobs scored before the cut-off; a count-only run is not
// counted.
[[maybe_unused]] const bool s_cleanCounted = MatchCounter::add(
    QStringLiteral("bull_clean"),
    MatchCounter::scoredBefore(QStringLiteral("queue.clean"), 0, 1, 2,
                               QStringLiteral("locked ones are left; up to %1 will be removed")));

// bull_promote with no job (KEYS[1] delayed ZSET, ARGV[3] batch): every
// delayed job.
[[maybe_unused]] const bool s_promoteCounted = MatchCounter::add(
    QStringLiteral("bull_promote"), MatchCounter::wholeSet(0, 1, 2, QStringLiteral("promoted")));

// bull_retry with no job (KEYS[4] the finished ZSET, ARGV[3] batch): every
// failed (or completed) job.
[[maybe_unused]] const bool s_retryCounted = MatchCounter::add(
    QStringLiteral("bull_retry"), MatchCounter::wholeSet(3, 1, 2, QStringLiteral("retried")));

} // namespace

QList<PatternAction> BullUnit::actions() const
{
    using namespace libraryqueue;
    constexpr int Batch = 100;
    const QByteArray batch = QByteArray::number(Batch);
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);

    RequeueSpec requeue;
    requeue.stuckLabel = QStringLiteral("Every stalled job");
    requeue.olderThanRefusal
        = QStringLiteral("A Bull job is stalled when its lock is gone, whatever its age: queue "
                         "requeue takes no --older-than for a Bull queue.");
    requeue.build = [batch, cut](const ActionRequest &r) {
        ScriptCall call
            = bullCall(r.object, QStringLiteral("queue.requeue"), QStringLiteral("bull_requeue"),
                       {Wait, Active, Paused, MetaPaused, Stalled});
        const QByteArray id = r.input(QStringLiteral("job"));
        call.args = {r.object.key + ':', id, batch, cut};
        if (!id.isEmpty()) {
            call.summary = QStringLiteral("Move Bull job %1 of \"%2\" from active back to wait, "
                                          "only if its lock is gone (stalled), as Bull's stall "
                                          "check does.")
                               .arg(printableBytes(id, 80), printableBytes(r.object.key));
            call.meaning = [id](const RedisValue &v) {
                return BullMqUnit::jobMeaning(v.toInteger(), id,
                                              QStringLiteral("was requeued to wait"),
                                              QStringLiteral("active"));
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Move every stalled Bull job of \"%1\" (active without "
                                          "a lock) back to wait, up to %2 per run, as Bull's "
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
        QStringLiteral("Every failed job"), [batch, cut](const ActionRequest &r) {
            const bool completed = r.has(QStringLiteral("completed"));
            const QString state
                = completed ? QStringLiteral("completed") : QStringLiteral("failed");
            ScriptCall call
                = bullCall(r.object, QStringLiteral("queue.retry"), QStringLiteral("bull_retry"),
                           {Wait, Paused, MetaPaused, completed ? Completed : Failed});
            const QByteArray id = r.input(QStringLiteral("job"));
            call.args = {r.object.key + ':', id, batch, cut};
            if (!id.isEmpty()) {
                call.summary
                    = QStringLiteral("Retry Bull job %1 of \"%2\": from %3 back to wait, "
                                     "as Bull's Job#retry does.")
                          .arg(printableBytes(id, 80), printableBytes(r.object.key), state);
                call.meaning = [id, state](const RedisValue &v) {
                    return BullMqUnit::jobMeaning(v.toInteger(), id,
                                                  QStringLiteral("was moved back to wait"), state);
                };
            } else {
                call.summary = QStringLiteral("Retry every %1 Bull job of \"%2\", oldest first, up "
                                              "to %3 per run.")
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
        QStringLiteral("Every delayed job"), [batch, cut](const ActionRequest &r) {
            ScriptCall call = bullCall(r.object, QStringLiteral("queue.promote"),
                                       QStringLiteral("bull_promote"),
                                       {Delayed, Wait, Paused, MetaPaused, Priority});
            const QByteArray id = r.input(QStringLiteral("job"));
            call.args = {r.object.key + ':', id, batch, cut};
            if (!id.isEmpty()) {
                call.summary = QStringLiteral("Run delayed Bull job %1 of \"%2\" now, as Bull's "
                                              "Job#promote does.")
                                   .arg(printableBytes(id, 80), printableBytes(r.object.key));
                call.meaning = [id](const RedisValue &v) {
                    return BullMqUnit::jobMeaning(v.toInteger(), id,
                                                  QStringLiteral("was promoted to wait"),
                                                  QStringLiteral("delayed"));
                };
            } else {
                call.summary = QStringLiteral("Run every delayed Bull job of \"%1\" now, soonest "
                                              "first, up to %2 per run, as Bull's Job#promote "
                                              "does for each.")
                                   .arg(printableBytes(r.object.key))
                                   .arg(Batch);
                call.batch = Batch;
                call.batchSummary = QStringLiteral("Promoted %1 jobs.");
                call.meaning = batchMeaning(QStringLiteral("Promoted %1 jobs."));
            }
            return call;
        });

    PatternAction remove = oneJobAction(
        QStringLiteral("remove"), QStringLiteral("Remove…"), QStringLiteral("removeButton"),
        [](const ActionRequest &r) {
            ScriptCall call
                = bullCall(r.object, QStringLiteral("queue.remove"), QStringLiteral("bull_remove"),
                           {Active, Wait, Delayed, Paused, Completed, Failed, Priority});
            addKey(call, r.object, "limiter:index", "hash");
            const QByteArray id = r.input(QStringLiteral("job"));
            call.args = {r.object.key + ':', id};
            call.summary = QStringLiteral("Remove Bull job %1 of \"%2\" and its keys, unless a "
                                          "worker holds its lock, as Bull's Job#remove does.")
                               .arg(printableBytes(id, 80), printableBytes(r.object.key));
            call.meaning = [id](const RedisValue &v) {
                return BullMqUnit::jobMeaning(v.toInteger(), id, QStringLiteral("was removed"),
                                              QStringLiteral("in the queue"));
            };
            return call;
        });

    PatternAction clean = cleanAction([batch](const ActionRequest &r) {
        ScriptCall call
            = bullCall(r.object, QStringLiteral("queue.clean"), QStringLiteral("bull_clean"),
                       {cleansCompleted(r) ? Completed : Failed, Priority});
        addKey(call, r.object, "limiter:index", "hash");
        const bool count = r.has(QStringLiteral("count-only"));
        call.args
            = {r.object.key + ':', QByteArray::number(r.integer(QStringLiteral("older-than"))),
               batch, count ? QByteArray("count") : QByteArray()};
        finishClean(call, r, QStringLiteral("Bull"), QStringLiteral("as Bull's Queue#clean does"),
                    Batch);
        return call;
    });

    auto pausing = [](bool pause) {
        return pauseAction(pause, [pause](const ActionRequest &r) {
            ScriptCall call = bullCall(
                r.object, pause ? QStringLiteral("queue.pause") : QStringLiteral("queue.resume"),
                QStringLiteral("bull_pause"), {Wait, Paused, MetaPaused});
            addKey(call, r.object, "meta", "hash");
            call.args = {pause ? "paused" : "resumed", r.object.key + ':'};
            call.summary = pause ? QStringLiteral("Pause Bull queue \"%1\" globally: its wait "
                                                  "list becomes paused and workers take no new "
                                                  "job until it is resumed, as Bull's "
                                                  "Queue#pause does.")
                                       .arg(printableBytes(r.object.key))
                                 : QStringLiteral("Resume Bull queue \"%1\", as Bull's "
                                                  "Queue#resume does.")
                                       .arg(printableBytes(r.object.key));
            const auto meaning = pauseMeaning(pause);
            call.meaning = [meaning](const RedisValue &v) {
                if (v.toInteger() == -3)
                    return ReplyMeaning{false, QStringLiteral("Both the wait and the paused list "
                                                              "hold jobs: Bull's RENAME would "
                                                              "drop one of them; nothing "
                                                              "changed.")};
                return meaning(v);
            };
            return call;
        });
    };

    return requeueActions(requeue)
           + QList<PatternAction>{retry, promote, remove, clean, pausing(true), pausing(false)};
}

QStringList BullUnit::jobStates() const
{
    QStringList states;
    for (int s = 0; s < CountedStates; ++s)
        states << QString::fromLatin1(Suffixes[s]);
    return states;
}

JobStage BullUnit::jobStage(const QString &state) const
{
    return BullMqUnit::stageOfState(state); // the same states, the same stages
}

QList<JobVerb> BullUnit::jobVerbs(const QString &state) const
{
    return BullMqUnit::failedSetVerbs(state);
}

JobRead BullUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                          int count) const
{
    const int s = int(jobStates().indexOf(state));
    if (s < 0)
        return {};
    return BullMqUnit::listJobs(o, state, keyOf(o, State(s)), QByteArray(Types[s]) == "list",
                                s == Completed || s == Failed, offset, count, "attemptsMade");
}

JobRead BullUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    return BullMqUnit::readJob(o, job,
                               {"name", "timestamp", "processedOn", "finishedOn", "attemptsMade",
                                "stalledCounter", "delay", "priority", "retriedOn"});
}

QList<Figure> BullUnit::figures() const
{
    return {{QStringLiteral("length"), QStringLiteral("Waiting"), false,
             [](const Reading &r, qint64) {
                 return double(r.length);
             }},
            {QStringLiteral("inFlight"), QStringLiteral("Active"), false,
             [](const Reading &r, qint64) {
                 return double(r.inFlight);
             }},
            {QStringLiteral("stuck"), QStringLiteral("Stalled"), false,
             [](const Reading &r, qint64) {
                 return double(r.stuck);
             }},
            {QStringLiteral("completed"), QStringLiteral("Completed"), false,
             libraryqueue::countFigure(QStringLiteral("completed"))},
            {QStringLiteral("failed"), QStringLiteral("Failed"), false,
             libraryqueue::countFigure(QStringLiteral("failed"))}};
}

QList<Chart> BullUnit::charts() const
{
    return {{QStringLiteral("Over time"),
             QString(),
             {{QStringLiteral("length"), QStringLiteral("Waiting")},
              {QStringLiteral("inFlight"), QStringLiteral("Active")},
              {QStringLiteral("stuck"), QStringLiteral("Stalled")}}},
            libraryqueue::throughputChart(QStringLiteral("completed"), QStringLiteral("failed"))};
}

QList<Column> BullUnit::columns() const
{
    return libraryqueue::columns(QStringLiteral("bull"));
}

void BullUnit::writeJson(const ObjectState &s, const Reading &r, qint64, QJsonObject &j) const
{
    libraryqueue::writeJson(r, keysToJson(s.object.related), j);
}

QStringList BullUnit::itemHeaders() const
{
    return libraryqueue::activeJobHeaders();
}

QList<QStringList> BullUnit::items(const ObjectState &s, qint64 nowMs) const
{
    return libraryqueue::activeJobRows(s, nowMs);
}

QHash<QString, QByteArray> BullUnit::itemInputs(const ObjectState &s, int i) const
{
    return libraryqueue::itemJob(s, i);
}

std::optional<Attention> BullUnit::attention(const ObjectState &state, qint64) const
{
    return libraryqueue::stuckAttention(state, QStringLiteral("inFlight"));
}

QString BullUnit::attentionText(const ObjectState &state, qint64) const
{
    return QStringLiteral("Bull queue %1: %2 stalled (active without a lock)")
        .arg(printableBytes(state.object.key))
        .arg(state.reading.stuck);
}

} // namespace gatehouse
