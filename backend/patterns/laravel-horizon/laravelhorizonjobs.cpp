// SPDX-License-Identifier: MIT
#include "laravelhorizonunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace gatehouse {

namespace {

// A job hash's fields a page shows (RedisJobRepository's pushed, reserved,
// completed, failed), and its large ones, measured first.
const QList<QByteArray> RowFields{"name"};
constexpr qint64 RowPayloadBytes = 16 * 1024; // read for attempts when at most this
// The detail's small fields, and its large ones (read when under the cut).
const QList<QByteArray> SmallFields{"id",           "connection", "queue",      "name",
                                    "status",       "created_at", "updated_at", "reserved_at",
                                    "completed_at", "failed_at",  "silenced"};
const QList<QByteArray> LargeFields{"payload", "exception", "context", "retried_by"};

// The exception's first line ("RuntimeException: mail server refused in
// /app/...") as a page shows it.
QString firstLine(const QByteArray &text)
{
    const qsizetype nl = text.indexOf('\n');
    return printableBytes((nl < 0 ? text : text.left(nl)).trimmed().left(512), 200);
}

// data.command (CallQueuedHandler's serialize() of the job object) of the
// payload as a payload the detail decodes.
void addCommand(JobListing *detail)
{
    const QJsonValue command = libraryqueue::detailJson(*detail)
                                   .toObject()
                                   .value(QLatin1String("payload"))
                                   .toObject()
                                   .value(QLatin1String("data"))
                                   .toObject()
                                   .value(QLatin1String("command"));
    if (!command.isString())
        return;
    JobPayload payload;
    payload.field = QStringLiteral("data.command");
    payload.bytes = command.toString().toUtf8();
    payload.size = payload.bytes.size();
    payload.contentType = QStringLiteral("application/x-php-serialized");
    detail->payloads.append(payload);
}

// A field's value in the detail: JSON when it is (payload, context,
// retried_by), else text.
QJsonValue fieldValue(const QByteArray &v)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(v, &error);
    if (error.error == QJsonParseError::NoError && doc.isObject())
        return doc.object();
    if (error.error == QJsonParseError::NoError && doc.isArray())
        return doc.array();
    return QString::fromUtf8(v);
}

// The rows of a page of ids: each job hash's name and status, its
// exception's and payload's sizes; then the exceptions and the small
// payloads (attempts).
JobRead rowsOf(const QByteArray &prefix, JobListing page,
               const QList<libraryqueue::PageEntry> &entries)
{
    if (entries.isEmpty())
        return JobRead::done(page);
    JobRead read;
    for (const libraryqueue::PageEntry &e : entries) {
        JobRow row;
        row.id = e.value;
        bool ok = false;
        // Horizon scores a set's member by minus the time it entered (microtime).
        const double score = e.score.toDouble(&ok);
        row.atMs = ok ? libraryqueue::epochMs(-score) : -1;
        page.rows.append(row);
        read.commands.append(QList<QByteArray>{"HMGET", prefix + e.value} + RowFields);
        read.commands.append({"HSTRLEN", prefix + e.value, "exception"});
        read.commands.append({"HSTRLEN", prefix + e.value, "payload"});
    }
    read.next = [prefix, page](const QList<RedisValue> &r) mutable {
        JobRead more;
        QList<std::pair<int, bool>> reads; // row, exception (else payload)
        for (qsizetype i = 0; i < page.rows.size() && 3 * i + 2 < r.size(); ++i) {
            JobRow &row = page.rows[i];
            const RedisValue &f = r.at(3 * i);
            if (f.size() != RowFields.size() || f.at(0).isNil()) {
                row.error = QStringLiteral("(job record gone: trimmed or expired)");
                continue;
            }
            row.name = QString::fromUtf8(f.at(0).bytes().left(512)).left(120);
            const qint64 exception = r.at(3 * i + 1).toInteger();
            const qint64 payload = r.at(3 * i + 2).toInteger();
            if (exception > JobFieldCutBytes) {
                row.error = QStringLiteral("(%1 bytes; see the job's detail)").arg(exception);
            } else if (exception > 0) {
                more.commands.append({"HGET", prefix + row.id, "exception"});
                reads.append({int(i), true});
            }
            if (payload > 0 && payload <= RowPayloadBytes) {
                more.commands.append({"HGET", prefix + row.id, "payload"});
                reads.append({int(i), false});
            }
        }
        if (reads.isEmpty())
            return JobRead::done(page);
        more.next = [page, reads](const QList<RedisValue> &v) mutable {
            for (qsizetype k = 0; k < reads.size() && k < v.size(); ++k) {
                JobRow &row = page.rows[reads.at(k).first];
                if (reads.at(k).second) {
                    row.error = firstLine(v.at(k).bytes());
                    continue;
                }
                const QJsonValue attempts = QJsonDocument::fromJson(v.at(k).bytes())
                                                .object()
                                                .value(QLatin1String("attempts"));
                if (attempts.isDouble())
                    row.attempts = qint64(attempts.toDouble());
            }
            return JobRead::done(page);
        };
        return more;
    };
    return read;
}

} // namespace

JobRead LaravelHorizonUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                                    int count) const
{
    const int s = int(jobStates().indexOf(state));
    if (s < Recent || s > RecentFailed)
        return {};
    // Scored by minus the time: from the set's start, the latest first, as
    // Horizon's dashboard lists them (getRecent, getFailed...).
    const QByteArray prefix = o.key;
    return libraryqueue::pageOfSet(state, o.related.value(s), false, offset, count,
                                   [prefix](JobListing page, QList<libraryqueue::PageEntry> e) {
                                       return rowsOf(prefix, page, e);
                                   });
}

JobRead LaravelHorizonUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    // The job hash: its small fields, then its large ones each when under
    // the cut (their sizes first).
    const QByteArray key = o.key + job;
    JobRead read;
    read.commands.append(QList<QByteArray>{"HMGET", key} + SmallFields);
    for (const QByteArray &f : LargeFields)
        read.commands.append({"HSTRLEN", key, f});
    read.next = [key, job](const QList<RedisValue> &r) {
        JobListing detail;
        detail.job = job;
        const RedisValue &small = r.value(0);
        if (r.size() != 1 + LargeFields.size() || small.isError()
            || small.size() != SmallFields.size() || small.at(4).isNil()) {
            detail.ok = false;
            detail.message = small.isError()
                                 ? small.errorMessage()
                                 : QStringLiteral("Job %1 has no record (%2 was trimmed or "
                                                  "expired).")
                                       .arg(printableBytes(job, 80), printableBytes(key, 120));
            return JobRead::done(detail);
        }
        QJsonObject json;
        for (qsizetype i = 0; i < SmallFields.size(); ++i) {
            if (!small.at(i).isNil())
                json.insert(QString::fromLatin1(SmallFields.at(i)),
                            QString::fromUtf8(small.at(i).bytes().left(1024)));
        }
        QStringList cut;
        QList<QByteArray> readable;
        for (qsizetype i = 0; i < LargeFields.size(); ++i) {
            const qint64 n = r.at(1 + i).toInteger();
            if (n > JobFieldCutBytes) {
                json.insert(QString::fromLatin1(LargeFields.at(i)),
                            QStringLiteral("(%1 bytes, not read)").arg(n));
                cut << QString::fromLatin1(LargeFields.at(i));
            } else if (n > 0) {
                readable << LargeFields.at(i);
            }
        }
        auto finish = [detail, json, cut, readable](const QList<RedisValue> &values) mutable {
            for (qsizetype i = 0; i < readable.size() && i < values.size(); ++i)
                json.insert(QString::fromLatin1(readable.at(i)), fieldValue(values.at(i).bytes()));
            detail.detail = QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
            detail.notRead = cut;
            detail.message = cut.isEmpty() ? QStringLiteral("Horizon's record of the job.")
                                           : QStringLiteral("Not read (over %1 KiB): %2.")
                                                 .arg(JobFieldCutBytes / 1024)
                                                 .arg(cut.join(QStringLiteral(", ")));
            return JobRead::done(detail);
        };
        if (readable.isEmpty())
            return finish({});
        JobRead values;
        values.commands.append(QList<QByteArray>{"HMGET", key} + readable);
        values.next = [finish](const QList<RedisValue> &v) mutable {
            return finish(v.value(0).elements());
        };
        return values;
    };
    return libraryqueue::withResult(read, addCommand);
}

} // namespace gatehouse
