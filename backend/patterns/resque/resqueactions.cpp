// SPDX-License-Identifier: MIT
#include "resquelayout.h"
#include "resqueunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

namespace gatehouse {

using namespace ResqueInternal;

namespace {

ScriptCall baseCall(const PatternObject &o, const QString &action, const QString &script,
                    const QList<ResqueUnit::Shared> &keys)
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (ResqueUnit::Shared s : keys) {
        call.keys << ResqueUnit::keyOf(o, s);
        call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(SharedNames[s]),
                                                     QString::fromLatin1(SharedTypes[s]));
    }
    return call;
}

// A failed job as the actions name it: "<index>" or "<index>:<sha1>".
std::pair<QByteArray, QByteArray> indexAndSha(const QByteArray &job)
{
    const qsizetype colon = job.indexOf(':');
    return colon < 0 ? std::pair{job, QByteArray()}
                     : std::pair{job.left(colon), job.mid(colon + 1)};
}

PatternAction failedAction(bool retry)
{
    const QString verb = retry ? QStringLiteral("retry") : QStringLiteral("remove");
    PatternAction a = libraryqueue::oneJobAction(
        verb, retry ? QStringLiteral("Retry failed job…") : QStringLiteral("Remove failed job…"),
        verb + QStringLiteral("Button"), [retry](const ActionRequest &r) {
            ScriptCall call = baseCall(
                r.object, retry ? QStringLiteral("queue.retry") : QStringLiteral("queue.remove"),
                QStringLiteral("resque_failed"), {ResqueUnit::Failed, ResqueUnit::Queues});
            const QByteArray job = r.input(QStringLiteral("job"));
            const auto [index, sha] = indexAndSha(job);
            call.args = {retry ? "retry" : "remove", index, sha, nsOf(r.object) + "queue:"};
            call.summary
                = retry ? QStringLiteral("Put failed Resque job %1 of \"%2\" back on its queue and "
                                         "remove the failure, as Resque's Failure::Redis requeue "
                                         "and remove and node-resque's retryAndRemoveFailed do.")
                              .arg(printableBytes(job, 80), printableBytes(r.object->key))
                        : QStringLiteral("Remove failed Resque job %1 of \"%2\", as Resque's "
                                         "Failure::Redis.remove does.")
                              .arg(printableBytes(job, 80), printableBytes(r.object->key));
            call.meaning = [job, retry](const RedisValue &v) {
                return libraryqueue::jobMeaning(
                    v.toInteger(), job,
                    retry ? QStringLiteral("was requeued") : QStringLiteral("was removed"),
                    {{0, QStringLiteral("There is no failed job at %1; nothing changed.")},
                     {-1, QStringLiteral("The failed list moved on (another entry is at %1 now): "
                                         "nothing changed; read it again.")},
                     {-3, QStringLiteral("Entry %1 is not a Resque failure (payload {class, args} "
                                         "and a queue); nothing changed.")},
                     {-4, QStringLiteral("Failed job %1's arguments hold a number of more than 14 "
                                         "digits or an empty nested list, which a script cannot "
                                         "write back exactly; nothing changed. Retry it with "
                                         "Resque itself.")}});
            };
            return call;
        });
    a.usage = QStringLiteral("queue %1 QUEUE --job INDEX[:SHA1]").arg(verb);
    return a;
}

} // namespace

QList<PatternAction> ResqueUnit::actions() const
{
    libraryqueue::RequeueSpec requeue;
    requeue.jobLabel = QStringLiteral("Worker id");
    requeue.jobValue = QStringLiteral("WORKER");
    requeue.stuckLabel = QStringLiteral("Every stuck worker's job");
    requeue.olderThanRefusal
        = QStringLiteral("A Resque worker is stuck when its job started longer ago than the "
                         "profile's stuckAfter: queue requeue takes no --older-than for Resque.");
    requeue.build = [](const ActionRequest &r) {
        ScriptCall call = baseCall(r.object, QStringLiteral("queue.requeue"),
                                   QStringLiteral("resque_requeue_worker"),
                                   {Workers, Queues, FailedStat, Heartbeat});
        const QByteArray worker = r.input(QStringLiteral("job"));
        call.args = {nsOf(r.object), worker, QByteArray::number(r.object->params.stuckAfterMs),
                     QByteArray::number(Batch)};
        if (!worker.isEmpty()) {
            call.summary = QStringLiteral("Put the job Resque worker %1 of \"%2\" holds back on "
                                          "its queue and unregister the worker (only if its job "
                                          "started %3 or more ago), as node-resque's "
                                          "forceCleanWorker and retryStuckJobs do.")
                               .arg(printableBytes(worker, 80), printableBytes(r.object->key),
                                    formatMs(r.object->params.stuckAfterMs));
            call.meaning = [worker](const RedisValue &v) {
                return libraryqueue::jobMeaning(
                    v.toInteger(), worker, QStringLiteral("was unregistered, its job requeued"),
                    {{0, QStringLiteral("Worker %1 is not registered; nothing changed.")},
                     {-1, QStringLiteral("Worker %1's job is younger than the stuck threshold; "
                                         "nothing changed.")},
                     {-2, QStringLiteral("Worker %1 works on nothing; nothing changed.")},
                     {-3, QStringLiteral("What worker %1 works on is not Resque's; nothing "
                                         "changed.")},
                     {-4, QStringLiteral("Worker %1's job has arguments (a number of more than "
                                         "14 digits or an empty nested list) a script cannot "
                                         "write back exactly; nothing changed. Requeue it with "
                                         "Resque itself.")}});
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary
                = QStringLiteral("Put the job of every stuck Resque worker of \"%1\" "
                                 "(working %2 or more) back on its queue, up to %3 per "
                                 "run, as node-resque's cleanOldWorkers and "
                                 "retryStuckJobs do.")
                      .arg(printableBytes(r.object->key), formatMs(r.object->params.stuckAfterMs))
                      .arg(Batch);
            libraryqueue::batchRun(call, Batch,
                                   QStringLiteral("Requeued the jobs of %1 stuck workers."));
        }
        return call;
    };
    return libraryqueue::requeueActions(requeue)
           + QList<PatternAction>{failedAction(true), failedAction(false)};
}

} // namespace gatehouse
