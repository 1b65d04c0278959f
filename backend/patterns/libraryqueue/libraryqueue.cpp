// SPDX-License-Identifier: MIT
#include "libraryqueue.h"

#include <QJsonDocument>
#include <patterns/countedsentence.h>
#include <redis/printabletext.h>

#include <algorithm>

namespace gatehouse::libraryqueue {

ActionInput jobInput(bool required, const QString &label)
{
    ActionInput job{QStringLiteral("job"), label, ActionInput::Source::Item};
    job.required = required;
    return job;
}

ActionInput flag(const QString &id, const QString &label)
{
    ActionInput f{id, label, ActionInput::Source::Flag};
    f.required = false;
    return f;
}

ActionInput optionalInput(const QString &id, const QString &label)
{
    ActionInput in{id, label};
    in.required = false;
    return in;
}

QString oneOf(const ActionRequest &r, const QString &verb, const QString &all,
              const QString &jobValue)
{
    if (r.input(QStringLiteral("job")).isEmpty() == !r.has(all))
        return QStringLiteral("queue %1 needs either --job %2 or --%3.").arg(verb, jobValue, all);
    return {};
}

QList<PatternAction> requeueActions(const RequeueSpec &spec)
{
    PatternAction requeue;
    requeue.id = QStringLiteral("queue.requeue");
    requeue.verb = QStringLiteral("requeue");
    requeue.label = QStringLiteral("Requeue…");
    requeue.objectName = QStringLiteral("requeueButton");
    requeue.usage = QStringLiteral("queue requeue QUEUE (--job %1 | --stuck)").arg(spec.jobValue);
    // --older-than is the reliable queue's (requeue what was claimed that
    // long ago); a library says when its jobs are stuck, so it is refused.
    ActionInput olderThan{QStringLiteral("older-than"), QStringLiteral("(reliable queues only)")};
    olderThan.required = false;
    olderThan.integer = true;
    olderThan.console = false;
    requeue.inputs = {jobInput(false, spec.jobLabel),
                      flag(QStringLiteral("stuck"), spec.stuckLabel), olderThan};
    requeue.check = [refusal = spec.olderThanRefusal,
                     jobValue = spec.jobValue](const ActionRequest &r) -> QString {
        if (r.has(QStringLiteral("older-than")))
            return refusal;
        return oneOf(r, QStringLiteral("requeue"), QStringLiteral("stuck"), jobValue);
    };
    requeue.build = spec.build;

    PatternAction stuckAll = requeue;
    stuckAll.id = QStringLiteral("queue.requeue-stuck");
    stuckAll.verb.clear();
    stuckAll.usage.clear();
    stuckAll.label = QStringLiteral("Requeue all stuck…");
    stuckAll.objectName = QStringLiteral("requeueStuckButton");
    stuckAll.consoleOnly = true;
    stuckAll.inputs = {};
    stuckAll.check = {};
    stuckAll.build = [build = spec.build](const ActionRequest &r) {
        ActionRequest all = r;
        all.inputs = {{QStringLiteral("stuck"), QByteArray()}};
        return build(all);
    };
    return {requeue, stuckAll};
}

PatternAction jobOrAllAction(const QString &verb, const QString &label, const QString &all,
                             const QString &allLabel,
                             std::function<ScriptCall(const ActionRequest &)> build)
{
    PatternAction a;
    a.id = QStringLiteral("queue.") + verb;
    a.verb = verb;
    a.label = label;
    a.objectName = verb + QStringLiteral("Button");
    a.usage = QStringLiteral("queue %1 QUEUE (--job ID | --%2)").arg(verb, all);
    a.inputs = {jobInput(false), flag(all, allLabel)};
    a.check = [verb, all](const ActionRequest &r) {
        return oneOf(r, verb, all);
    };
    a.build = std::move(build);
    return a;
}

PatternAction oneJobAction(const QString &verb, const QString &label, const QString &objectName,
                           std::function<ScriptCall(const ActionRequest &)> build)
{
    PatternAction a;
    a.id = QStringLiteral("queue.") + verb;
    a.verb = verb;
    a.label = label;
    a.objectName = objectName;
    a.usage = QStringLiteral("queue %1 QUEUE --job ID").arg(verb);
    a.inputs = {jobInput(true)};
    a.check = [verb](const ActionRequest &r) -> QString {
        return r.input(QStringLiteral("job")).isEmpty()
                   ? QStringLiteral("queue %1 needs --job ID.").arg(verb)
                   : QString();
    };
    a.build = std::move(build);
    return a;
}

PatternAction cleanAction(std::function<ScriptCall(const ActionRequest &)> build)
{
    PatternAction clean;
    clean.id = QStringLiteral("queue.clean");
    clean.verb = QStringLiteral("clean");
    clean.label = QStringLiteral("Clean…");
    clean.objectName = QStringLiteral("cleanButton");
    clean.usage = QStringLiteral("queue clean QUEUE --state completed|failed --older-than MS "
                                 "[--count-only]");
    ActionInput state{QStringLiteral("state"), QStringLiteral("State (completed or failed)")};
    ActionInput age{QStringLiteral("older-than"), QStringLiteral("Finished more than (ms) ago")};
    age.integer = true;
    clean.inputs = {state, age, flag(QStringLiteral("count-only"), QStringLiteral("Only count"))};
    clean.inputs[2].console = false;
    clean.check = [](const ActionRequest &r) -> QString {
        const QByteArray s = r.input(QStringLiteral("state"));
        if (s != "completed" && s != "failed")
            return QStringLiteral("queue clean needs --state completed or --state failed.");
        if (r.integer(QStringLiteral("older-than")) < 0)
            return QStringLiteral("queue clean needs --older-than MS (0 or more).");
        return {};
    };
    clean.build = std::move(build);
    return clean;
}

PatternAction pauseAction(bool pause, std::function<ScriptCall(const ActionRequest &)> build)
{
    PatternAction a;
    a.id = pause ? QStringLiteral("queue.pause") : QStringLiteral("queue.resume");
    a.verb = pause ? QStringLiteral("pause") : QStringLiteral("resume");
    a.label = pause ? QStringLiteral("Pause…") : QStringLiteral("Resume…");
    a.objectName = pause ? QStringLiteral("pauseButton") : QStringLiteral("resumeButton");
    a.usage = QStringLiteral("queue %1 QUEUE").arg(a.verb);
    a.build = std::move(build);
    return a;
}

std::function<ReplyMeaning(const RedisValue &)> pauseMeaning(bool pause)
{
    return [pause](const RedisValue &v) {
        return v.toInteger() == 1
                   ? ReplyMeaning{true,
                                  pause ? QStringLiteral("Paused.") : QStringLiteral("Resumed.")}
                   : ReplyMeaning{false, pause ? QStringLiteral("Already paused; nothing changed.")
                                               : QStringLiteral("Not paused; nothing changed.")};
    };
}

std::function<ReplyMeaning(const RedisValue &)> cleanCountMeaning(const QString &state)
{
    return [state](const RedisValue &v) {
        const qint64 n = v.size() == 1 ? v.at(0).toInteger() : -1;
        return ReplyMeaning{
            true, countedSentence(QStringLiteral("%1 %2 jobs would be removed."), n).arg(state)};
    };
}

bool cleansCompleted(const ActionRequest &r)
{
    return r.input(QStringLiteral("state")) == "completed";
}

void finishClean(ScriptCall &call, const ActionRequest &r, const QString &library,
                 const QString &itsVerb, int batch)
{
    const QString st = cleansCompleted(r) ? QStringLiteral("completed") : QStringLiteral("failed");
    const qint64 olderThan = r.integer(QStringLiteral("older-than"));
    if (r.has(QStringLiteral("count-only"))) {
        call.action = QStringLiteral("queue.clean-count");
        call.summary = QStringLiteral("Count the %1 %2 jobs of \"%3\" finished more than %4 ago "
                                      "(nothing is written).")
                           .arg(st, library, printableBytes(r.object->key), formatMs(olderThan));
        call.meaning = cleanCountMeaning(st);
        return;
    }
    call.summary = QStringLiteral("Remove the %1 %2 jobs of \"%3\" finished more than %4 ago "
                                  "(not locked ones), up to %5 per run, %6.")
                       .arg(st, library, printableBytes(r.object->key), formatMs(olderThan))
                       .arg(batch)
                       .arg(itsVerb);
    batchRun(call, batch, QStringLiteral("Removed %1 jobs."));
}

void batchRun(ScriptCall &call, int batch, const QString &did)
{
    call.batch = batch;
    call.batchSummary = did;
    call.meaning = batchMeaning(did);
}

std::function<ReplyMeaning(const RedisValue &)> batchMeaning(const QString &did)
{
    return [did](const RedisValue &reply) {
        const qint64 n = reply.size() >= 2 ? reply.at(1).toInteger() : 0;
        return ReplyMeaning{n > 0, n > 0 ? countedSentence(did, n)
                                         : QStringLiteral("Nothing to do; nothing changed.")};
    };
}

ReplyMeaning jobMeaning(qint64 reply, const QByteArray &job, const QString &did,
                        const QHash<qint64, QString> &refusals)
{
    const QString name = printableBytes(job, 80);
    if (reply == 1)
        return {true, QStringLiteral("Job %1 %2.").arg(name, did)};
    const auto it = refusals.constFind(reply);
    if (it != refusals.cend())
        return {false, it->contains(QLatin1String("%1")) ? it->arg(name) : *it};
    return {false,
            QStringLiteral("Unexpected reply %1; nothing is known to have changed.").arg(reply)};
}

bool mergeMembers(PatternObject &current, const PatternObject &found)
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

QList<Column> columns(const QString &library, ColumnOptions options)
{
    Column stuck = Column::count(QStringLiteral("Stuck"), &Reading::Queue::stuck);
    if (options.stuckMayBeMore) {
        stuck.text = [](const ObjectState &s, qint64) -> QString {
            return QString::number(s.reading.queue().stuck)
                   + (s.reading.queue().stuckIsLowerBound ? QStringLiteral("+") : QString());
        };
    }
    QList<Column> out{
        Column::key(QStringLiteral("Queue")),
        Column::library(library),
        Column::count(QStringLiteral("Length"), &Reading::Queue::length),
        Column::count(QStringLiteral("In flight"), &Reading::Queue::inFlight),
        Column::age(QStringLiteral("Oldest in flight"), &Reading::Queue::oldestInFlightAgeMs),
        stuck};
    if (options.dead)
        out << Column::count(QStringLiteral("Dead"), &Reading::Queue::deadLength);
    // The monitor's figure (ObjectState::throughputPerS) from the rise of the
    // library's finished counts over the last minute; per minute, as the
    // throughput chart shows it. "—" until a minute's readings, or for a
    // library that counts nothing finished (said in the tooltip, no zeros).
    Column throughput;
    throughput.header = QStringLiteral("Throughput");
    const QString none = options.noThroughput;
    throughput.toolTip
        = none.isEmpty()
              ? QStringLiteral("Jobs finished per minute over the last minute: the rise of %1's "
                               "own finished and failed counts (jobs it deletes as they finish "
                               "are not counted). – until 10 s of readings.")
                    .arg(library)
              : none;
    throughput.text = [none](const ObjectState &s, qint64) -> QString {
        if (!none.isEmpty() || s.throughputPerS < 0)
            return QStringLiteral("–");
        return QStringLiteral("%1 /min").arg(s.throughputPerS * 60.0, 0, 'f', 1);
    };
    throughput.sort = [none](const ObjectState &s, qint64) {
        return QVariant(none.isEmpty() ? s.throughputPerS : -1.0);
    };
    out << throughput << Column::counts() << Column::status();
    return out;
}

void writeJson(const Reading &r, const QJsonArray &keys, QJsonObject &j, JsonOptions options)
{
    j.insert(QStringLiteral("keys"), keys);
    j.insert(QStringLiteral("length"), double(r.queue().length));
    j.insert(QStringLiteral("inFlight"), double(r.queue().inFlight));
    if (options.dead)
        j.insert(QStringLiteral("deadLength"), double(r.queue().deadLength));
    j.insert(QStringLiteral("stuckCount"), double(r.queue().stuck));
    if (options.stuckLowerBound != LowerBound::Omitted)
        j.insert(QStringLiteral("stuckIsLowerBound"),
                 options.stuckLowerBound == LowerBound::FromReading && r.queue().stuckIsLowerBound);
    j.insert(QStringLiteral("oldestInFlightAgeMs"), double(r.queue().oldestInFlightAgeMs));
    j.insert(QStringLiteral("truncated"), r.queue().truncated);
}

QStringList activeJobHeaders()
{
    return {QStringLiteral("Active job"), QStringLiteral("Name"), QStringLiteral("Age"),
            QStringLiteral("Attempts"), QStringLiteral("Lock")};
}

QList<QStringList> activeJobRows(const ObjectState &s, qint64 nowMs)
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items) {
        rows.append({printableBytes(item.job, 120), printableText(item.name, 80),
                     formatMs(s.reading.ageAt(item.ageMs, nowMs)), QString::number(item.attempts),
                     item.locked ? QStringLiteral("held") : QStringLiteral("none: stalled")});
    }
    return rows;
}

QHash<QString, QByteArray> itemJob(const ObjectState &s, int i)
{
    if (i < 0 || i >= s.reading.queue().items.size())
        return {};
    return {{QStringLiteral("job"), s.reading.queue().items.at(i).job}};
}

std::optional<Attention> stuckAttention(const ObjectState &state, const QString &figure)
{
    if (state.gone || state.reading.queue().stuck <= 0)
        return std::nullopt;
    return Attention{2.0 + double(state.reading.queue().stuck), figure};
}

std::function<double(const Reading &, qint64)> countFigure(const QString &state)
{
    return [state](const Reading &r, qint64) {
        return double(r.library().countOf(state));
    };
}

Chart throughputChart(const QString &done, const QString &failed)
{
    Chart c{QStringLiteral("Throughput"),
            QStringLiteral("jobs/min"),
            {{done, done + QStringLiteral(" /min"), 1.0, true},
             {failed, failed + QStringLiteral(" /min"), 1.0, true}}};
    return c;
}

JobListing failedListing(const QString &state, qint64 offset, const QString &why)
{
    JobListing page;
    page.state = state;
    page.offset = offset;
    page.ok = false;
    page.message = QStringLiteral("Cannot list the %1 jobs: %2").arg(state, why);
    return page;
}

namespace {

QString firstError(const QList<RedisValue> &replies)
{
    for (const RedisValue &v : replies) {
        if (v.isError())
            return v.errorMessage();
    }
    return {};
}

} // namespace

JobRead pageOfLists(const QString &state, const QList<QByteArray> &lists, qint64 offset, int count,
                    PageNext next)
{
    if (count <= 0 || offset < 0)
        return {};
    if (lists.isEmpty()) {
        JobListing page;
        page.state = state;
        page.offset = offset;
        return next(page, {});
    }
    JobRead read;
    for (const QByteArray &key : lists)
        read.commands.append({"LLEN", key});
    read.next = [state, lists, offset, count, next](const QList<RedisValue> &r) {
        if (r.size() != lists.size() || !firstError(r).isEmpty())
            return JobRead::done(failedListing(state, offset, firstError(r)));
        JobListing page;
        page.state = state;
        page.offset = offset;
        // Which part of each list the page covers: [offset, offset + count)
        // of the lists read one after the other.
        QList<std::pair<QByteArray, std::pair<qint64, qint64>>> ranges;
        qint64 before = 0;
        for (qsizetype i = 0; i < lists.size(); ++i) {
            const qint64 len = std::max<qint64>(0, r.at(i).toInteger());
            const qint64 from = std::max(offset, before),
                         to = std::min(offset + count, before + len);
            if (from < to)
                ranges.append({lists.at(i), {from - before, to - before - 1}});
            before = saturatingAdd(before, len);
        }
        page.total = before;
        if (ranges.isEmpty())
            return next(page, {});
        JobRead items;
        for (const auto &range : ranges)
            items.commands.append({"LRANGE", range.first, QByteArray::number(range.second.first),
                                   QByteArray::number(range.second.second)});
        items.next = [page, ranges, next](const QList<RedisValue> &rr) {
            if (rr.size() != ranges.size() || !firstError(rr).isEmpty())
                return JobRead::done(failedListing(page.state, page.offset, firstError(rr)));
            QList<PageEntry> entries;
            for (qsizetype i = 0; i < ranges.size(); ++i) {
                qint64 index = ranges.at(i).second.first;
                for (const RedisValue &v : rr.at(i).elements())
                    entries.append({ranges.at(i).first, index++, v.bytes(), {}});
            }
            return next(page, entries);
        };
        return items;
    };
    return read;
}

JobRead pageOfSet(const QString &state, const QByteArray &zset, bool newestFirst, qint64 offset,
                  int count, PageNext next)
{
    if (count <= 0 || offset < 0)
        return {};
    const QByteArray from = QByteArray::number(offset);
    const QByteArray to = QByteArray::number(offset + count - 1);
    JobRead read;
    read.commands = {{"ZCARD", zset},
                     newestFirst ? QList<QByteArray>{"ZRANGE", zset, from, to, "REV", "WITHSCORES"}
                                 : QList<QByteArray>{"ZRANGE", zset, from, to, "WITHSCORES"}};
    read.next = [state, zset, offset, next](const QList<RedisValue> &r) {
        if (r.size() != 2 || !firstError(r).isEmpty())
            return JobRead::done(failedListing(state, offset, firstError(r)));
        JobListing page;
        page.state = state;
        page.offset = offset;
        page.total = r.at(0).toInteger();
        QList<PageEntry> entries;
        const auto &e = r.at(1).elements();
        for (qsizetype i = 0; i + 1 < e.size(); i += 2)
            entries.append({zset, offset + i / 2, e.at(i).bytes(), e.at(i + 1).bytes()});
        return next(page, entries);
    };
    return read;
}

namespace {
// A separator no key name, index or job id of these libraries holds.
constexpr char RefSep = '\x1e';
} // namespace

QByteArray entryRef(const PageEntry &entry, const QByteArray &id)
{
    return RefSep + QByteArray::number(entry.index) + RefSep + id + RefSep + entry.key;
}

std::optional<EntryRef> parseEntryRef(const QByteArray &ref)
{
    if (!ref.startsWith(RefSep))
        return std::nullopt;
    const qsizetype a = ref.indexOf(RefSep, 1);
    const qsizetype b = a < 0 ? -1 : ref.indexOf(RefSep, a + 1);
    if (b < 0)
        return std::nullopt;
    bool ok = false;
    EntryRef e;
    e.index = ref.mid(1, a - 1).toLongLong(&ok);
    e.id = ref.mid(a + 1, b - a - 1);
    e.key = ref.mid(b + 1);
    if (!ok || e.id.isEmpty() || e.key.isEmpty())
        return std::nullopt;
    return e;
}

JobRead entryDetail(const QByteArray &ref, const EntryRef &entry, const QString &where)
{
    JobRead read;
    read.commands = {{"LINDEX", entry.key, QByteArray::number(entry.index)}};
    read.next = [ref, entry, where](const QList<RedisValue> &r) {
        const RedisValue v = r.value(0);
        if (v.isError() || v.isNil() || !v.bytes().contains(entry.id)) {
            JobListing detail;
            detail.job = ref;
            detail.ok = false;
            detail.message = v.isError() ? v.errorMessage()
                                         : QStringLiteral("Job %1 moved on (a worker took it, or "
                                                          "the list changed): reload the page.")
                                               .arg(printableBytes(entry.id, 80));
            return JobRead::done(detail);
        }
        return JobRead::done(jsonDetail(ref, v.bytes(), where));
    };
    return read;
}

JobListing jsonDetail(const QByteArray &job, const QByteArray &json, const QString &where)
{
    JobListing detail;
    detail.job = job;
    if (json.size() > JobFieldCutBytes) {
        detail.detail = QString::fromUtf8(json.left(JobFieldCutBytes));
        detail.message = QStringLiteral("%1: %2 bytes, the first %3 KiB shown.")
                             .arg(where)
                             .arg(json.size())
                             .arg(JobFieldCutBytes / 1024);
        return detail;
    }
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    detail.detail = error.error == QJsonParseError::NoError
                        ? QString::fromUtf8(doc.toJson(QJsonDocument::Indented))
                        : QString::fromUtf8(json);
    detail.message = where;
    return detail;
}

qint64 epochMs(double v)
{
    // Seconds (Sidekiq 6-7, RQ scores, kombu) or ms (Sidekiq 8), by
    // magnitude: 1e11 s is the year 5138, 1e11 ms 1973.
    const double ms = v > 1e11 ? v : v * 1000.0;
    return ms >= 0 && ms < 9.2e18 ? qint64(ms) : -1;
}

qint64 epochMs(const QJsonValue &v)
{
    if (v.isDouble())
        return epochMs(v.toDouble());
    bool ok = false;
    const double d = v.toString().toDouble(&ok);
    return ok ? epochMs(d) : -1;
}

JobRead withResult(JobRead read, const std::function<void(JobListing *)> &add)
{
    if (read.result) {
        add(&*read.result);
    } else if (read.next) {
        read.next = [next = read.next, add](const QList<RedisValue> &r) {
            return withResult(next(r), add);
        };
    }
    return read;
}

QJsonValue detailJson(const JobListing &detail)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(detail.detail.toUtf8(), &error);
    if (!detail.ok || error.error != QJsonParseError::NoError)
        return QJsonValue(QJsonValue::Undefined);
    return doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array());
}

} // namespace gatehouse::libraryqueue
