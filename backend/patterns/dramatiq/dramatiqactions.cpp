// SPDX-License-Identifier: MIT
#include "dramatiqunit.h"

#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/matchcounter.h>

namespace gatehouse {

namespace {

const QByteArray AcksPrefix = "dramatiq:__acks__.";

ScriptCall baseCall(const PatternObject &o, const QString &action, const QString &script,
                    const QList<DramatiqUnit::State> &keys)
{
    static const char *roles[]
        = {"queue list",        "messages hash",     "delay queue list", "delay queue hash",
           "dead letters zset", "dead letters hash", "heartbeats zset"};
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (DramatiqUnit::State s : keys) {
        call.keys << DramatiqUnit::keyOf(o, s);
        call.keyRoles << QString::fromLatin1(roles[s]);
    }
    return call;
}

QByteArray queueName(const PatternObject &o)
{
    return DramatiqUnit::nameOf(o.key);
}

// dramatiq_retry with no message: every dead letter (ZCARD).
[[maybe_unused]] const bool s_retryCounted
    = MatchCounter::add(QStringLiteral("dramatiq_retry"),
                        {[](const ScriptCall &call, qint64) {
                             if (!call.args.value(0).isEmpty())
                                 return QList<QList<QByteArray>>();
                             return QList<QList<QByteArray>>{{"ZCARD", call.keys.value(0)}};
                         },
                         [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
                         [](const ScriptCall &call) {
                             return QStringLiteral("they are retried %1 per run until none is left")
                                 .arg(QString::fromLatin1(call.args.value(2)));
                         }});

} // namespace

QList<PatternAction> DramatiqUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);

    libraryqueue::RequeueSpec requeue;
    requeue.jobLabel = QStringLiteral("Message id");
    requeue.stuckLabel = QStringLiteral("Every orphaned message");
    requeue.olderThanRefusal
        = QStringLiteral("A Dramatiq message is orphaned when its worker's heartbeat stopped "
                         "(the rule's stuckAfterMs): queue requeue takes no --older-than for a "
                         "Dramatiq queue.");
    requeue.build = [batch, cut](const ActionRequest &r) {
        ScriptCall call = baseCall(r.object, QStringLiteral("queue.requeue"),
                                   QStringLiteral("dramatiq_requeue"),
                                   {Queue, Msgs, Delayed, DelayedMsgs, Heartbeats});
        const QByteArray id = r.input(QStringLiteral("job"));
        const QByteArray timeout = QByteArray::number(r.object->params.stuckAfterMs);
        call.args = {AcksPrefix, queueName(r.object), timeout, id, batch, cut};
        if (!id.isEmpty()) {
            call.summary = QStringLiteral("Put orphaned Dramatiq message %1 of \"%2\" (unacked "
                                          "by a worker whose heartbeat is %3 ms old or more) "
                                          "back on its queue, as Dramatiq's maintenance does.")
                               .arg(printableBytes(id, 80), printableBytes(queueName(r.object)),
                                    QString::fromLatin1(timeout));
            call.meaning = [id](const RedisValue &v) {
                return libraryqueue::jobMeaning(
                    v.toInteger(), id, QStringLiteral("was requeued"),
                    {{0, QStringLiteral("Message %1 is not held by a worker whose heartbeat "
                                        "stopped; nothing changed.")},
                     {-2, QStringLiteral("Message %1 is no longer in the queue's messages "
                                         "hash; nothing changed.")}});
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary
                = QStringLiteral("Put every orphaned Dramatiq message of \"%1\" (unacked "
                                 "by a worker whose heartbeat is %2 ms old or more; up "
                                 "to %3 such workers per run) back on its queue, as "
                                 "Dramatiq's maintenance does.")
                      .arg(printableBytes(queueName(r.object)), QString::fromLatin1(timeout))
                      .arg(Batch);
            libraryqueue::batchRun(call, Batch, QStringLiteral("Requeued %1 orphaned messages."));
        }
        return call;
    };

    PatternAction retry = libraryqueue::jobOrAllAction(
        QStringLiteral("retry"), QStringLiteral("Retry…"), QStringLiteral("all"),
        QStringLiteral("Every dead letter"), [batch, cut](const ActionRequest &r) {
            ScriptCall call = baseCall(r.object, QStringLiteral("queue.retry"),
                                       QStringLiteral("dramatiq_retry"),
                                       {Dead, DeadMsgs, Queue, Msgs, Delayed, DelayedMsgs});
            const QByteArray id = r.input(QStringLiteral("job"));
            call.args = {id, queueName(r.object), batch, cut};
            if (!id.isEmpty()) {
                call.summary
                    = QStringLiteral("Put dead-lettered Dramatiq message %1 of \"%2\" "
                                     "back on the queue its message names.")
                          .arg(printableBytes(id, 80), printableBytes(queueName(r.object)));
                call.meaning = [id](const RedisValue &v) {
                    return libraryqueue::jobMeaning(
                        v.toInteger(), id, QStringLiteral("was retried"),
                        {{0, QStringLiteral("Message %1 is not a dead letter of this queue; "
                                            "nothing changed.")}});
                };
            } else {
                call.summary = QStringLiteral("Put every dead-lettered Dramatiq message of "
                                              "\"%1\" back on the queue its message names, the "
                                              "oldest first, up to %2 per run.")
                                   .arg(printableBytes(queueName(r.object)))
                                   .arg(Batch);
                libraryqueue::batchRun(call, Batch, QStringLiteral("Retried %1 dead letters."));
            }
            return call;
        });
    retry.check = [](const ActionRequest &r) -> QString {
        if (r.has(QStringLiteral("completed")))
            return QStringLiteral("Dramatiq retries dead letters only: queue retry takes no "
                                  "--completed for a Dramatiq queue.");
        return libraryqueue::oneOf(r, QStringLiteral("retry"), QStringLiteral("all"));
    };

    return libraryqueue::requeueActions(requeue) + QList<PatternAction>{retry};
}

} // namespace gatehouse
