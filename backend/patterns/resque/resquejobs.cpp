// SPDX-License-Identifier: MIT
#include "resquelayout.h"

#include "resqueunit.h"
#include <patterns/timemath.h>

#include <patterns/libraryqueue/libraryqueue.h>

#include <QCryptographicHash>

namespace gatehouse {

using namespace ResqueInternal;

QList<JobVerb> ResqueUnit::jobVerbs(const QString &state) const
{
    // Failure::Redis requeue (and remove); Resque has no verb that fails a
    // queued job or purges failures by age.
    if (state != QLatin1String("failed"))
        return {};
    return {{JobVerb::Role::RequeueFromDead, QStringLiteral("queue.retry"), {}}};
}

namespace {

QString cut(const QJsonValue &v, int n = 120)
{
    return v.toString().left(n);
}

JobRow queuedRow(const libraryqueue::PageEntry &e)
{
    const QJsonObject job = QJsonDocument::fromJson(e.value).object();
    const QByteArray id = QByteArray::number(e.index);
    JobRow row;
    row.id = id;
    row.name = cut(job.value(QStringLiteral("class")));
    row.ref = libraryqueue::entryRef(e, e.value.left(64));
    return row;
}

JobRow failedRow(const libraryqueue::PageEntry &e)
{
    const QJsonObject f = QJsonDocument::fromJson(e.value).object();
    JobRow row;
    row.id = failedRef(e.index, e.value);
    row.name = cut(f.value(QStringLiteral("payload")).toObject().value(QStringLiteral("class")));
    row.atMs = resqueTimeMs(cut(f.value(QStringLiteral("failed_at")), 64));
    row.error = QStringLiteral("%1: %2 (worker %3, queue %4)")
                    .arg(cut(f.value(QStringLiteral("exception")), 80),
                         cut(f.value(QStringLiteral("error")), 200),
                         cut(f.value(QStringLiteral("worker")), 80),
                         cut(f.value(QStringLiteral("queue")), 80));
    return row;
}

} // namespace

JobRead ResqueUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                            int count) const
{
    if (state == QLatin1String("queued")) {
        return libraryqueue::pageOfLists(state, queueMembers(o), offset, count,
                                         [](JobListing page, QList<libraryqueue::PageEntry> e) {
                                             for (const auto &entry : e)
                                                 page.rows.append(queuedRow(entry));
                                             return JobRead::done(page);
                                         });
    }
    if (state == QLatin1String("failed")) {
        return libraryqueue::pageOfLists(state, {keyOf(o, Failed)}, offset, count,
                                         [](JobListing page, QList<libraryqueue::PageEntry> e) {
                                             for (const auto &entry : e)
                                                 page.rows.append(failedRow(entry));
                                             return JobRead::done(page);
                                         });
    }
    if (state == QLatin1String("delayed timestamps")) {
        return libraryqueue::pageOfSet(
            state, keyOf(o, Schedule), false, offset, count,
            [](JobListing page, QList<libraryqueue::PageEntry> e) {
                for (const auto &entry : e) {
                    JobRow row;
                    row.id = entry.value;
                    row.name = QStringLiteral("delayed:%1").arg(QString::fromUtf8(entry.value));
                    row.atMs = secondsToMs(entry.score.toDouble()).value_or(-1);
                    page.rows.append(row);
                }
                return JobRead::done(page);
            });
    }
    if (state == QLatin1String("working"))
        return JobRead::done(libraryqueue::failedListing(
            state, offset,
            QStringLiteral("the workers and their jobs are listed under the table")));
    return {};
}

JobRead ResqueUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    if (const auto entry = libraryqueue::parseEntryRef(job))
        return libraryqueue::entryDetail(job, *entry, QStringLiteral("Queued job"));
    // A failed job: "<index>:<sha1>", shown while the entry is still that one.
    const qsizetype colon = job.indexOf(':');
    bool ok = false;
    const qint64 index = job.left(colon).toLongLong(&ok);
    if (colon < 0 || !ok)
        return {};
    const QByteArray sha = job.mid(colon + 1);
    JobRead read;
    read.commands = {{"LINDEX", keyOf(o, Failed), QByteArray::number(index)}};
    read.next = [job, sha](const QList<RedisValue> &r) {
        const RedisValue v = r.value(0);
        if (v.isError() || v.isNil()
            || QCryptographicHash::hash(v.bytes(), QCryptographicHash::Sha1).toHex() != sha) {
            JobListing detail;
            detail.job = job;
            detail.ok = false;
            detail.message = v.isError() ? v.errorMessage()
                                         : QStringLiteral("The failed list moved on (entry %1 is "
                                                          "another job now): reload the page.")
                                               .arg(printableBytes(job.left(job.indexOf(':'))));
            return JobRead::done(detail);
        }
        return JobRead::done(libraryqueue::jsonDetail(job, v.bytes(), QStringLiteral("Failure")));
    };
    return read;
}

} // namespace gatehouse
