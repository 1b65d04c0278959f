// SPDX-License-Identifier: MIT
#include "bullunit.h"

#include <patterns/bullmq/bullmqunit.h>
#include <patterns/globmatch.h>
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
    return {{"TYPE", target + ":id"}, {"TYPE", target + ":meta"}};
}

bool BullUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    return r.size() == 2 && r.at(0).bytes() == "string" && r.at(1).bytes() != "hash";
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

ReplyMeaning bullJob(qint64 reply, const QByteArray &job, const QString &did, const QString &state)
{
    const QString name = printableBytes(job, 80);
    switch (reply) {
    case 1:
        return {true, QStringLiteral("Job %1 %2.").arg(name, did)};
    case 0:
        return {
            false,
            QStringLiteral("Job %1 is not %2 (it moved on); nothing changed.").arg(name, state)};
    case -1:
        return {false, QStringLiteral("Job %1 is locked: a worker is running it; nothing "
                                      "changed.")
                           .arg(name)};
    case -2:
        return {false,
                QStringLiteral("There is no job %1 in this queue; nothing changed.").arg(name)};
    default:
        return {
            false,
            QStringLiteral("Unexpected reply %1; nothing is known to have changed.").arg(reply)};
    }
}

std::function<ReplyMeaning(const RedisValue &)> bullBatch(const QString &did)
{
    return [did](const RedisValue &reply) {
        const qint64 n = reply.size() >= 2 ? reply.at(1).toInteger() : 0;
        return ReplyMeaning{n > 0,
                            n > 0 ? did.arg(n) : QStringLiteral("Nothing to do; nothing changed.")};
    };
}

} // namespace

QList<PatternAction> BullUnit::actions() const
{
    constexpr int Batch = 100;
    const QByteArray batch = QByteArray::number(Batch);
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    ActionInput job{QStringLiteral("job"), QStringLiteral("Job id"), ActionInput::Source::Item};
    job.required = false;
    auto flag = [](const QString &id, const QString &label) {
        ActionInput f{id, label, ActionInput::Source::Flag};
        f.required = false;
        return f;
    };
    auto oneOf = [](const ActionRequest &r, const QString &verb, const QString &all) {
        if (r.input(QStringLiteral("job")).isEmpty() == !r.has(all))
            return QStringLiteral("queue %1 needs either --job ID or --%2.").arg(verb, all);
        return QString();
    };

    PatternAction requeue;
    requeue.id = QStringLiteral("queue.requeue");
    requeue.verb = QStringLiteral("requeue");
    requeue.label = QStringLiteral("Requeue…");
    requeue.objectName = QStringLiteral("requeueButton");
    requeue.usage = QStringLiteral("queue requeue QUEUE (--job ID | --stuck)");
    requeue.inputs = {job, flag(QStringLiteral("stuck"), QStringLiteral("Every stalled job"))};
    requeue.check = [oneOf](const ActionRequest &r) {
        if (r.has(QStringLiteral("older-than")))
            return QStringLiteral("A Bull job is stalled when its lock is gone, whatever its "
                                  "age: queue requeue takes no --older-than for a Bull queue.");
        return oneOf(r, QStringLiteral("requeue"), QStringLiteral("stuck"));
    };
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
                return bullJob(v.toInteger(), id, QStringLiteral("was requeued to wait"),
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
            call.meaning = bullBatch(QStringLiteral("Requeued %1 stalled jobs."));
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

    PatternAction retry;
    retry.id = QStringLiteral("queue.retry");
    retry.verb = QStringLiteral("retry");
    retry.label = QStringLiteral("Retry…");
    retry.objectName = QStringLiteral("retryButton");
    retry.usage = QStringLiteral("queue retry QUEUE (--job ID | --all) [--completed]");
    retry.inputs = {job, flag(QStringLiteral("all"), QStringLiteral("Every failed job")),
                    flag(QStringLiteral("completed"), QStringLiteral("From completed"))};
    retry.inputs[2].console = false;
    retry.check = [oneOf](const ActionRequest &r) {
        return oneOf(r, QStringLiteral("retry"), QStringLiteral("all"));
    };
    retry.build = [batch, cut](const ActionRequest &r) {
        const bool completed = r.has(QStringLiteral("completed"));
        const QString state = completed ? QStringLiteral("completed") : QStringLiteral("failed");
        ScriptCall call
            = bullCall(r.object, QStringLiteral("queue.retry"), QStringLiteral("bull_retry"),
                       {Wait, Paused, MetaPaused, completed ? Completed : Failed});
        const QByteArray id = r.input(QStringLiteral("job"));
        call.args = {r.object.key + ':', id, batch, cut};
        if (!id.isEmpty()) {
            call.summary = QStringLiteral("Retry Bull job %1 of \"%2\": from %3 back to wait, as "
                                          "Bull's Job#retry does.")
                               .arg(printableBytes(id, 80), printableBytes(r.object.key), state);
            call.meaning = [id, state](const RedisValue &v) {
                return bullJob(v.toInteger(), id, QStringLiteral("was moved back to wait"), state);
            };
        } else {
            call.summary = QStringLiteral("Retry every %1 Bull job of \"%2\", oldest first, up to "
                                          "%3 per run.")
                               .arg(state, printableBytes(r.object.key))
                               .arg(Batch);
            call.batch = Batch;
            call.batchSummary = QStringLiteral("Retried %1 jobs.");
            call.meaning = bullBatch(QStringLiteral("Retried %1 jobs."));
        }
        return call;
    };
    return {requeue, stuckAll, retry};
}

QStringList BullUnit::jobStates() const
{
    QStringList states;
    for (int s = 0; s < CountedStates; ++s)
        states << QString::fromLatin1(Suffixes[s]);
    return states;
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
    return {
        {QStringLiteral("length"), QStringLiteral("Waiting"), false,
         [](const Reading &r, qint64) {
             return double(r.length);
         }},
        {QStringLiteral("inFlight"), QStringLiteral("Active"), false,
         [](const Reading &r, qint64) {
             return double(r.inFlight);
         }},
        {QStringLiteral("stuck"), QStringLiteral("Stalled"), false, [](const Reading &r, qint64) {
             return double(r.stuck);
         }}};
}

QList<Column> BullUnit::columns() const
{
    return {Column::key(QStringLiteral("Queue")),
            Column::library(QStringLiteral("bull")),
            Column::count(QStringLiteral("Length"), &Reading::length),
            Column::count(QStringLiteral("In flight"), &Reading::inFlight),
            Column::age(QStringLiteral("Oldest in flight"), &Reading::oldestInFlightAgeMs),
            Column::count(QStringLiteral("Stuck"), &Reading::stuck),
            Column::count(QStringLiteral("Dead"), &Reading::deadLength),
            Column::counts(),
            Column::status()};
}

void BullUnit::writeJson(const ObjectState &s, const Reading &r, qint64, QJsonObject &j) const
{
    j.insert(QStringLiteral("keys"), keysToJson(s.object.related));
    j.insert(QStringLiteral("length"), double(r.length));
    j.insert(QStringLiteral("inFlight"), double(r.inFlight));
    j.insert(QStringLiteral("deadLength"), double(r.deadLength));
    j.insert(QStringLiteral("stuckCount"), double(r.stuck));
    j.insert(QStringLiteral("stuckIsLowerBound"), r.stuckIsLowerBound);
    j.insert(QStringLiteral("oldestInFlightAgeMs"), double(r.oldestInFlightAgeMs));
    j.insert(QStringLiteral("truncated"), r.truncated);
}

QStringList BullUnit::itemHeaders() const
{
    return {QStringLiteral("Active job"), QStringLiteral("Name"), QStringLiteral("Age"),
            QStringLiteral("Attempts"), QStringLiteral("Lock")};
}

QList<QStringList> BullUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.items)
        rows.append({printableBytes(item.job, 120), printableBytes(item.name, 80),
                     formatMs(s.reading.ageAt(item.ageMs, nowMs)), QString::number(item.attempts),
                     item.locked ? QStringLiteral("held") : QStringLiteral("none: stalled")});
    return rows;
}

std::optional<Attention> BullUnit::attention(const ObjectState &state, qint64) const
{
    if (state.gone || state.reading.stuck <= 0)
        return std::nullopt;
    return Attention{2.0 + double(state.reading.stuck), QStringLiteral("inFlight")};
}

QString BullUnit::attentionText(const ObjectState &state, qint64) const
{
    return QStringLiteral("Bull queue %1: %2 stalled (active without a lock)")
        .arg(printableBytes(state.object.key))
        .arg(state.reading.stuck);
}

} // namespace gatehouse
