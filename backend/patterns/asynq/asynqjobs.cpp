// SPDX-License-Identifier: MIT
#include "asynqlayout.h"

#include "asynqunit.h"
#include <patterns/timemath.h>

#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonDocument>
#include <QJsonObject>

namespace gatehouse {

JobRead AsynqUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                           int count) const
{
    // A page of task ids; a sorted set's score is when (epoch s) the task is
    // due (scheduled, retry), was archived, or its retention ends (completed).
    auto rows = [](JobListing page, const QList<libraryqueue::PageEntry> &entries) {
        for (const libraryqueue::PageEntry &e : entries) {
            JobRow row;
            row.id = e.value;
            bool ok = false;
            const double s = e.score.toDouble(&ok);
            row.atMs = ok ? secondsToMs(s).value_or(-1) : -1;
            page.rows << row;
        }
        return JobRead::done(page);
    };
    const int s = int(jobStates().indexOf(state));
    if (s < 0)
        return {};
    if (s == Pending || s == Active)
        return libraryqueue::pageOfLists(state, {keyOf(o, State(s))}, offset, count, rows);
    return libraryqueue::pageOfSet(state, keyOf(o, State(s)), true, offset, count, rows);
}

JobRead AsynqUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    // The task's hash: its state, and its TaskMessage ("msg", protobuf) as a
    // payload the detail decodes.
    const QByteArray key = AsynqInternal::taskPrefix(o) + job;
    JobRead read;
    read.commands = {{"HMGET", key, "state", "pending_since"}, {"HSTRLEN", key, "msg"}};
    read.next = [key, job](const QList<RedisValue> &r) {
        JobListing detail;
        detail.job = job;
        const qint64 n = r.value(1).toInteger();
        if (r.size() != 2 || r.at(0).isError() || r.at(1).isError() || n <= 0) {
            detail.ok = false;
            detail.message = r.value(0).isError() ? r.value(0).errorMessage()
                             : r.value(1).isError()
                                 ? r.value(1).errorMessage()
                                 : QStringLiteral("Task %1 has no message in "
                                                  "%2 (deleted).")
                                       .arg(printableBytes(job, 80), printableBytes(key, 120));
            return JobRead::done(detail);
        }
        QJsonObject json{{QStringLiteral("id"), QString::fromUtf8(job)}};
        const RedisValue &f = r.at(0);
        if (!f.at(0).isNil())
            json.insert(QStringLiteral("state"), QString::fromUtf8(f.at(0).bytes().left(64)));
        if (f.size() > 1 && !f.at(1).isNil())
            json.insert(QStringLiteral("pending_since"),
                        QString::fromUtf8(f.at(1).bytes().left(64)));
        json.insert(QStringLiteral("msg"),
                    QStringLiteral("(protobuf TaskMessage, %1 bytes)").arg(n));
        detail.detail = QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
        detail.message = QStringLiteral("Task hash %1").arg(printableBytes(key, 120));
        if (n > JobFieldCutBytes)
            return JobRead::done(detail);
        JobRead more;
        more.commands = {{"HGET", key, "msg"}};
        more.next = [detail, n](const QList<RedisValue> &v) mutable {
            if (!v.value(0).isError() && !v.value(0).isNil()) {
                JobPayload payload;
                payload.field = QStringLiteral("msg");
                payload.bytes = v.value(0).bytes();
                payload.size = n;
                detail.payloads.append(payload);
            }
            return JobRead::done(detail);
        };
        return more;
    };
    return read;
}

} // namespace gatehouse
