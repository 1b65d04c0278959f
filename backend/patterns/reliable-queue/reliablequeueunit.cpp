// SPDX-License-Identifier: MIT
#include "reliablequeueunit.h"
#include "reliablequeuedemo.h"

#include <patterns/countedsentence.h>
#include <patterns/familyfold.h>
#include <patterns/globmatch.h>
#include <patterns/matchcounter.h>
#include <patterns/sections.h>

#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>

#include <algorithm>

namespace gatehouse {

namespace {

// What track() keeps of a queue without a claims set: when this console
// first read its processing list and first saw each job in it (bounded by a
// page), and the jobs the last reading held, to tell which left.
struct ProcessingTrack : PatternTrack
{
    qint64 watchBeganMs = -1;
    QHash<QByteArray, qint64> firstSeen;
    QList<QByteArray> lastInFlight;
};

// The oldest job's age, a lower bound when it counts from first sight.
QString oldestText(const Reading &r, qint64 nowMs)
{
    const qint64 age = r.ageAt(r.queue().oldestInFlightAgeMs, nowMs);
    return r.queue().oldestSinceWatching ? formatAgeSinceWatching(age) : formatMs(age);
}

// queue_requeue / queue_dead_letter: 1 when the job moved, 0 when it was no
// longer in flight, -1 when no key it reads from exists: the queue and its
// processing list (queueToo), or the processing list.
std::function<ReplyMeaning(const RedisValue &)>
jobMoved(const PatternObject &o, const QByteArray &job, const QString &to, bool queueToo)
{
    const QString name = printableBytes(job, 80);
    // Redis deletes an empty list: an idle queue looks like a missing one.
    const QString absent
        = (queueToo ? QStringLiteral("Neither \"%1\" nor its processing list \"%2\" exists: the "
                                     "queue is empty and idle, or its name is wrong")
                    : QStringLiteral("Nothing is in flight on \"%1\" (its processing list "
                                     "\"%2\" does not exist): the job finished, or the name is "
                                     "wrong"))
              .arg(printableBytes(o.key), printableBytes(ReliableQueueUnit::processingKey(o)))
          + QStringLiteral("; nothing changed.");
    return [name, to, absent](const RedisValue &reply) {
        if (reply.toInteger() == 1)
            return ReplyMeaning{true, QStringLiteral("Moved job \"%1\" %2.").arg(name, to)};
        if (reply.toInteger() < 0)
            return ReplyMeaning{false, absent};
        return ReplyMeaning{false, QStringLiteral("Job \"%1\" is no longer in flight "
                                                  "(finished or moved); nothing changed.")
                                       .arg(name)};
    };
}

// A family row of queues: their lengths, jobs in flight, stuck and dead add up.
[[maybe_unused]] const bool s_folds = registerFamilyFolds(
    QStringLiteral("queue"), {{QStringLiteral("Length"), FamilyFold::SumAndMax},
                              {QStringLiteral("In flight"), FamilyFold::SumAndMax},
                              {QStringLiteral("Stuck"), FamilyFold::SumAndMax},
                              {QStringLiteral("Dead"), FamilyFold::SumAndMax},
                              {QStringLiteral("Counts"), FamilyFold::Sum}});

} // namespace

QByteArray ReliableQueueUnit::claimsKey(const PatternObject &o)
{
    // The scripts take the claims key even when the queue has none (ZREM on
    // a missing key is a no-op); a name next to the queue keeps it in the
    // same hash slot when the queue's keys are hash-tagged.
    const QByteArray k = o.relatedKey(1);
    return k.isEmpty() ? o.key + ":claims" : k;
}

QByteArray ReliableQueueUnit::deadKey(const PatternObject &o)
{
    const QByteArray k = o.relatedKey(2);
    return k.isEmpty() ? o.key + ":dead" : k;
}

QList<PatternUnit::Command> ReliableQueueUnit::probe(const PatternObject &o,
                                                     const ProbeContext &c) const
{
    const QByteArray page = number(std::max(1, o.params.pageSize));
    QList<Command> cmds{
        {"LLEN", o.key},
        {"LLEN", processingKey(o)},
        {"LRANGE", processingKey(o), '-' + page, "-1"},
    };
    if (!o.relatedKey(1).isEmpty()) {
        cmds.append({"ZCOUNT", o.relatedKey(1), "-inf", number(c.nowMs - o.params.stuckAfterMs)});
        cmds.append({"ZRANGE", o.relatedKey(1), "0", number(std::max(1, o.params.pageSize) - 1),
                     "WITHSCORES"});
    }
    if (!o.relatedKey(2).isEmpty())
        cmds.append({"LLEN", o.relatedKey(2)});
    return cmds;
}

Reading ReliableQueueUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                                const ProbeContext &c) const
{
    const bool hasClaims = !o.relatedKey(1).isEmpty();
    QList<QByteArray> replyKeys{o.key, processingKey(o), processingKey(o)};
    if (hasClaims)
        replyKeys << o.relatedKey(1) << o.relatedKey(1);
    if (!o.relatedKey(2).isEmpty())
        replyKeys << o.relatedKey(2);
    if (auto f = failure(o, r, replyKeys, c.nowMs))
        return *f;

    Reading reading;
    reading.atMs = c.nowMs;
    reading.editQueue().length = r.at(0).toInteger();
    reading.editQueue().inFlight = r.at(1).toInteger();
    const auto &page = r.at(2).elements(); // oldest at the end
    int next = 3;
    qint64 claimedStuck = 0;
    const RedisValue *claims = nullptr;
    if (hasClaims) {
        claimedStuck = r.at(next++).toInteger();
        claims = &r.at(next++);
    }
    if (!o.relatedKey(2).isEmpty())
        reading.editQueue().deadLength = r.at(next++).toInteger();

    if (claims && !claims->elements().isEmpty()) {
        const auto &e = claims->elements();
        for (qsizetype i = 0; i + 1 < e.size(); i += 2) {
            const qint64 at = e.at(i + 1).bytes().toLongLong();
            InFlightItem item;
            item.job = e.at(i).bytes();
            item.ageMs = std::max<qint64>(0, saturatingSub(c.nowMs, at));
            item.source = AgeSource::ClaimsSet;
            reading.editQueue().items.append(item);
        }
        reading.editQueue().stuck = claimedStuck;
    } else {
        // When this console first read the list (track() keeps it): a job
        // seen then was in flight already, so its age is a lower bound.
        const ProcessingTrack *track = c.trackAs<ProcessingTrack>();
        const qint64 began = track ? track->watchBeganMs : -1;
        qint64 oldestSeen = -1;
        for (qsizetype i = page.size() - 1; i >= 0; --i) {
            const QByteArray &job = page.at(i).bytes();
            const qint64 seen = track ? track->firstSeen.value(job, -1) : -1;
            if (i == page.size() - 1)
                oldestSeen = seen;
            const qint64 age = seen < 0 ? 0 : std::max<qint64>(0, saturatingSub(c.nowMs, seen));
            InFlightItem item;
            item.job = job;
            item.ageMs = age;
            item.source = AgeSource::FirstSeen;
            reading.editQueue().items.append(item);
            if (age >= o.params.stuckAfterMs)
                ++reading.editQueue().stuck;
        }
        reading.editQueue().stuckIsLowerBound = reading.queue().inFlight > page.size();
        // began < 0: the list's first reading, every job in it was there before.
        reading.editQueue().oldestSinceWatching
            = !page.isEmpty() && (began < 0 || (oldestSeen >= 0 && oldestSeen <= began));
    }
    for (const InFlightItem &item : std::as_const(reading.queue().items))
        reading.editQueue().oldestInFlightAgeMs
            = std::max(reading.queue().oldestInFlightAgeMs, item.ageMs);
    reading.editQueue().truncated = reading.queue().inFlight > reading.queue().items.size();
    if (reading.queue().truncated && reading.queue().inFlight > o.params.pageSize)
        reading.message = QStringLiteral("%1 jobs in flight; the oldest %2 were read.")
                              .arg(reading.queue().inFlight)
                              .arg(reading.queue().items.size());
    else if (reading.queue().length == 0 && reading.queue().inFlight == 0)
        reading.message = QStringLiteral("Empty: nothing queued, nothing in flight.");
    if (reading.queue().length == 0 && reading.queue().inFlight == 0
        && reading.queue().deadLength <= 0 && reading.queue().items.isEmpty()
        && claimedStuck == 0) {
        // Redis removes an empty list: none of the queue's keys exists.
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Empty, and none of its keys exists.");
    }
    return reading;
}

qint64 ReliableQueueUnit::validUntilMs(const PatternObject &o, const Reading &r) const
{
    if (!r.isOk())
        return r.status == Reading::Status::Missing ? Reading::Forever : r.atMs;
    if (r.queue().items.isEmpty() && r.queue().inFlight == 0)
        return Reading::Forever; // ages and the stuck count need jobs in flight
    if (r.queue().items.isEmpty() || r.queue().stuckIsLowerBound)
        return r.atMs;
    // A job turns stuck when its age reaches the threshold. Jobs beyond the
    // page read are younger than the youngest read: once that one is stuck,
    // they may turn stuck at any time.
    const qint64 stuckAfter = o.params.stuckAfterMs;
    qint64 until = Reading::Forever;
    qint64 youngest = r.queue().items.first().ageMs;
    for (const InFlightItem &item : r.queue().items) {
        youngest = std::min(youngest, item.ageMs);
        if (item.ageMs < stuckAfter)
            until = std::min(until, saturatingAdd(r.atMs, stuckAfter - item.ageMs));
    }
    if (r.queue().truncated)
        until = std::min(until, saturatingAdd(r.atMs, std::max<qint64>(0, stuckAfter - youngest)));
    return until;
}

ScriptCall ReliableQueueUnit::requeue(const PatternObject &o, const QByteArray &job)
{
    ScriptCall call;
    call.action = QStringLiteral("queue.requeue");
    call.script = QStringLiteral("queue_requeue");
    call.keys = {o.key, processingKey(o), claimsKey(o)};
    call.keyRoles = {QStringLiteral("queue"), QStringLiteral("processing list"),
                     QStringLiteral("claims set")};
    call.args = {job};
    call.summary = QStringLiteral("Move job \"%1\" from \"%2\" back to \"%3\" (next to be taken), "
                                  "only if it is still in flight.")
                       .arg(printableBytes(job, 80), printableBytes(processingKey(o)),
                            printableBytes(o.key));
    call.meaning = jobMoved(o, job, QStringLiteral("back to the queue"), true);
    return call;
}

ScriptCall ReliableQueueUnit::deadLetter(const PatternObject &o, const QByteArray &job)
{
    ScriptCall call;
    call.action = QStringLiteral("queue.dead-letter");
    call.script = QStringLiteral("queue_dead_letter");
    call.keys = {processingKey(o), deadKey(o), claimsKey(o)};
    call.keyRoles = {QStringLiteral("processing list"), QStringLiteral("dead-letter list"),
                     QStringLiteral("claims set")};
    call.forceable = true; // past a refusal only: the script's type checks always hold
    call.args = {job};
    call.summary = QStringLiteral("Move job \"%1\" from \"%2\" to dead-letter list \"%3\", only "
                                  "if it is still in flight.")
                       .arg(printableBytes(job, 80), printableBytes(processingKey(o)),
                            printableBytes(deadKey(o)));
    call.meaning = jobMoved(o, job, QStringLiteral("to the dead-letter list"), false);
    return call;
}

namespace {

// queue_requeue_stuck (KEYS[3] claims ZSET, ARGV[1] threshold ms, ARGV[2]
// at most per call): the claims older than the threshold, as the reading's
// stuck count; a claim whose job has left the processing list is dropped by
// the script, not requeued.
[[maybe_unused]] const bool s_requeueStuckCounted = MatchCounter::add(
    QStringLiteral("queue_requeue_stuck"),
    MatchCounter::scoredBefore(QString(), 2, 0, 1, QStringLiteral("up to %1 will be requeued")));

} // namespace

ScriptCall ReliableQueueUnit::requeueStuck(const PatternObject &o, qint64 olderThanMs, int most)
{
    if (o.relatedKey(1).isEmpty())
        return {};
    ScriptCall call;
    call.action = QStringLiteral("queue.requeue-stuck");
    call.script = QStringLiteral("queue_requeue_stuck");
    call.keys = {o.key, processingKey(o), o.relatedKey(1)};
    call.keyRoles = {QStringLiteral("queue"), QStringLiteral("processing list"),
                     QStringLiteral("claims set")};
    call.args = {QByteArray::number(olderThanMs), QByteArray::number(most), QByteArray(),
                 QByteArray::number(ScriptCall::ReplyCutBytes)};
    call.summary
        = countedSentence(
              QStringLiteral("Requeue up to %1 jobs of \"%2\" claimed more than %3 ms ago."), most)
              .arg(printableBytes(o.key))
              .arg(olderThanMs);
    call.batch = most;
    call.batchSummary = QStringLiteral("Requeued %1 stuck jobs.");
    // {claims examined, jobs requeued, the jobs cut to ReplyCutBytes}
    call.meaning = [](const RedisValue &reply) {
        const qint64 n = reply.size() == 3 ? reply.at(1).toInteger() : 0;
        const qint64 dropped = reply.size() == 3 ? reply.at(0).toInteger() - n : 0;
        const QString drops = dropped > 0 ? QStringLiteral(" Dropped %1 claim(s) of jobs no "
                                                           "longer in flight.")
                                                .arg(dropped)
                                          : QString();
        return ReplyMeaning{n > 0 || dropped > 0,
                            n > 0 ? countedSentence(QStringLiteral("Requeued %1 stuck jobs."), n)
                                        + drops
                            : dropped > 0 ? QStringLiteral("No job was stuck.") + drops
                                          : QStringLiteral("No job was stuck; nothing changed.")};
    };
    return call;
}

Section ReliableQueueUnit::section() const
{
    return sections::queue();
}

bool ReliableQueueUnit::parseRule(RuleReader &r, const QJsonObject &o, ProfileRule &rule) const
{
    std::optional<qint64> stuck;
    if (!r.integer(o, "stuckAfter", &stuck)
        || !r.keyTemplate(o, "processingKey", &rule.processingKey)
        || !r.keyTemplate(o, "claimsKey", &rule.claimsKey)
        || !r.keyTemplate(o, "deadKey", &rule.deadKey))
        return false;
    if (stuck)
        rule.params.stuckAfterMs = *stuck;
    return true;
}

void ReliableQueueUnit::writeRule(const ProfileRule &r, QJsonObject &o) const
{
    o.insert(QStringLiteral("processingKey"), QString::fromUtf8(r.processingKey));
    if (!r.claimsKey.isEmpty())
        o.insert(QStringLiteral("claimsKey"), QString::fromUtf8(r.claimsKey));
    if (!r.deadKey.isEmpty())
        o.insert(QStringLiteral("deadKey"), QString::fromUtf8(r.deadKey));
    o.insert(QStringLiteral("stuckAfter"), double(r.params.stuckAfterMs));
}

std::optional<PatternObject> ReliableQueueUnit::objectFor(const ProfileRule &rule,
                                                          const QByteArray &key) const
{
    if (!globMatch(rule.match, key) || rule.excludes(key))
        return std::nullopt;
    PatternObject o = baseObject(rule, key);
    // A processing list, claims set or dead-letter list names its queue.
    for (const QByteArray &t : {rule.processingKey, rule.claimsKey, rule.deadKey}) {
        if (t.isEmpty())
            continue;
        const QByteArray base = baseOfTemplate(t, key);
        if (!base.isEmpty() && globMatch(rule.match, base)) {
            o.key = base;
            break;
        }
    }
    o.related = {applyTemplate(rule.processingKey, o.key),
                 rule.claimsKey.isEmpty() ? QByteArray() : applyTemplate(rule.claimsKey, o.key),
                 rule.deadKey.isEmpty() ? QByteArray() : applyTemplate(rule.deadKey, o.key)};
    return o;
}

PatternObject ReliableQueueUnit::conventionalObject(const QByteArray &key) const
{
    PatternObject o = PatternUnit::conventionalObject(key);
    o.related = {key + ":processing", key + ":claims", key + ":dead"};
    return o;
}

void ReliableQueueUnit::track(TrackState &t, const Reading &reading, qint64 nowMs) const
{
    ProcessingTrack &mine = t.own<ProcessingTrack>();
    QHash<QByteArray, qint64> seen;
    for (const InFlightItem &item : reading.queue().items) {
        if (item.source == AgeSource::FirstSeen)
            seen.insert(item.job, mine.firstSeen.value(item.job, nowMs));
    }
    if (mine.watchBeganMs < 0)
        mine.watchBeganMs = nowMs;
    // A job of the last reading that is gone now left the list (the page
    // holds the oldest jobs, and a job only gets older): polling's count of
    // what LREM events count live.
    if (reading.isOk() || reading.status == Reading::Status::Missing) {
        QSet<QByteArray> now;
        for (const InFlightItem &item : reading.queue().items)
            now.insert(item.job);
        for (const QByteArray &job : std::as_const(mine.lastInFlight))
            t.leftInFlight += now.contains(job) ? 0 : 1;
        mine.lastInFlight.clear();
        for (const InFlightItem &item : reading.queue().items)
            mine.lastInFlight.append(item.job);
    }
    mine.firstSeen = std::move(seen); // bounded by the page size
}

bool ReliableQueueUnit::isCompletion(const PatternObject &o, const QByteArray &key,
                                     const QByteArray &event) const
{
    return key == processingKey(o) && event == "lrem";
}

QList<Figure> ReliableQueueUnit::figures() const
{
    return {
        {QStringLiteral("length"), QStringLiteral("Length"), false,
         [](const Reading &r, qint64) {
             return double(r.queue().length);
         }},
        {QStringLiteral("inFlight"), QStringLiteral("In flight"), false,
         [](const Reading &r, qint64) {
             return double(r.queue().inFlight);
         }},
        {QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("Oldest in flight"), true,
         [](const Reading &r, qint64 at) {
             return double(r.ageAt(r.queue().oldestInFlightAgeMs, at));
         }},
        {QStringLiteral("stuck"), QStringLiteral("Stuck"), false,
         [](const Reading &r, qint64) {
             return double(r.queue().stuck);
         }},
    };
}

QList<Chart> ReliableQueueUnit::charts() const
{
    return {{QStringLiteral("Length and in flight"),
             QStringLiteral("jobs"),
             {{QStringLiteral("length"), QStringLiteral("length")},
              {QStringLiteral("inFlight"), QStringLiteral("in flight")}}},
            {QStringLiteral("Oldest in flight"),
             QStringLiteral("s"),
             {{QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("oldest (s)"), 0.001}}}};
}

QList<Column> ReliableQueueUnit::columns() const
{
    Column stuck = Column::count(QStringLiteral("Stuck"), &Reading::Queue::stuck);
    stuck.text = [](const ObjectState &s, qint64) -> QString {
        return QString::number(s.reading.queue().stuck)
               + (s.reading.queue().stuckIsLowerBound ? QStringLiteral("+") : QString());
    };
    // Ages from first sight say so ("≥ 54 s, since watching began").
    Column oldest
        = Column::age(QStringLiteral("Oldest in flight"), &Reading::Queue::oldestInFlightAgeMs);
    oldest.text = [](const ObjectState &s, qint64 now) -> QString {
        return oldestText(s.reading, now);
    };
    oldest.toolTip = QStringLiteral("The age of the oldest job in flight. \"≥ …, since "
                                    "watching began\": ")
                     + sinceWatchingToolTip();
    Column throughput;
    throughput.header = QStringLiteral("Throughput");
    throughput.toolTip = QStringLiteral("Jobs that left the processing list per minute "
                                        "(finished, requeued or dead-lettered): LREM keyspace "
                                        "events, or without them the jobs gone between two "
                                        "readings, over 10 s or more.");
    throughput.text = [](const ObjectState &s, qint64) -> QString {
        return s.throughputPerS < 0
                   ? QStringLiteral("–")
                   : QStringLiteral("%1 /min").arg(s.throughputPerS * 60.0, 0, 'f', 1);
    };
    throughput.sort = [](const ObjectState &s, qint64) {
        return QVariant(s.throughputPerS);
    };
    return {Column::key(QStringLiteral("Queue")),
            Column::count(QStringLiteral("Length"), &Reading::Queue::length),
            Column::count(QStringLiteral("In flight"), &Reading::Queue::inFlight),
            oldest,
            stuck,
            Column::count(QStringLiteral("Dead"), &Reading::Queue::deadLength),
            throughput,
            Column::status()};
}

void ReliableQueueUnit::writeJson(const ObjectState &s, const Reading &r, qint64,
                                  QJsonObject &j) const
{
    j.insert(QStringLiteral("keys"), keysToJson(s.object->keys()));
    j.insert(QStringLiteral("length"), double(r.queue().length));
    j.insert(QStringLiteral("inFlight"), double(r.queue().inFlight));
    j.insert(QStringLiteral("deadLength"), double(r.queue().deadLength));
    j.insert(QStringLiteral("stuckCount"), double(r.queue().stuck));
    j.insert(QStringLiteral("stuckIsLowerBound"), r.queue().stuckIsLowerBound);
    j.insert(QStringLiteral("oldestInFlightAgeMs"), double(r.queue().oldestInFlightAgeMs));
    j.insert(QStringLiteral("oldestSinceWatching"), r.queue().oldestSinceWatching);
    j.insert(QStringLiteral("truncated"), r.queue().truncated);
    j.insert(QStringLiteral("throughputPerS"),
             s.throughputPerS < 0 ? QJsonValue() : QJsonValue(s.throughputPerS));
    QJsonArray stuck;
    for (const InFlightItem &item : r.queue().items) {
        if (item.ageMs < s.object->params.stuckAfterMs)
            continue;
        stuck.append(QJsonObject{{QStringLiteral("job"), keyToJson(item.job)},
                                 {QStringLiteral("ageMs"), double(item.ageMs)},
                                 {QStringLiteral("ageSource"), ageSourceId(item.source)}});
    }
    j.insert(QStringLiteral("stuck"), stuck);
}

QStringList ReliableQueueUnit::itemHeaders() const
{
    return {QStringLiteral("Job in flight"), QStringLiteral("Age"), QStringLiteral("Age from")};
}

namespace {

// A job as its cell shows it: a JSON job as the JSON it is ({"id":7,…}, in
// the producer's own key order and spacing runs folded), not escaped bytes
// ({\"id\":7,…}); anything else (binary, an id) as printable bytes. The
// table elides it; the cell's tooltip holds up to MaxJobChars.
constexpr qsizetype MaxJobChars = 2000;

QString jobText(const QByteArray &job)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(job, &error);
    if (error.error != QJsonParseError::NoError || (!doc.isObject() && !doc.isArray()))
        return printableBytes(job, 120);
    QString text = QString::fromUtf8(job.left(MaxJobChars * 4)).simplified();
    if (text.size() > MaxJobChars || job.size() > MaxJobChars * 4)
        text = text.left(MaxJobChars) + QStringLiteral("…");
    return text;
}

} // namespace

QList<QStringList> ReliableQueueUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items) {
        const qint64 age = s.reading.ageAt(item.ageMs, nowMs);
        const bool lowerBound = s.reading.queue().oldestSinceWatching
                                && item.ageMs == s.reading.queue().oldestInFlightAgeMs;
        rows.append({jobText(item.job), lowerBound ? formatAgeSinceWatching(age) : formatMs(age),
                     ageSourceId(item.source)});
    }
    return rows;
}

QHash<QString, QByteArray> ReliableQueueUnit::itemInputs(const ObjectState &s, int i) const
{
    if (i < 0 || i >= s.reading.queue().items.size())
        return {};
    return {{QStringLiteral("job"), s.reading.queue().items.at(i).job}};
}

QList<PatternAction> ReliableQueueUnit::actions() const
{
    const ActionInput job{QStringLiteral("job"), QStringLiteral("Job"), ActionInput::Source::Item};
    PatternAction requeueAction;
    requeueAction.id = QStringLiteral("queue.requeue");
    requeueAction.verb = QStringLiteral("requeue");
    requeueAction.label = QStringLiteral("Requeue…");
    requeueAction.objectName = QStringLiteral("requeueButton");
    requeueAction.usage = QStringLiteral("queue requeue QUEUE (--job VALUE | --stuck "
                                         "[--older-than MS])");
    ActionInput stuck{QStringLiteral("stuck"), QStringLiteral("Every stuck job"),
                      ActionInput::Source::Flag};
    stuck.required = false;
    ActionInput olderThan{QStringLiteral("older-than"),
                          QStringLiteral("In flight longer than (ms)")};
    olderThan.required = false;
    olderThan.integer = true;
    olderThan.console = false;
    ActionInput optionalJob = job;
    optionalJob.required = false;
    requeueAction.inputs = {optionalJob, stuck, olderThan};
    requeueAction.check = [](const ActionRequest &r) -> QString {
        if (r.input(QStringLiteral("job")).isEmpty() == !r.has(QStringLiteral("stuck")))
            return QStringLiteral("queue requeue needs either --job VALUE or --stuck.");
        return QString();
    };
    requeueAction.build = [](const ActionRequest &r) {
        if (!r.has(QStringLiteral("stuck")))
            return requeue(r.object, r.input(QStringLiteral("job")));
        const qint64 olderThan = r.integer(QStringLiteral("older-than"));
        if (r.object->relatedKey(1).isEmpty()) {
            ScriptCall none;
            none.refusal
                = QStringLiteral("Queue \"%1\" has no claims set in the profile, so a single "
                                 "command cannot tell how long its jobs have been in flight; "
                                 "requeue them with --job, or from the console, which ages "
                                 "them from first sight.")
                      .arg(printableBytes(r.object->key, 80));
            return none;
        }
        return requeueStuck(r.object, olderThan >= 0 ? olderThan : r.object->params.stuckAfterMs,
                            StuckBatch);
    };

    PatternAction dead;
    dead.id = QStringLiteral("queue.dead-letter");
    dead.verb = QStringLiteral("dead-letter");
    dead.label = QStringLiteral("Dead-letter…");
    dead.objectName = QStringLiteral("deadLetterButton");
    dead.usage = QStringLiteral("queue dead-letter QUEUE --job VALUE");
    dead.inputs = {job};
    dead.check = [](const ActionRequest &r) -> QString {
        return r.input(QStringLiteral("job")).isEmpty()
                   ? QStringLiteral("queue dead-letter needs --job VALUE.")
                   : QString();
    };
    dead.build = [](const ActionRequest &r) {
        return deadLetter(r.object, r.input(QStringLiteral("job")));
    };
    // The console's "Requeue all stuck": with a claims set one bounded batch
    // script per run; without one, the stuck jobs the console has been
    // watching (aged from first sight), the oldest first, one atomic
    // requeue each, each confirmed on its own.
    PatternAction stuckAction;
    stuckAction.id = QStringLiteral("queue.requeue-stuck");
    stuckAction.label = QStringLiteral("Requeue all stuck…");
    stuckAction.objectName = QStringLiteral("requeueStuckButton");
    stuckAction.consoleOnly = true;
    stuckAction.build = [](const ActionRequest &r) {
        if (!r.object->relatedKey(1).isEmpty())
            return requeueStuck(r.object, r.object->params.stuckAfterMs, StuckBatch);
        if (r.shown) {
            const Reading &reading = r.shown->reading;
            const qint64 now = reading.atMs;
            for (const InFlightItem &item : reading.queue().items) {
                if (reading.ageAt(item.ageMs, now) >= r.object->params.stuckAfterMs)
                    return requeue(r.object, item.job);
            }
        }
        ScriptCall none;
        none.refusal
            = QStringLiteral("No job in \"%1\" is stuck.").arg(printableBytes(r.object->key, 80));
        return none;
    };
    return {requeueAction, dead, stuckAction};
}

std::optional<Attention> ReliableQueueUnit::attention(const ObjectState &state, qint64) const
{
    if (state.gone || state.reading.queue().stuck <= 0)
        return std::nullopt;
    return Attention{2.0 + double(state.reading.queue().stuck), QStringLiteral("inFlight")};
}

QString ReliableQueueUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    return QStringLiteral("Queue %1: %2 stuck, oldest in flight %3")
        .arg(displayName(state.object))
        .arg(r.queue().stuck)
        .arg(oldestText(r, nowMs));
}

namespace {

// "jobs:processing" -> "jobs"; empty when the name has no processing marker.
QByteArray queueBase(const QByteArray &processingKey)
{
    for (const char *suffix : {":processing", "-processing", ".processing"}) {
        if (processingKey.endsWith(suffix))
            return processingKey.chopped(qsizetype(qstrlen(suffix)));
    }
    const qsizetype at = processingKey.indexOf(":processing:");
    return at > 0 ? processingKey.left(at) : QByteArray();
}

} // namespace

std::optional<KeyClaim> ReliableQueueUnit::claimKey(const KeyShape &s, qint64 now) const
{
    // The processing list makes the queue; the queue list, the dead-letter
    // list and the claims set (times in ms) are its partners.
    if (s.type == "list")
        return queueBase(s.key.toLower()).isEmpty() ? KeyClaim{QStringLiteral("list"), 1}
                                                    : KeyClaim{QStringLiteral("processing"), 50};
    if (s.type == "zset" && s.size > 0 && s.key.endsWith(":claims") && nearMs(s.lastScore, now))
        return KeyClaim{QStringLiteral("claims"), 80};
    return std::nullopt;
}

QList<PatternObject> ReliableQueueUnit::groupClaims(ClaimPool &pool) const
{
    QList<PatternObject> out;
    for (const QByteArray &key : pool.won(Kind)) {
        if (pool.roleOf(key, Kind) != QLatin1String("processing"))
            continue;
        const QByteArray base = queueBase(key);
        if (base.isEmpty())
            continue;
        PatternObject o;
        o.kind = Kind;
        o.key = base;
        o.source = QStringLiteral("autodetected");
        const QByteArray claims = base + ":claims";
        const QByteArray dead = base + ":dead";
        o.related = {key, pool.find(claims) ? claims : QByteArray(),
                     pool.find(dead) ? dead : QByteArray()};
        pool.take(key);
        out.append(o);
    }
    return out;
}

ProfileRule ReliableQueueUnit::suggestRule(const PatternObject &o) const
{
    ProfileRule rule = PatternUnit::suggestRule(o);
    rule.processingKey = "{key}" + o.relatedKey(0).mid(o.key.size());
    if (!o.relatedKey(1).isEmpty())
        rule.claimsKey = "{key}:claims";
    if (!o.relatedKey(2).isEmpty())
        rule.deadKey = "{key}:dead";
    return rule;
}

QList<QByteArray> ReliableQueueUnit::wordsFor() const
{
    return {"queue", "queues", "jobs", "job", "tasks", "task", "work", "worker", "outbox"};
}

std::unique_ptr<DemoTraffic> ReliableQueueUnit::demoTraffic(quint32 seed) const
{
    return std::make_unique<ReliableQueueDemo>(seed);
}

} // namespace gatehouse
