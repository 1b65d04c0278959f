// SPDX-License-Identifier: MIT
#include "laravelqueueunit.h"

#include <patterns/timemath.h>

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/libraryqueue/libraryqueue.h>
#include <redis/printabletext.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(LaravelQueueUnit::Kind, LibraryQueueUnit::judgement());

namespace {

constexpr const char *Suffixes[] = {"", ":delayed", ":reserved", ":notify"};
constexpr const char *Types[] = {"list", "zset", "zset", "list"};
const QByteArray Segment = "queues:";

const char *StuckReason = "reserved past its retry_after expiry: its worker died or overran; "
                          "the next pop (RedisQueue::migrate) puts it back on the queue";

// A Laravel job payload (Queue::createPayloadArray, RedisQueue's "id" and
// "attempts"): a JSON object with a string "job", an "id" and a number
// "attempts".
std::optional<QJsonObject> payloadOf(const QByteArray &member)
{
    const QJsonDocument doc = QJsonDocument::fromJson(member);
    if (!doc.isObject())
        return std::nullopt;
    const QJsonObject o = doc.object();
    if (!o.value(QStringLiteral("job")).isString() || !o.contains(QStringLiteral("id"))
        || !o.value(QStringLiteral("attempts")).isDouble())
        return std::nullopt;
    return o;
}

QByteArray idOf(const QJsonObject &payload)
{
    const QJsonValue id = payload.value(QStringLiteral("id"));
    return id.isString() ? id.toString().toUtf8() : QByteArray::number(qint64(id.toDouble()));
}

// When a payload was pushed (ms), if it says: Horizon's "pushedAt" (epoch s
// with a fraction, a string), Laravel 11's "createdAt" (epoch s); -1 none.
qint64 pushedAtMs(const QJsonObject &payload)
{
    for (const QString &field : {QStringLiteral("pushedAt"), QStringLiteral("createdAt")}) {
        const QJsonValue v = payload.value(field);
        const double s = v.isString() ? v.toString().toDouble() : v.toDouble();
        if (s > 1e9 && s < 1e11)
            return qint64(s * 1000);
    }
    return -1;
}

} // namespace

QByteArray LaravelQueueUnit::queueOf(const QByteArray &key)
{
    const qsizetype at = key.indexOf(Segment);
    if (at < 0 || key.size() <= at + Segment.size())
        return {};
    for (int s = Delayed; s < KeyCount; ++s) {
        const QByteArray suffix = Suffixes[s];
        if (key.endsWith(suffix) && key.size() > at + Segment.size() + suffix.size())
            return key.chopped(suffix.size());
    }
    return key;
}

LaravelQueueUnit::State LaravelQueueUnit::stateOf(const QByteArray &key)
{
    for (int s = Delayed; s < KeyCount; ++s) {
        if (key.endsWith(Suffixes[s]))
            return State(s);
    }
    return Queue;
}

PatternObject LaravelQueueUnit::objectForQueue(const QByteArray &queueKey)
{
    PatternObject o;
    o.kind = Kind;
    o.key = queueKey;
    for (int s = 0; s < KeyCount; ++s)
        o.related << queueKey + Suffixes[s];
    return o;
}

QByteArray LaravelQueueUnit::keyOf(const PatternObject &o, State s)
{
    const QByteArray k = o.relatedKey(s);
    return k.isEmpty() ? o.key + Suffixes[s] : k;
}

QList<PatternUnit::Command> LaravelQueueUnit::identifyProbe(const QByteArray &target) const
{
    const QByteArray queue = queueOf(target);
    if (queue.isEmpty())
        return {{"TYPE", target}};
    return {{"TYPE", queue},
            {"TYPE", queue + Suffixes[Delayed]},
            {"TYPE", queue + Suffixes[Reserved]},
            {"TYPE", queue + Suffixes[Notify]}};
}

bool LaravelQueueUnit::identifies(const QByteArray &target, const QList<RedisValue> &r) const
{
    // A queue is Laravel's when its keys have Laravel's types and at least
    // one of the delayed, reserved or notify keys is there.
    if (queueOf(target).isEmpty() || r.size() != KeyCount)
        return false;
    bool beside = false;
    for (int s = 0; s < KeyCount; ++s) {
        const QByteArray t = r.at(s).bytes();
        if (t != "none" && t != Types[s])
            return false;
        beside = beside || (s != Queue && t == Types[s]);
    }
    return beside;
}

QList<QByteArray> LaravelQueueUnit::scanGlobs(const ProfileRule &rule) const
{
    // A rule names queues by their list ("laravel_database_queues:*"); a
    // queue with only reserved jobs has no list.
    return {rule.match, rule.match + Suffixes[Delayed], rule.match + Suffixes[Reserved],
            rule.match + Suffixes[Notify]};
}

std::optional<PatternObject> LaravelQueueUnit::objectFor(const ProfileRule &rule,
                                                         const QByteArray &key) const
{
    const QByteArray queue = queueOf(key);
    if (queue.isEmpty() || !globMatch(rule.match, queue) || rule.excludes(queue))
        return std::nullopt;
    PatternObject o = objectForQueue(queue);
    o.params = rule.params;
    o.source = QString(); // the registry names the rule
    return o;
}

PatternObject LaravelQueueUnit::conventionalObject(const QByteArray &key) const
{
    const QByteArray queue = queueOf(key);
    return objectForQueue(queue.isEmpty() ? key : queue);
}

std::optional<KeyClaim> LaravelQueueUnit::claimKey(const KeyShape &shape, qint64) const
{
    // "queues:" names of Laravel's types only; grouping asks for company.
    if (queueOf(shape.key).isEmpty())
        return std::nullopt;
    const State s = stateOf(shape.key);
    if (shape.type != Types[s])
        return std::nullopt;
    return KeyClaim{s == Queue ? QStringLiteral("queue") : QString::fromLatin1(Suffixes[s] + 1),
                    s == Queue ? 20 : 30};
}

QList<PatternObject> LaravelQueueUnit::groupClaims(ClaimPool &pool) const
{
    // A queue is Laravel's when its notify list or a delayed or reserved
    // sorted set is there; a bare "queues:<name>" list stays what it is.
    QMap<QByteArray, QList<QByteArray>> byQueue;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (!pool.roleOf(key, Kind).isEmpty())
            byQueue[queueOf(key)] << key;
    }
    QList<PatternObject> out;
    for (auto it = byQueue.cbegin(); it != byQueue.cend(); ++it) {
        const bool beside = std::any_of(it->cbegin(), it->cend(),
                                        [](const QByteArray &k) { return stateOf(k) != Queue; });
        if (!beside)
            continue;
        PatternObject o = objectForQueue(it.key());
        o.source = QStringLiteral("autodetected");
        out.append(o);
        for (const QByteArray &key : *it)
            pool.take(key);
    }
    return out;
}

QList<PatternUnit::Command> LaravelQueueUnit::probe(const PatternObject &o,
                                                    const ProbeContext &c) const
{
    const QByteArray last = number(std::max(1, o.params.pageSize) - 1);
    // Laravel scores reservations and delays in epoch seconds and takes a
    // score <= now as due (ZRANGEBYSCORE -inf now in migrateExpiredJobs).
    const QByteArray nowSec = number(c.nowMs / 1000);
    const QByteArray reserved = keyOf(o, Reserved);
    return {
        {"TYPE", o.key},
        {"TYPE", keyOf(o, Delayed)},
        {"TYPE", reserved},
        {"TYPE", keyOf(o, Notify)},
        {"LLEN", o.key},
        {"ZCARD", keyOf(o, Delayed)},
        {"ZCARD", reserved},
        {"ZCOUNT", reserved, "-inf", nowSec},
        // The reserved jobs by expiry, the most overdue first (a page).
        {"ZRANGE", reserved, "0", last, "WITHSCORES"},
        // The oldest pending job (the list's head: pop takes the left).
        {"LINDEX", o.key, "0"},
        {"ZRANGE", keyOf(o, Delayed), "0", "0"},
    };
}

Reading LaravelQueueUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                               const ProbeContext &c) const
{
    const QList<QByteArray> replyKeys{o.key,
                                      keyOf(o, Delayed),
                                      keyOf(o, Reserved),
                                      keyOf(o, Notify),
                                      o.key,
                                      keyOf(o, Delayed),
                                      keyOf(o, Reserved),
                                      keyOf(o, Reserved),
                                      keyOf(o, Reserved),
                                      o.key,
                                      keyOf(o, Delayed)};
    if (r.size() < replyKeys.size())
        return *failure(o, r, replyKeys, c.nowMs);
    Reading reading;
    reading.atMs = c.nowMs;
    // Keys of other types than Laravel's: an unknown layout, read-only.
    QStringList foreign;
    bool any = false;
    for (int s = 0; s < KeyCount; ++s) {
        const QByteArray t = r.at(s).bytes();
        any = any || t != "none";
        if (!r.at(s).isError() && t != "none" && t != Types[s])
            foreign << QStringLiteral("\"%1\" is a %2, not a %3")
                           .arg(printableBytes(keyOf(o, State(s))), QString::fromLatin1(t),
                                QString::fromLatin1(Types[s]));
    }
    if (!foreign.isEmpty()) {
        reading.editLibrary().layoutKnown = false;
        reading.message = QStringLiteral("Not Laravel's layout (%1): shown read-only.")
                              .arg(foreign.join(QStringLiteral("; ")));
        return reading;
    }
    if (auto f = failure(o, r, replyKeys, c.nowMs))
        return *f;
    if (!any) {
        reading.status = Reading::Status::Missing;
        reading.message
            = QStringLiteral("No Laravel queue keys for \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    const qint64 pending = r.at(4).toInteger();
    const qint64 delayed = r.at(5).toInteger();
    const qint64 reserved = r.at(6).toInteger();
    reading.editLibrary().counts = {{QStringLiteral("pending"), pending},
                                    {QStringLiteral("delayed"), delayed},
                                    {QStringLiteral("reserved"), reserved}};
    reading.editQueue().length = pending;
    reading.editQueue().inFlight = reserved;
    reading.editQueue().deadLength = 0; // Laravel keeps failed jobs in its database, not in Redis
    reading.editQueue().stuck = r.at(7).toInteger();

    // The reserved page: each job's id, name, attempts and expiry.
    bool foreignMember = false;
    const qint64 nowSec = c.nowMs / 1000;
    const auto &page = r.at(8).elements();
    for (qsizetype i = 0; i + 1 < page.size(); i += 2) {
        const auto payload = payloadOf(page.at(i).bytes());
        if (!payload) {
            foreignMember = true;
            continue;
        }
        bool ok = false;
        const double expiry = page.at(i + 1).bytes().toDouble(&ok);
        InFlightItem item;
        item.job = idOf(*payload);
        item.name = payload->value(QStringLiteral("displayName")).toString().toUtf8().left(120);
        item.attempts = qint64(payload->value(QStringLiteral("attempts")).toDouble());
        item.source = AgeSource::Library;
        item.locked = !(ok && expiry <= double(nowSec));
        // Laravel records no reservation time, only its expiry: the age
        // shown is how far past (negative: before) the expiry it is.
        item.ageMs = ok ? secondsToMs(double(nowSec) - expiry).value_or(0) : 0;
        // Stuck since its reservation expired: the last moment its worker
        // was known to hold it (when it was taken is not recorded).
        if (!item.locked && reading.editLibrary().stuckJobs.size() < o.params.pageSize)
            reading.editLibrary().stuckJobs.append(
                {item.job, QString::fromLatin1(StuckReason), secondsToMs(expiry).value_or(-1)});
        reading.editQueue().items.append(item);
    }
    reading.editQueue().truncated = reading.queue().inFlight > reading.queue().items.size();

    // The oldest pending job's wait, when its payload says when it was pushed.
    LibraryPart part;
    part.kind = QStringLiteral("queue");
    part.name = o.key;
    part.count = pending;
    qint64 headAt = -1;
    if (!r.at(9).isNil()) {
        const auto head = payloadOf(r.at(9).bytes());
        foreignMember = foreignMember || !head;
        headAt = head ? pushedAtMs(*head) : -1;
        part.ageMs = headAt > 0 ? std::max<qint64>(0, saturatingSub(c.nowMs, headAt)) : -1;
    }
    // As Laravel's own RedisQueue::creationTimeOfOldestPendingJob: the
    // head's createdAt (or Horizon's pushedAt), unknown when it has none.
    libraryqueue::setOldestWaiting(reading, headAt > 0 ? headAt : -1, c.nowMs, pending == 0);
    if (!r.at(10).elements().isEmpty())
        foreignMember = foreignMember || !payloadOf(r.at(10).elements().first().bytes());
    reading.editLibrary().parts.append(part);

    reading.editLibrary().layoutKnown = !foreignMember;
    if (!reading.editLibrary().layoutKnown)
        reading.message = QStringLiteral("Entries of \"%1\" are not Laravel job payloads (JSON "
                                         "with job, id and attempts): shown read-only.")
                              .arg(printableBytes(o.key));
    else if (reading.queue().truncated)
        reading.message = QStringLiteral("%1 jobs reserved; %2 were read.")
                              .arg(reading.queue().inFlight)
                              .arg(reading.queue().items.size());
    return reading;
}

QList<Figure> LaravelQueueUnit::figures() const
{
    return {
        countFigure(QStringLiteral("pending"), QStringLiteral("Pending"),
                    QStringLiteral("pending")),
        countFigure(QStringLiteral("delayed"), QStringLiteral("Delayed"),
                    QStringLiteral("delayed")),
        countFigure(QStringLiteral("inFlight"), QStringLiteral("Reserved"),
                    QStringLiteral("reserved")),
        stuckFigure(QStringLiteral("Reserved past retry_after")),
        libraryqueue::oldestWaitingFigure(),
    };
}

QList<Chart> LaravelQueueUnit::charts() const
{
    return {{QStringLiteral("Jobs by state"),
             QStringLiteral("jobs"),
             {{QStringLiteral("pending"), QStringLiteral("pending")},
              {QStringLiteral("delayed"), QStringLiteral("delayed")},
              {QStringLiteral("inFlight"), QStringLiteral("reserved")},
              {QStringLiteral("stuck"), QStringLiteral("reserved past retry_after")}}},
            libraryqueue::oldestWaitingChart()};
}

QList<LibraryQueueUnit::JobState> LaravelQueueUnit::states() const
{
    // The names of Laravel's own size calls (RedisQueue::pendingSize,
    // delayedSize, reservedSize from Laravel 10; Horizon's pending, delayed
    // and reserved).
    return {{QStringLiteral("pending")},
            {QStringLiteral("delayed")},
            {QStringLiteral("reserved"), JobStage::InFlight}};
}

LibraryQueueUnit::StuckRule LaravelQueueUnit::stuckRule() const
{
    return {QStringLiteral("stuck"), QStringLiteral("reserved past retry_after"), QString()};
}

libraryqueue::ColumnOptions LaravelQueueUnit::columnOptions() const
{
    libraryqueue::ColumnOptions options;
    options.dead = false;
    options.noThroughput = QStringLiteral("Laravel keeps no count of finished jobs in Redis.");
    return options;
}

libraryqueue::JsonOptions LaravelQueueUnit::jsonOptions() const
{
    // No failed jobs in Redis; ZCOUNT counts the expired reservations: exact.
    return {false, libraryqueue::LowerBound::Exact};
}

void LaravelQueueUnit::writeLibraryJson(const ObjectState &, const Reading &r, qint64,
                                        QJsonObject &j) const
{
    const qint64 wait = r.library().parts.isEmpty() ? -1 : r.library().parts.first().ageMs;
    j.insert(QStringLiteral("oldestPendingWaitMs"),
             wait >= 0 ? QJsonValue(double(wait)) : QJsonValue());
    j.insert(QStringLiteral("reservedExpired"), double(r.queue().stuck));
}

QStringList LaravelQueueUnit::itemHeaders() const
{
    return {QStringLiteral("Reserved job"), QStringLiteral("Name"), QStringLiteral("Attempts"),
            QStringLiteral("Reservation")};
}

QList<QStringList> LaravelQueueUnit::items(const ObjectState &s, qint64 nowMs) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items) {
        const qint64 past
            = saturatingAdd(item.ageMs, std::max<qint64>(0, saturatingSub(nowMs, s.reading.atMs)));
        rows.append({printableBytes(item.job, 120), printableText(item.name, 120),
                     QString::number(item.attempts),
                     item.locked ? QStringLiteral("expires in %1").arg(formatMs(-past))
                                 : QStringLiteral("expired %1 ago").arg(formatMs(past))});
    }
    return rows;
}

} // namespace gatehouse
