// SPDX-License-Identifier: MIT
#include "laravelhorizonunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

#include <QUuid>

namespace gatehouse {

namespace {

const QByteArray QueuesSegment = "queues:";

} // namespace

QList<PatternAction> LaravelHorizonUnit::actions() const
{
    PatternAction retry;
    retry.id = QStringLiteral("queue.retry");
    retry.verb = QStringLiteral("retry");
    retry.label = QStringLiteral("Retry failed job…");
    retry.objectName = QStringLiteral("retryButton");
    retry.usage = QStringLiteral("queue retry HORIZON --job ID --queue QUEUE");
    ActionInput job{QStringLiteral("job"), QStringLiteral("Failed job id")};
    ActionInput queue{QStringLiteral("queue"),
                      QStringLiteral("Its Laravel queue (\"laravel_database_queues:default\")")};
    retry.inputs = {job, queue};
    retry.check = [](const ActionRequest &r) -> QString {
        if (r.input(QStringLiteral("job")).isEmpty())
            return QStringLiteral("queue retry needs --job ID for Laravel Horizon.");
        if (!r.input(QStringLiteral("queue")).contains(QueuesSegment))
            return QStringLiteral("queue retry needs --queue with the job's Laravel queue list "
                                  "(\"<prefix>queues:<name>\"): Horizon's keys do not name the "
                                  "application's prefix.");
        return {};
    };
    retry.build = [](const ActionRequest &r) {
        const QByteArray id = r.input(QStringLiteral("job"));
        const QByteArray list = r.input(QStringLiteral("queue"));
        const QByteArray name = list.mid(list.indexOf(QueuesSegment) + QueuesSegment.size());
        const QByteArray fresh = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
        const QByteArray &h = r.object->key;
        ScriptCall call;
        call.action = QStringLiteral("queue.retry");
        call.script = QStringLiteral("horizon_retry_failed");
        call.keys
            = {h + id,           r.object->related.value(Failed), list,
               list + ":notify", r.object->related.value(Recent), r.object->related.value(Pending),
               h + fresh};
        call.keyRoles = {QStringLiteral("failed job hash"),  QStringLiteral("failed_jobs zset"),
                         QStringLiteral("queue list"),       QStringLiteral("notify list"),
                         QStringLiteral("recent_jobs zset"), QStringLiteral("pending_jobs zset"),
                         QStringLiteral("new job hash hash")};
        call.args = {id, fresh, name, QByteArray::number(PendingJobExpiresSec)};
        call.summary
            = QStringLiteral("Retry failed Horizon job %1: its payload as job %2 (attempts "
                             "0) at the end of \"%3\", recorded as Horizon records a "
                             "pushed job, as Horizon's RetryFailedJob does.")
                  .arg(printableBytes(id, 80), QString::fromLatin1(fresh), printableBytes(list));
        call.meaning = [id, fresh](const RedisValue &v) {
            return libraryqueue::jobMeaning(
                v.toInteger(), id,
                QStringLiteral("was retried as %1").arg(QString::fromLatin1(fresh)),
                {{0, QStringLiteral("Job %1 is not a failed Horizon job (not in failed_jobs, or "
                                    "its status is not failed); nothing changed.")},
                 {-2, QStringLiteral("There is no Horizon job %1; nothing changed.")},
                 {-4, QStringLiteral("Job %1 belongs to another queue than the one given; "
                                     "nothing changed.")},
                 {-5, QStringLiteral("The new job id is taken; nothing changed.")}});
        };
        return call;
    };
    return {retry};
}

} // namespace gatehouse
