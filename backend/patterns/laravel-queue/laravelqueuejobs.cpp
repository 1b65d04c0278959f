// SPDX-License-Identifier: MIT
#include "laravelqueueunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonDocument>
#include <QJsonObject>

namespace gatehouse {

namespace {

// Separates a sorted-set job's score from its id in a row's ref
// ("<score>\x1e<id>"): no Laravel id holds it, and an entry ref
// (libraryqueue::entryRef) starts with it.
constexpr char ScoreSep = '\x1e';
// A bare id's search: entries per step, and steps (ZSCAN of the two sets and
// a page of the list each), as laravel_remove.lua searches (ListSearch).
constexpr int SearchPage = 1000;
constexpr int SearchSteps = LaravelQueueUnit::ListSearch / SearchPage;

QByteArray idOf(const QJsonObject &payload)
{
    const QJsonValue id = payload.value(QStringLiteral("id"));
    return id.isString() ? id.toString().toUtf8() : QByteArray::number(qint64(id.toDouble()));
}

// When a pending payload was pushed (ms), if it says: Horizon's "pushedAt",
// Laravel 11's "createdAt"; -1 none.
qint64 pushedAtMs(const QJsonObject &payload)
{
    for (const QString &field : {QStringLiteral("pushedAt"), QStringLiteral("createdAt")}) {
        const qint64 at = libraryqueue::epochMs(payload.value(field));
        if (at > 0)
            return at;
    }
    return -1;
}

// A payload as a page row: its "id" (what the actions take), displayName,
// attempts; atMs when it entered the state, -1 unknown.
JobRow payloadRow(const QByteArray &json, qint64 atMs)
{
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    JobRow row;
    if (o.isEmpty() || !o.contains(QStringLiteral("id"))) {
        row.id = json.left(64);
        row.error = QStringLiteral("(not a Laravel job payload)");
        return row;
    }
    row.id = idOf(o);
    row.name = o.value(QStringLiteral("displayName")).toString().left(120);
    if (o.value(QStringLiteral("attempts")).isDouble())
        row.attempts = qint64(o.value(QStringLiteral("attempts")).toDouble());
    row.atMs = atMs >= 0 ? atMs : pushedAtMs(o);
    return row;
}

// The needle that finds a payload by its id in a member, and the glob that
// ZSCAN matches it with (as laravel_remove.lua's).
QByteArray needleOf(const QByteArray &id)
{
    return "\"id\":\"" + id + '"';
}

QByteArray globOf(const QByteArray &id)
{
    QByteArray escaped;
    for (char c : id) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
            escaped += '\\';
        escaped += c;
    }
    return "*\"id\":\"" + escaped + "\"*";
}

// data.command (CallQueuedHandler's serialize() of the job object) as a
// payload the detail decodes.
void addCommand(JobListing *detail)
{
    const QJsonValue record = libraryqueue::detailJson(*detail);
    const QJsonValue command
        = record.toObject().value(QLatin1String("data")).toObject().value(QLatin1String("command"));
    if (!command.isString())
        return;
    JobPayload payload;
    payload.field = QStringLiteral("data.command");
    payload.bytes = command.toString().toUtf8();
    payload.size = payload.bytes.size();
    payload.contentType = QStringLiteral("application/x-php-serialized");
    detail->payloads.append(payload);
}

JobRead gone(const QByteArray &job, const QString &why)
{
    JobListing detail;
    detail.job = job;
    detail.ok = false;
    detail.message = why;
    return JobRead::done(detail);
}

// A bare id (the CLI's `queue job QUEUE ID`): the reserved and delayed sets
// (ZSCAN, MATCH on the id) and the list (a page from its head) a step at a
// time, at most SearchSteps steps. cursors: the sets' ZSCAN cursors, empty
// once a scan has ended.
JobRead searchId(const PatternObject &o, const QByteArray &id, int step,
                 const QList<QByteArray> &cursors)
{
    const QList<QByteArray> sets{LaravelQueueUnit::keyOf(o, LaravelQueueUnit::Reserved),
                                 LaravelQueueUnit::keyOf(o, LaravelQueueUnit::Delayed)};
    JobRead read;
    read.commands = {{"LRANGE", o.key, QByteArray::number(qint64(step) * SearchPage),
                      QByteArray::number(qint64(step + 1) * SearchPage - 1)}};
    for (qsizetype s = 0; s < sets.size(); ++s) {
        if (!cursors.at(s).isEmpty())
            read.commands.append({"ZSCAN", sets.at(s), cursors.at(s), "MATCH", globOf(id), "COUNT",
                                  QByteArray::number(SearchPage)});
    }
    read.next = [o, id, step, cursors](const QList<RedisValue> &r) {
        for (const RedisValue &v : r) {
            if (v.isError())
                return gone(id, v.errorMessage());
        }
        const QByteArray needle = needleOf(id);
        const RedisValue page = r.value(0); // outlives the loop
        const auto &list = page.elements();
        for (const RedisValue &v : list) {
            if (v.bytes().contains(needle))
                return JobRead::done(
                    libraryqueue::jsonDetail(id, v.bytes(), QStringLiteral("Pending job.")));
        }
        const QStringList where{QStringLiteral("Reserved job (its reservation's expiry is its "
                                               "score)."),
                                QStringLiteral("Delayed job (due at its score).")};
        QList<QByteArray> next = cursors;
        qsizetype at = 1;
        for (qsizetype s = 0; s < cursors.size(); ++s) {
            if (cursors.at(s).isEmpty())
                continue;
            const RedisValue reply = r.value(at++);
            next[s] = reply.size() == 2 && reply.at(0).bytes() != "0" ? reply.at(0).bytes()
                                                                      : QByteArray();
            const auto &members = reply.size() == 2 ? reply.at(1).elements() : QList<RedisValue>();
            for (qsizetype i = 0; i < members.size(); i += 2) {
                if (members.at(i).bytes().contains(needle))
                    return JobRead::done(
                        libraryqueue::jsonDetail(id, members.at(i).bytes(), where.at(s)));
            }
        }
        const bool more
            = list.size() == SearchPage || !next.at(0).isEmpty() || !next.at(1).isEmpty();
        if (!more)
            return gone(id, QStringLiteral("There is no job %1 in the queue (it ran, or was "
                                           "removed).")
                                .arg(printableBytes(id, 80)));
        if (step + 1 >= SearchSteps)
            return gone(id, QStringLiteral("Job %1 is not in the first %2 entries of the queue "
                                           "or its sets: choose it in the console's job list.")
                                .arg(printableBytes(id, 80))
                                .arg(LaravelQueueUnit::ListSearch));
        return searchId(o, id, step + 1, next);
    };
    return read;
}

} // namespace

QByteArray LaravelQueueUnit::jobIdOf(const QByteArray &ref)
{
    if (const auto entry = libraryqueue::parseEntryRef(ref))
        return entry->id;
    const qsizetype sep = ref.indexOf(ScoreSep);
    return sep < 0 ? ref : ref.mid(sep + 1);
}

JobRead LaravelQueueUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                                  int count) const
{
    if (state == QLatin1String("pending")) {
        // The list from its head: the next job a worker pops first.
        return libraryqueue::pageOfLists(state, {o.key}, offset, count,
                                         [](JobListing page, QList<libraryqueue::PageEntry> e) {
                                             for (const auto &entry : e) {
                                                 JobRow row = payloadRow(entry.value, -1);
                                                 row.ref = libraryqueue::entryRef(entry, row.id);
                                                 page.rows.append(row);
                                             }
                                             return JobRead::done(page);
                                         });
    }
    if (state != QLatin1String("delayed") && state != QLatin1String("reserved"))
        return {};
    // By score, the next due (delayed) or the next to expire (reserved)
    // first; the score (epoch s) is the time shown.
    const State set = state == QLatin1String("delayed") ? Delayed : Reserved;
    return libraryqueue::pageOfSet(state, keyOf(o, set), false, offset, count,
                                   [](JobListing page, QList<libraryqueue::PageEntry> e) {
                                       for (const auto &entry : e) {
                                           bool ok = false;
                                           const double score = entry.score.toDouble(&ok);
                                           JobRow row = payloadRow(
                                               entry.value, ok ? libraryqueue::epochMs(score) : -1);
                                           row.ref = entry.score + ScoreSep + row.id;
                                           page.rows.append(row);
                                       }
                                       return JobRead::done(page);
                                   });
}

JobRead LaravelQueueUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    if (const auto entry = libraryqueue::parseEntryRef(job))
        return libraryqueue::withResult(
            libraryqueue::entryDetail(job, *entry, QStringLiteral("Pending job.")), addCommand);
    const qsizetype sep = job.indexOf(ScoreSep);
    if (sep < 0)
        return libraryqueue::withResult(searchId(o, job, 0, {"0", "0"}), addCommand);
    // A sorted-set job: the members at its score in the reserved and
    // delayed sets (ZRANGEBYSCORE, a few), the one with its id.
    const QByteArray score = job.left(sep);
    const QByteArray id = job.mid(sep + 1);
    JobRead read;
    read.commands = {{"ZRANGEBYSCORE", keyOf(o, Reserved), score, score, "LIMIT", "0", "20"},
                     {"ZRANGEBYSCORE", keyOf(o, Delayed), score, score, "LIMIT", "0", "20"}};
    read.next = [job, id](const QList<RedisValue> &r) {
        const QStringList where{QStringLiteral("Reserved job (its reservation's expiry is its "
                                               "score)."),
                                QStringLiteral("Delayed job (due at its score).")};
        for (qsizetype s = 0; s < r.size() && s < 2; ++s) {
            if (r.at(s).isError())
                return gone(job, r.at(s).errorMessage());
            for (const RedisValue &v : r.at(s).elements()) {
                if (v.bytes().contains(needleOf(id)))
                    return JobRead::done(libraryqueue::jsonDetail(job, v.bytes(), where.at(s)));
            }
        }
        return gone(job, QStringLiteral("Job %1 moved on (a worker took it, or it was released "
                                        "or removed): reload the page.")
                             .arg(printableBytes(id, 80)));
    };
    return libraryqueue::withResult(read, addCommand);
}

} // namespace gatehouse
