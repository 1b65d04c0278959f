// SPDX-License-Identifier: MIT
#include "bullfamilyunit.h"

#include "jobtimes.h"

#include <patterns/globmatch.h>

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace gatehouse {

int BullFamilyUnit::Layout::stateOf(const QByteArray &key, const QByteArray &type) const
{
    const qsizetype colon = key.lastIndexOf(':');
    if (colon <= 0)
        return -1;
    const QByteArray last = key.mid(colon + 1);
    for (int s = 0; s < size(); ++s) {
        if (last == m_keys.at(s).suffix)
            return type.isEmpty() || type == m_keys.at(s).type ? s : -1;
    }
    return -1;
}

QByteArray BullFamilyUnit::Layout::baseOf(const QByteArray &key) const
{
    return stateOf(key, {}) < 0 ? QByteArray() : key.left(key.lastIndexOf(':'));
}

QByteArray BullFamilyUnit::Layout::keyOf(const PatternObject &o, int s) const
{
    const QByteArray k = o.relatedKey(s);
    return k.isEmpty() ? o.key + ':' + m_keys.at(s).suffix : k;
}

PatternObject BullFamilyUnit::Layout::objectForBase(const QByteArray &base) const
{
    PatternObject o;
    o.kind = m_kind;
    o.key = base;
    for (const Key &k : m_keys)
        o.related << base + ':' + k.suffix;
    return o;
}

ScriptCall BullFamilyUnit::Layout::call(const PatternObject &o, const QString &action,
                                        const QString &script, const QList<int> &states) const
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (int s : states) {
        call.keys << keyOf(o, s);
        call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(m_keys.at(s).suffix),
                                                     QString::fromLatin1(m_keys.at(s).type));
    }
    return call;
}

std::optional<PatternObject> BullFamilyUnit::objectFor(const ProfileRule &rule,
                                                       const QByteArray &key) const
{
    // One of the queue's own keys (what SCAN finds); a job's keys under the
    // base are not (an operator naming the base gets conventionalObject).
    const QByteArray base = m_layout.baseOf(key);
    if (base.isEmpty() || !globMatch(rule.match, base) || rule.excludes(base))
        return std::nullopt;
    PatternObject o = m_layout.objectForBase(base);
    o.params = rule.params;
    return o;
}

PatternObject BullFamilyUnit::conventionalObject(const QByteArray &key) const
{
    return m_layout.objectForBase(key);
}

bool BullFamilyUnit::ownsKey(const PatternObject &o, const QByteArray &key) const
{
    return (key.size() > o.key.size() + 1 && key.startsWith(o.key) && key.at(o.key.size()) == ':')
           || PatternUnit::ownsKey(o, key);
}

QList<QByteArray> BullFamilyUnit::ownerCandidates(const QByteArray &key) const
{
    // "<prefix>:<queue>:<id>" and "<prefix>:<queue>:<id>:<part>": the base
    // one or two segments up, itself "<prefix>:<queue>" at least.
    QList<QByteArray> out;
    QByteArray base = key;
    for (int up = 0; up < 2; ++up) {
        const qsizetype colon = base.lastIndexOf(':');
        if (colon <= 0)
            break;
        base.truncate(colon);
        if (base.contains(':'))
            out << base;
    }
    return out;
}

std::optional<KeyClaim> BullFamilyUnit::claimKey(const KeyShape &shape, qint64) const
{
    const int s = m_layout.stateOf(shape.key, shape.type);
    if (s < 0)
        return std::nullopt;
    return KeyClaim{QString::fromLatin1(m_layout.suffix(s)), claimStrength(s)};
}

namespace {

const QString &stalledUnknownState()
{
    static const QString id = QStringLiteral("stalled-unknown");
    return id;
}

ObjectHealth bullHealth(const ObjectState &state, qint64 nowMs)
{
    ObjectHealth h = LibraryQueueUnit::health(state, nowMs);
    const Reading &r = state.reading;
    if (h.id == states::Ok && r.queue().inFlight > 0 && r.queue().items.isEmpty()
        && r.queue().stuckIsLowerBound && !r.message.isEmpty())
        return {stalledUnknownState(), QStringLiteral("stalled jobs not known"), Severity::Warning};
    return h;
}

QList<StateInfo> bullStates()
{
    return LibraryQueueUnit::healthStates()
           << StateInfo{stalledUnknownState(), Severity::Warning,
                        QStringLiteral("Jobs are active but their locks could not be read (a "
                                       "Cluster refuses SORT ... GET): whether any is stalled is "
                                       "not known. queue requeue --stuck still finds them.")};
}

} // namespace

Judgement BullFamilyUnit::judgement()
{
    return {&bullHealth, &bullStates, {}, {}};
}

std::optional<PatternUnit::Command> BullFamilyUnit::activeJobsProbe(const PatternObject &o,
                                                                    int activeState,
                                                                    const ProbeContext &c) const
{
    // SORT's GET pattern substitutes the first '*' and splits a hash field
    // at "->": a base containing either cannot be read that way.
    if (o.key.contains('*') || o.key.contains("->"))
        return std::nullopt;
    const QByteArray page = number(std::max(1, o.params.pageSize));
    if (readsById(o, c))
        return Command{"LRANGE", m_layout.keyOf(o, activeState), "0",
                       number(std::max(1, o.params.pageSize) - 1)};
    return Command{"SORT_RO",
                   m_layout.keyOf(o, activeState),
                   "BY",
                   "nosort",
                   "LIMIT",
                   "0",
                   page,
                   "GET",
                   "#",
                   "GET",
                   o.key + ":*:lock",
                   "GET",
                   o.key + ":*->processedOn",
                   "GET",
                   o.key + ":*->name",
                   "GET",
                   o.key + ":*->" + attemptsField()};
}

namespace {

// Both libraries write a job's times into its hash: timestamp (added),
// delay, processedOn (taken by a worker), finishedOn; and its options
// (opts, JSON), whose delay outlives the field's: a delayed job's "delay"
// is set to 0 when it is promoted (BullMQ 6.7 promoteDelayedJobs.lua,
// Bull 4.16 updateDelaySet-6.lua).
const QList<QByteArray> TimeFields{"timestamp", "delay", "processedOn", "finishedOn", "opts"};
const QList<QByteArray> WaitingFields{"timestamp", "delay", "opts"};

// The delay a job was added with: its field, else its options'.
qint64 addedDelayMs(const QByteArray &field, const QByteArray &opts)
{
    bool ok = false;
    const qint64 delay = field.toLongLong(&ok);
    if (ok && delay > 0)
        return delay;
    if (opts.isEmpty() || opts.size() > 64 * 1024 || !opts.contains("\"delay\""))
        return 0;
    const double fromOpts
        = QJsonDocument::fromJson(opts).object().value(QLatin1String("delay")).toDouble();
    return fromOpts > 0 && fromOpts < 1e15 ? qint64(fromOpts) : 0;
}

} // namespace

QList<PatternUnit::Command> BullFamilyUnit::jobTimesProbe(const PatternObject &o, int completed,
                                                          int failed, int wait,
                                                          const ProbeContext &c) const
{
    // The oldest waiting job is the list's tail (jobs are pushed at its head).
    auto oldest
        = readsById(o, c) && libraryqueue::sortPatternSafe(o.key + ':')
              ? std::optional<Command>(Command{"LRANGE", m_layout.keyOf(o, wait), "-1", "-1"})
              : libraryqueue::jobFieldsProbe(m_layout.keyOf(o, wait), o.key + ':', WaitingFields, 1,
                                             true);
    if (!oldest)
        return {};
    return {
        libraryqueue::pageProbe(m_layout.keyOf(o, completed), libraryqueue::FinishedPage, true),
        libraryqueue::pageProbe(m_layout.keyOf(o, failed), libraryqueue::FinishedPage / 4, true),
        *oldest};
}

QList<PatternUnit::Command> BullFamilyUnit::followUp(const PatternObject &o,
                                                     const QList<RedisValue> &r,
                                                     const ProbeContext &c) const
{
    if (!libraryqueue::sortPatternSafe(o.key + ':') || r.size() < 4 || r.size() != probedReplies())
        return {};
    const qsizetype at = r.size() - 3;
    return (readsById(o, c) ? idFollowUp(o, r) : QList<Command>())
           + libraryqueue::fieldsFollowUp(libraryqueue::pageMembers(r.at(at))
                                              + libraryqueue::pageMembers(r.at(at + 1)),
                                          o.key + ':', TimeFields);
}

void BullFamilyUnit::readJobTimes(Reading &reading, const QList<RedisValue> &r, qsizetype at,
                                  qsizetype probed, qint64 waiting, qint64 nowMs)
{
    if (at < 0 || r.size() < at + 3 || probed < at + 3)
        return;
    if (r.at(at).isError() || r.at(at + 1).isError())
        return; // unknown, not none
    const auto ms = [](const QByteArray &v) {
        bool ok = false;
        const qint64 n = v.toLongLong(&ok);
        return ok && n >= 0 ? n : qint64(-1);
    };
    // Ready to run when added, or when its delay ended (opts at optsAt).
    const auto queued = [&](const QList<QByteArray> &row, int optsAt) {
        const qint64 at = ms(row.at(1));
        return at < 0 ? at : saturatingAdd(at, addedDelayMs(row.at(2), row.value(optsAt)));
    };
    const auto rows = libraryqueue::fieldRows(libraryqueue::pageMembers(r.at(at))
                                                  + libraryqueue::pageMembers(r.at(at + 1)),
                                              r, probed, int(TimeFields.size()));
    const auto oldest = libraryqueue::jobFieldRows(r.at(at + 2), int(WaitingFields.size()));
    libraryqueue::setOldestWaiting(reading, oldest.isEmpty() ? -1 : queued(oldest.first(), 3),
                                   nowMs, waiting == 0);
    if (!rows)
        return; // not followed up: the finished jobs' times are unknown
    QList<libraryqueue::JobTiming> finished;
    for (const QList<QByteArray> &row : *rows) {
        // Taken before its delay ended (promoted by hand): no wait.
        const qint64 started = ms(row.at(3));
        qint64 ready = queued(row, 5);
        if (started >= 0 && ready > started)
            ready = started;
        finished.append({ready, started, ms(row.at(4))});
    }
    libraryqueue::setFinishedTimes(reading, finished, nowMs);
}

void BullFamilyUnit::readActiveJobs(Reading &reading, const RedisValue &reply,
                                    const PatternObject &o, qint64 active, qint64 nowMs)
{
    static const QString stuckReason
        = QStringLiteral("active without a lock: its worker died or stopped renewing it");
    const auto &e = reply.elements();
    for (qsizetype i = 0; i + 4 < e.size(); i += 5) {
        InFlightItem item;
        item.job = e.at(i).bytes();
        if (item.job.startsWith("0:"))
            continue; // BullMQ 5's marker in a list
        item.locked = !e.at(i + 1).isNil();
        bool ok = false;
        const qint64 processedOn = e.at(i + 2).bytes().toLongLong(&ok);
        item.source = AgeSource::Library;
        item.ageMs = ok ? std::max<qint64>(0, saturatingSub(nowMs, processedOn)) : 0;
        item.name = e.at(i + 3).bytes().left(120);
        item.attempts = e.at(i + 4).isNil() ? 0 : e.at(i + 4).toInteger();
        if (!item.locked) {
            ++reading.editQueue().stuck;
            if (reading.editLibrary().stuckJobs.size() < o.params.pageSize)
                reading.editLibrary().stuckJobs.append(
                    {item.job, stuckReason, ok ? processedOn : -1});
        }
        reading.editQueue().oldestInFlightAgeMs
            = std::max(reading.queue().oldestInFlightAgeMs, item.ageMs);
        reading.editQueue().items.append(item);
    }
    std::sort(reading.editQueue().items.begin(), reading.editQueue().items.end(),
              [](const InFlightItem &a, const InFlightItem &b) { return a.ageMs > b.ageMs; });
    reading.editQueue().truncated = active > reading.queue().items.size();
    reading.editQueue().stuckIsLowerBound = reading.queue().truncated;
}

QStringList BullFamilyUnit::itemHeaders() const
{
    return libraryqueue::activeJobHeaders();
}

QList<QStringList> BullFamilyUnit::items(const ObjectState &s, qint64 nowMs) const
{
    return libraryqueue::activeJobRows(s, nowMs);
}

QList<JobVerb> BullFamilyUnit::jobVerbs(const QString &state) const
{
    if (state != QLatin1String("failed"))
        return {};
    return {{JobVerb::Role::RequeueFromDead, QStringLiteral("queue.retry"), {}},
            {JobVerb::Role::Purge,
             QStringLiteral("queue.clean"),
             {{QStringLiteral("state"), QByteArrayLiteral("failed")}}}};
}

ReplyMeaning BullFamilyUnit::jobMeaning(qint64 reply, const QByteArray &job, const QString &did,
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

std::function<ReplyMeaning(const RedisValue &)>
BullFamilyUnit::jobReply(const QByteArray &job, const QString &did, const QString &state)
{
    return [job, did, state](const RedisValue &v) {
        return jobMeaning(v.toInteger(), job, did, state);
    };
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

JobRead BullFamilyUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                                int count) const
{
    const int s = m_layout.stateOf(o.key + ':' + state.toUtf8(), {});
    if (s < 0 || !jobStates().contains(state) || count <= 0 || offset < 0)
        return {};
    const QByteArray key = m_layout.keyOf(o, s);
    const bool isList = m_layout.type(s) == "list";
    const bool newestFirst
        = state == QLatin1String("completed") || state == QLatin1String("failed");
    const QByteArray from = QByteArray::number(offset);
    const QByteArray to = QByteArray::number(offset + count - 1);
    // Lists: the newest first (both libraries push at the left). Finished
    // sets: the most recent first; delayed and prioritized: the next first.
    JobRead read;
    read.commands = {{isList ? "LLEN" : "ZCARD", key},
                     isList        ? QList<QByteArray>{"LRANGE", key, from, to}
                     : newestFirst ? QList<QByteArray>{"ZRANGE", key, from, to, "REV"}
                                   : QList<QByteArray>{"ZRANGE", key, from, to}};
    read.next = [o, state, offset, attempts = attemptsField()](const QList<RedisValue> &r) {
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
        return jobRows(o, page, ids, attempts);
    };
    return read;
}

JobRead BullFamilyUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    const QList<QByteArray> small = detailFields();
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
        // A read refused (NOPERM) or failed: not an empty job.
        for (const RedisValue &v : r) {
            if (v.isError()) {
                detail.ok = false;
                detail.message = QStringLiteral("Cannot read job %1: %2")
                                     .arg(printableBytes(job, 80), v.errorMessage());
                return JobRead::done(detail);
            }
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
            detail.notRead = cut;
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
        values.next = [finish, readable, job](const QList<RedisValue> &v) mutable {
            if (v.value(0).isError()) {
                JobListing failed;
                failed.job = job;
                failed.ok = false;
                failed.message = QStringLiteral("Cannot read job %1: %2")
                                     .arg(printableBytes(job, 80), v.value(0).errorMessage());
                return JobRead::done(failed);
            }
            return finish(readable, v.value(0).elements());
        };
        return values;
    };
    return read;
}

} // namespace gatehouse
