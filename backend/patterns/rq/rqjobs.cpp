// SPDX-License-Identifier: MIT
#include "rqlayout.h"
#include "rqunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace gatehouse {

using namespace RqInternal;

QList<JobVerb> RqUnit::jobVerbs(const QString &state) const
{
    // FailedJobRegistry.requeue; RQ has no verb that fails a queued job or
    // purges failed jobs by age (its registries expire them: failure_ttl).
    if (state != QLatin1String("failed"))
        return {};
    return {{JobVerb::Role::RequeueFromDead, QStringLiteral("queue.retry"), {}}};
}

namespace {

// A job's fields a page shows (RQ 1.x and 2.x job hashes, rq/job.py to_dict).
const QList<QByteArray> RowFields{"description", "created_at", "enqueued_at", "started_at",
                                  "ended_at"};

// RQ keeps exc_info zlib-compressed (rq/job.py: zlib.compress(str(exc_info))):
// its text, or empty when it is not that.
QByteArray inflateExcInfo(const QByteArray &compressed)
{
    if (compressed.isEmpty())
        return {};
    // qUncompress wants the size first (big-endian); it grows past a short guess.
    QByteArray framed(4, '\0');
    const quint32 guess
        = quint32(std::min<qint64>(qint64(compressed.size()) * 8, JobFieldCutBytes));
    framed[0] = char(guess >> 24);
    framed[1] = char(guess >> 16);
    framed[2] = char(guess >> 8);
    framed[3] = char(guess);
    return qUncompress(framed + compressed);
}

// RQ 1.12+ on a server with streams keeps a failure's exc_info in the job's
// results stream ("rq:results:<id>", rq/results.py: the latest entry's
// exc_string, base64 of zlib) instead of its hash: the latest entry's text,
// or empty.
QByteArray streamExcInfo(const RedisValue &latest)
{
    if (latest.isError() || latest.size() < 1 || latest.at(0).size() != 2)
        return {};
    const RedisValue &fields = latest.at(0).at(1);
    for (qsizetype i = 0; i + 1 < fields.size(); i += 2) {
        if (fields.at(i).bytes() == "exc_string"
            && fields.at(i + 1).bytes().size() <= JobFieldCutBytes)
            return inflateExcInfo(QByteArray::fromBase64(fields.at(i + 1).bytes()));
    }
    return {};
}

// The exception a traceback ends with ("ZeroDivisionError: division by
// zero"): what a page shows of it.
QString lastLine(const QByteArray &text)
{
    const QList<QByteArray> lines = text.trimmed().split('\n');
    return lines.isEmpty() ? QString() : printableBytes(lines.last().trimmed().left(512), 200);
}

} // namespace

JobRead RqUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                        int count) const
{
    const int s = int(jobStates().indexOf(state));
    if (s < 0)
        return {};
    auto rows = [state](JobListing page, QList<libraryqueue::PageEntry> entries) {
        if (entries.isEmpty())
            return JobRead::done(page);
        JobRead read;
        QList<QByteArray> ids;
        for (const libraryqueue::PageEntry &e : entries) {
            ids << jobOfMember(e.value);
            read.commands.append(QList<QByteArray>{"HMGET", JobPrefix + ids.last()} + RowFields);
            read.commands.append({"HSTRLEN", JobPrefix + ids.last(), "exc_info"});
            read.commands.append({"XREVRANGE", "rq:results:" + ids.last(), "+", "-", "COUNT", "1"});
        }
        read.next = [page, ids, state](const QList<RedisValue> &r) mutable {
            QList<QByteArray> errors;
            for (qsizetype i = 0; i < ids.size() && 3 * i + 2 < r.size(); ++i) {
                JobRow row;
                row.id = ids.at(i);
                const RedisValue &f = r.at(3 * i);
                if (f.size() == RowFields.size() && !f.at(0).isNil()) {
                    const QByteArray description = f.at(0).bytes();
                    const qsizetype paren = description.indexOf('(');
                    row.name = printableBytes(
                        (paren > 0 ? description.left(paren) : description).left(200), 80);
                    // When it entered the state: enqueued, started, ended; created otherwise.
                    const int field = state == QLatin1String("queued")    ? 2
                                      : state == QLatin1String("started") ? 3
                                      : state == QLatin1String("finished")
                                              || state == QLatin1String("failed")
                                              || state == QLatin1String("canceled")
                                          ? 4
                                          : 1;
                    row.atMs = rqTimeMs(f.at(field).bytes());
                    if (row.atMs < 0)
                        row.atMs = rqTimeMs(f.at(1).bytes());
                } else {
                    row.error = QStringLiteral("(job hash gone: expired or deleted)");
                }
                const qint64 excLen = r.at(3 * i + 1).toInteger();
                if (excLen > JobFieldCutBytes)
                    row.error = QStringLiteral("(%1 bytes; see the job's detail)").arg(excLen);
                else if (excLen > 0)
                    errors << row.id;
                else if (const QByteArray exc = streamExcInfo(r.at(3 * i + 2)); !exc.isEmpty())
                    row.error = lastLine(exc);
                page.rows.append(row);
            }
            if (errors.isEmpty())
                return JobRead::done(page);
            JobRead excs;
            for (const QByteArray &id : errors)
                excs.commands.append({"HGET", JobPrefix + id, "exc_info"});
            excs.next = [page, errors](const QList<RedisValue> &rr) mutable {
                for (qsizetype i = 0; i < errors.size() && i < rr.size(); ++i) {
                    for (JobRow &row : page.rows) {
                        if (row.id == errors.at(i))
                            row.error = lastLine(inflateExcInfo(rr.at(i).bytes()));
                    }
                }
                return JobRead::done(page);
            };
            return excs;
        };
        return read;
    };
    if (s == Queue)
        return libraryqueue::pageOfLists(state, {keyOf(o, Queue)}, offset, count, rows);
    // Registries by score (expiry, or the time it is due): the next first,
    // finished and failed the latest first.
    return libraryqueue::pageOfSet(state, keyOf(o, State(s)), s == Finished || s == Failed, offset,
                                   count, rows);
}

JobRead RqUnit::jobDetail(const PatternObject &, const QByteArray &job) const
{
    static const QList<QByteArray> small{"description", "origin",      "status",   "created_at",
                                         "enqueued_at", "started_at",  "ended_at", "timeout",
                                         "worker_name", "retries_left"};
    const QByteArray key = JobPrefix + jobOfMember(job);
    JobRead read;
    read.commands = {{"TYPE", key},
                     QList<QByteArray>{"HMGET", key} + small,
                     {"HSTRLEN", key, "exc_info"},
                     {"HSTRLEN", key, "data"},
                     {"HSTRLEN", key, "result"},
                     {"XREVRANGE", "rq:results:" + jobOfMember(job), "+", "-", "COUNT", "1"}};
    read.next = [key, job](const QList<RedisValue> &r) {
        JobListing detail;
        detail.job = job;
        if (r.size() != 6 || r.at(0).bytes() != "hash") {
            detail.ok = false;
            detail.message = r.value(0).isError()
                                 ? r.value(0).errorMessage()
                                 : QStringLiteral("Job %1 is gone (%2 expired or was deleted).")
                                       .arg(printableBytes(job, 80), printableBytes(key, 120));
            return JobRead::done(detail);
        }
        QJsonObject json{{QStringLiteral("id"), keyToJson(jobOfMember(job))}};
        const RedisValue &f = r.at(1);
        for (qsizetype i = 0; i < small.size() && i < f.size(); ++i) {
            if (!f.at(i).isNil() && !f.at(i).bytes().isEmpty())
                json.insert(QString::fromLatin1(small.at(i)),
                            QString::fromUtf8(f.at(i).bytes().left(1024)));
        }
        // data and result are pickled: their size here, their decoded form as
        // payloads (data zlib-compressed too, rq/job.py to_dict).
        for (int i : {3, 4}) {
            const qint64 n = r.at(i).toInteger();
            if (n > 0)
                json.insert(i == 3 ? QStringLiteral("data") : QStringLiteral("result"),
                            i == 3 && n > JobFieldCutBytes
                                ? QStringLiteral("(%1 bytes, not read)").arg(n)
                                : QStringLiteral("(%1 bytes, as decoded below)").arg(n));
        }
        const qint64 dataLen = r.at(3).toInteger();
        const qint64 excLen = r.at(2).toInteger();
        auto finish = [json, detail, dataLen, excLen](const QByteArray &exc, QString message,
                                                      const QByteArray &data) mutable {
            // data over the cut is not read (exc_info's is said by message).
            if (dataLen > JobFieldCutBytes) {
                detail.notRead << QStringLiteral("data");
                message = QStringLiteral("Not read (over %1 KiB): data (%2 bytes). %3")
                              .arg(JobFieldCutBytes / 1024)
                              .arg(dataLen)
                              .arg(message)
                              .trimmed();
            }
            if (excLen > JobFieldCutBytes)
                detail.notRead << QStringLiteral("exc_info");
            if (!data.isEmpty()) {
                JobPayload payload;
                payload.field = QStringLiteral("data");
                payload.bytes = data;
                payload.size = dataLen;
                payload.contentType = QStringLiteral("application/x-python-serialize");
                detail.payloads.append(payload);
            }
            if (!exc.isEmpty())
                json.insert(QStringLiteral("exc_info"),
                            QString::fromUtf8(exc.left(JobFieldCutBytes)));
            detail.detail = QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
            detail.message = message;
            return JobRead::done(detail);
        };
        // One more round trip for what is small enough to read: exc_info, data.
        JobRead more;
        const bool readExc = excLen > 0 && excLen <= JobFieldCutBytes;
        more.commands
            = {{"HGET", key, readExc ? QByteArray("exc_info") : QByteArray("-")},
               {"HGET", key, dataLen <= JobFieldCutBytes ? QByteArray("data") : QByteArray("-")}};
        const QByteArray streamed = excLen <= 0 ? streamExcInfo(r.at(5)) : QByteArray();
        more.next = [finish, excLen, readExc, streamed](const QList<RedisValue> &v) mutable {
            const QByteArray data = v.value(1).bytes();
            if (excLen > JobFieldCutBytes)
                return finish({},
                              QStringLiteral("Not read (over %1 KiB): exc_info (%2 bytes).")
                                  .arg(JobFieldCutBytes / 1024)
                                  .arg(excLen),
                              data);
            if (!readExc)
                return finish(streamed, {}, data);
            const QByteArray text = inflateExcInfo(v.value(0).bytes());
            return finish(
                text,
                text.size() > JobFieldCutBytes
                    ? QStringLiteral("exc_info cut to %1 KiB.").arg(JobFieldCutBytes / 1024)
                    : QString(),
                data);
        };
        return more;
    };
    return read;
}

} // namespace gatehouse
