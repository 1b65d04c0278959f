// SPDX-License-Identifier: MIT
#include "rqlayout.h"
#include "rqunit.h"

#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/matchcounter.h>

namespace gatehouse {

using namespace RqInternal;

namespace {

ReplyMeaning oneJob(qint64 reply, const QByteArray &job, const QString &did, const QString &where)
{
    return libraryqueue::jobMeaning(
        reply, job, did,
        {{0, QStringLiteral("Job %1 is not in %2 (it moved on); nothing changed.")
                 .arg(QStringLiteral("%1"), where)},
         {-1, QStringLiteral("Job %1 is held by a live worker (its started-registry expiry is in "
                             "the future); nothing changed.")},
         {-2, QStringLiteral("There is no job %1 (rq:job:%1); nothing changed.")},
         {-4, QStringLiteral("Job %1 belongs to another queue (its origin); nothing changed.")},
         {-5, QStringLiteral("Job %1 is already canceled; nothing changed.")}});
}

ScriptCall baseCall(const PatternObject &o, const QString &action, const QString &script,
                    const QList<RqUnit::State> &keys)
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (RqUnit::State s : keys) {
        call.keys << RqUnit::keyOf(o, s);
        call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(Prefixes[s]),
                                                     QString::fromLatin1(Types[s]));
    }
    return call;
}

} // namespace

namespace {

// rq_requeue with no job (KEYS[2] the registry ZSET, ARGV[3] "failed" or
// "abandoned", ARGV[4] batch): every failed job (ZCARD), or the started jobs
// whose expiry (the score, epoch seconds) has passed by the server's clock
// (ZCOUNT), as the script judges them.
[[maybe_unused]] const bool s_requeueCounted = MatchCounter::add(
    QStringLiteral("rq_requeue"),
    {[](const ScriptCall &call, qint64 nowMs) {
         if (!call.args.value(1).isEmpty())
             return QList<QList<QByteArray>>();
         if (call.args.value(2) == "abandoned")
             return QList<QList<QByteArray>>{
                 {"ZCOUNT", call.keys.value(1), "-inf", QByteArray::number(nowMs / 1000)}};
         return QList<QList<QByteArray>>{{"ZCARD", call.keys.value(1)}};
     },
     [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
     [](const ScriptCall &call) {
         return QStringLiteral("they are requeued %1 per run until none is left")
             .arg(QString::fromLatin1(call.args.value(3)));
     }});

} // namespace

QList<PatternAction> RqUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);

    libraryqueue::RequeueSpec requeue;
    requeue.stuckLabel = QStringLiteral("Every abandoned job");
    requeue.olderThanRefusal
        = QStringLiteral("An RQ job is abandoned when its started-registry expiry has passed: "
                         "queue requeue takes no --older-than for an RQ queue.");
    requeue.build = [batch, cut](const ActionRequest &r) {
        ScriptCall call = baseCall(r.object, QStringLiteral("queue.requeue"),
                                   QStringLiteral("rq_requeue"), {Queue, Started, Queues});
        const QByteArray job = r.input(QStringLiteral("job"));
        call.args
            = {JobPrefix,       job, "abandoned", batch, cut, queueName(r.object), ExecutionPrefix,
               ExecutionsPrefix};
        if (!job.isEmpty()) {
            call.summary = QStringLiteral("Put abandoned RQ job %1 of \"%2\" back on its queue "
                                          "(only if its started-registry expiry has passed), as "
                                          "RQ's StartedJobRegistry.requeue does.")
                               .arg(printableBytes(job, 80), printableBytes(r.object->key));
            const QString queue = printableBytes(r.object->key);
            call.meaning = [job, queue](const RedisValue &v) {
                return oneJob(v.toInteger(), job,
                              QStringLiteral("was requeued at the back of \"%1\"").arg(queue),
                              QStringLiteral("the started registry"));
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Put every abandoned RQ job of \"%1\" (started, past its "
                                          "expiry) back on its queue, up to %2 per run, as RQ's "
                                          "StartedJobRegistry.requeue does.")
                               .arg(printableBytes(r.object->key))
                               .arg(Batch);
            libraryqueue::batchRun(call, Batch, QStringLiteral("Requeued %1 abandoned jobs."));
        }
        return call;
    };

    PatternAction retry = libraryqueue::jobOrAllAction(
        QStringLiteral("retry"), QStringLiteral("Retry…"), QStringLiteral("all"),
        QStringLiteral("Every failed job"), [batch, cut](const ActionRequest &r) {
            ScriptCall call = baseCall(r.object, QStringLiteral("queue.retry"),
                                       QStringLiteral("rq_requeue"), {Queue, Failed, Queues});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args
                = {JobPrefix,       job, "failed", batch, cut, queueName(r.object), ExecutionPrefix,
                   ExecutionsPrefix};
            if (!job.isEmpty()) {
                call.summary = QStringLiteral("Requeue failed RQ job %1 of \"%2\", as RQ's "
                                              "FailedJobRegistry.requeue does.")
                                   .arg(printableBytes(job, 80), printableBytes(r.object->key));
                call.meaning = [job](const RedisValue &v) {
                    return oneJob(v.toInteger(), job, QStringLiteral("was requeued"),
                                  QStringLiteral("the failed registry"));
                };
            } else {
                call.summary = QStringLiteral("Requeue every failed RQ job of \"%1\", up to %2 per "
                                              "run, as `rq requeue --all` does.")
                                   .arg(printableBytes(r.object->key))
                                   .arg(Batch);
                libraryqueue::batchRun(call, Batch, QStringLiteral("Requeued %1 failed jobs."));
            }
            return call;
        });
    retry.check = [](const ActionRequest &r) -> QString {
        if (r.has(QStringLiteral("completed")))
            return QStringLiteral("RQ requeues failed jobs only: queue retry takes no "
                                  "--completed for an RQ queue.");
        return libraryqueue::oneOf(r, QStringLiteral("retry"), QStringLiteral("all"));
    };

    auto removeAction = [](bool cancel) {
        PatternAction a = libraryqueue::oneJobAction(
            cancel ? QStringLiteral("cancel") : QStringLiteral("delete"),
            cancel ? QStringLiteral("Cancel job…") : QStringLiteral("Delete job…"),
            cancel ? QStringLiteral("cancelButton") : QStringLiteral("deleteButton"), {});
        a.build = [cancel](const ActionRequest &r) {
            ScriptCall call = baseCall(
                r.object, cancel ? QStringLiteral("queue.cancel") : QStringLiteral("queue.delete"),
                QStringLiteral("rq_remove"),
                {Queue, Started, Finished, Failed, Scheduled, Deferred, Canceled});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {JobPrefix,
                         job,
                         cancel ? "cancel" : "delete",
                         queueName(r.object),
                         ExecutionPrefix,
                         ExecutionsPrefix};
            call.summary
                = cancel ? QStringLiteral("Cancel RQ job %1 of \"%2\": off its queue and "
                                          "registries, status canceled, into the canceled "
                                          "registry, as RQ's Job.cancel does; refused while a "
                                          "live worker holds it.")
                               .arg(printableBytes(job, 80), printableBytes(r.object->key))
                         : QStringLiteral("Delete RQ job %1 of \"%2\": off its queue and "
                                          "registries, and its hash, as RQ's Job.delete does; "
                                          "refused while a live worker holds it.")
                               .arg(printableBytes(job, 80), printableBytes(r.object->key));
            call.meaning = [job, cancel](const RedisValue &v) {
                return oneJob(v.toInteger(), job,
                              cancel ? QStringLiteral("was canceled")
                                     : QStringLiteral("was deleted"),
                              QStringLiteral("the queue"));
            };
            return call;
        };
        return a;
    };

    return libraryqueue::requeueActions(requeue)
           + QList<PatternAction>{retry, removeAction(true), removeAction(false)};
}

} // namespace gatehouse
