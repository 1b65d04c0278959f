// SPDX-License-Identifier: MIT
#include "beequeueunit.h"

#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/matchcounter.h>

namespace gatehouse {

namespace {

ReplyMeaning oneJob(qint64 reply, const QByteArray &job, const QString &did, const QString &where)
{
    return libraryqueue::jobMeaning(
        reply, job, did,
        {{0, QStringLiteral("Job %1 is not %2 (it moved on); nothing changed.")
                 .arg(QStringLiteral("%1"), where)},
         {-1, QStringLiteral("Job %1 is active and not stalled: a worker may be running it; "
                             "nothing changed.")},
         {-2, QStringLiteral("There is no job %1 in this queue's jobs hash; nothing changed.")},
         {-3, QStringLiteral("Job %1 is not stalled yet: a stall check ran less than a stall "
                             "interval ago (stallBlock exists), so its worker may still renew "
                             "it; nothing changed.")}});
}

ScriptCall baseCall(const PatternObject &o, const QString &action, const QString &script,
                    const QList<BeeQueueUnit::State> &keys)
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (BeeQueueUnit::State s : keys) {
        call.keys << BeeQueueUnit::keyOf(o, s);
        call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(BeeQueueUnit::suffix(s)),
                                                     QString::fromLatin1(BeeQueueUnit::type(s)));
    }
    return call;
}

// bq_retry with no job (KEYS[2] the failed SET, ARGV[2] batch): every failed job.
[[maybe_unused]] const bool s_retryCounted = MatchCounter::add(
    QStringLiteral("bq_retry"), {[](const ScriptCall &call, qint64) {
                                     if (!call.args.value(0).isEmpty())
                                         return QList<QList<QByteArray>>();
                                     return QList<QList<QByteArray>>{{"SCARD", call.keys.value(1)}};
                                 },
                                 [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
                                 [](const ScriptCall &call) {
                                     return QStringLiteral("up to %1 will be retried per run")
                                         .arg(QString::fromLatin1(call.args.value(1)));
                                 }});

// bq_requeue with no job (KEYS[3] stalling SET, KEYS[4] stallBlock, ARGV[2]
// batch): none while stallBlock exists, else the stalling set's members
// (those still in active are requeued; the others only leave the set).
[[maybe_unused]] const bool s_requeueCounted = MatchCounter::add(
    QStringLiteral("bq_requeue"),
    {[](const ScriptCall &call, qint64) {
         if (!call.args.value(0).isEmpty())
             return QList<QList<QByteArray>>();
         return QList<QList<QByteArray>>{{"EXISTS", call.keys.value(3)},
                                         {"SCARD", call.keys.value(2)}};
     },
     [](const QList<RedisValue> &r) {
         return r.value(0).toInteger() == 1 ? 0 : r.value(1).toInteger();
     },
     [](const ScriptCall &call) {
         return QStringLiteral("those still active are requeued, up to %1 per run")
             .arg(QString::fromLatin1(call.args.value(1)));
     }});

} // namespace

QList<PatternAction> BeeQueueUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);

    libraryqueue::RequeueSpec requeue;
    requeue.stuckLabel = QStringLiteral("Every stalled job");
    requeue.olderThanRefusal
        = QStringLiteral("A bee-queue job is stalled when its worker did not renew it for a "
                         "stall interval: queue requeue takes no --older-than for a bee-queue "
                         "queue.");
    requeue.build = [batch, cut](const ActionRequest &r) {
        ScriptCall call
            = baseCall(r.object, QStringLiteral("queue.requeue"), QStringLiteral("bq_requeue"),
                       {Waiting, Active, Stalling, StallBlock, Jobs});
        const QByteArray job = r.input(QStringLiteral("job"));
        call.args = {job, batch, cut};
        if (!job.isEmpty()) {
            call.summary = QStringLiteral("Put stalled bee-queue job %1 of \"%2\" back on waiting "
                                          "(only if it is still in stalling after a whole stall "
                                          "interval), as bee-queue's checkStalledJobs does.")
                               .arg(printableBytes(job, 80), printableBytes(r.object->key));
            call.meaning = [job](const RedisValue &v) {
                return oneJob(v.toInteger(), job, QStringLiteral("was requeued"),
                              QStringLiteral("stalled"));
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Put every stalled bee-queue job of \"%1\" (active, not "
                                          "renewed for a stall interval) back on waiting, up to "
                                          "%2 per run, as bee-queue's checkStalledJobs does.")
                               .arg(printableBytes(r.object->key))
                               .arg(Batch);
            libraryqueue::batchRun(call, Batch, QStringLiteral("Requeued %1 stalled jobs."));
        }
        return call;
    };

    PatternAction retry = libraryqueue::jobOrAllAction(
        QStringLiteral("retry"), QStringLiteral("Retry…"), QStringLiteral("all"),
        QStringLiteral("Every failed job"), [batch, cut](const ActionRequest &r) {
            ScriptCall call = baseCall(r.object, QStringLiteral("queue.retry"),
                                       QStringLiteral("bq_retry"), {Waiting, Failed, Jobs});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {job, batch, cut};
            if (!job.isEmpty()) {
                call.summary = QStringLiteral("Retry failed bee-queue job %1 of \"%2\": off "
                                              "failed, onto waiting, as bee-queue's Job#retry "
                                              "does.")
                                   .arg(printableBytes(job, 80), printableBytes(r.object->key));
                call.meaning = [job](const RedisValue &v) {
                    return oneJob(v.toInteger(), job, QStringLiteral("was retried"),
                                  QStringLiteral("failed"));
                };
            } else {
                call.summary = QStringLiteral("Retry every failed bee-queue job of \"%1\", up to "
                                              "%2 per run, as bee-queue's Job#retry does.")
                                   .arg(printableBytes(r.object->key))
                                   .arg(Batch);
                libraryqueue::batchRun(call, Batch, QStringLiteral("Retried %1 failed jobs."));
            }
            return call;
        });
    retry.check = [](const ActionRequest &r) -> QString {
        if (r.has(QStringLiteral("completed")))
            return QStringLiteral("bee-queue retries failed jobs only: queue retry takes no "
                                  "--completed for a bee-queue queue.");
        return libraryqueue::oneOf(r, QStringLiteral("retry"), QStringLiteral("all"));
    };

    PatternAction remove = libraryqueue::oneJobAction(
        QStringLiteral("remove"), QStringLiteral("Remove job…"), QStringLiteral("removeButton"),
        [](const ActionRequest &r) {
            ScriptCall call = baseCall(
                r.object, QStringLiteral("queue.remove"), QStringLiteral("bq_remove"),
                {Succeeded, Failed, Waiting, Active, Stalling, Jobs, Delayed, StallBlock});
            const QByteArray job = r.input(QStringLiteral("job"));
            call.args = {job};
            call.summary = QStringLiteral("Remove bee-queue job %1 of \"%2\" from every state and "
                                          "its record from the jobs hash, as bee-queue's "
                                          "Queue#removeJob does; refused while it is active and "
                                          "not stalled.")
                               .arg(printableBytes(job, 80), printableBytes(r.object->key));
            call.meaning = [job](const RedisValue &v) {
                return oneJob(v.toInteger(), job, QStringLiteral("was removed"),
                              QStringLiteral("in this queue"));
            };
            return call;
        });

    return libraryqueue::requeueActions(requeue) + QList<PatternAction>{retry, remove};
}

QList<JobVerb> BeeQueueUnit::jobVerbs(const QString &state) const
{
    if (state == QLatin1String("failed"))
        return {{JobVerb::Role::RequeueFromDead, QStringLiteral("queue.retry"), {}}};
    return {};
}

} // namespace gatehouse
