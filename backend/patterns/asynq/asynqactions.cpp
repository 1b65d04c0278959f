// SPDX-License-Identifier: MIT
#include "asynqlayout.h"
#include "asynqunit.h"

#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/matchcounter.h>

namespace gatehouse {

using namespace AsynqInternal;

namespace {

constexpr qint64 MaxArchiveSize = 10000;             // asynq's maxArchiveSize (rdb/rdb.go)
constexpr qint64 ArchiveRetentionS = 90 * 24 * 3600; // archivedExpirationInDays = 90

ScriptCall baseCall(const PatternObject &o, const QString &action, const QString &script,
                    const QList<AsynqUnit::State> &keys)
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (AsynqUnit::State s : keys) {
        call.keys << AsynqUnit::keyOf(o, s);
        call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(Names[s]),
                                                     QString::fromLatin1(Types[s]));
    }
    return call;
}

// asynq_requeue with no task: the leases expired 30 s ago or more (ZCOUNT).
[[maybe_unused]] const bool s_requeueCounted = MatchCounter::add(
    QStringLiteral("asynq_requeue"),
    {[](const ScriptCall &call, qint64 nowMs) {
         if (!call.args.value(1).isEmpty())
             return QList<QList<QByteArray>>();
         return QList<QList<QByteArray>>{
             {"ZCOUNT", call.keys.value(1), "-inf",
              "(" + QByteArray::number(nowMs / 1000 - AsynqUnit::RecovererGraceS)}};
     },
     [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
     [](const ScriptCall &call) {
         return QStringLiteral("they are requeued %1 per run until none is left")
             .arg(QString::fromLatin1(call.args.value(3)));
     }});

// asynq_task: one task run, archived or deleted, as the Inspector does.
struct TaskVerb
{
    QString verb;
    QString label;
    QString objectName;
    QString summary; // %1 the task, %2 the queue
    QString did;     // after "Task <id> "
    QString already; // reply -2; empty: not a reply of this verb
};

PatternAction taskAction(const TaskVerb &v)
{
    PatternAction a = libraryqueue::oneJobAction(v.verb, v.label, v.objectName, {});
    a.build = [v](const ActionRequest &r) {
        const QByteArray id = r.input(QStringLiteral("job"));
        ScriptCall call = baseCall(r.object, QStringLiteral("queue.") + v.verb,
                                   QStringLiteral("asynq_task"), {});
        call.keys << taskPrefix(r.object) + id;
        call.keyRoles << QStringLiteral("task hash");
        const ScriptCall states
            = baseCall(r.object, call.action, call.script,
                       {AsynqUnit::Pending, AsynqUnit::Scheduled, AsynqUnit::Retry,
                        AsynqUnit::Archived, AsynqUnit::Completed});
        call.keys << states.keys;
        call.keyRoles << states.keyRoles;
        call.args = {v.verb.toLatin1(), id, QByteArray::number(MaxArchiveSize),
                     QByteArray::number(ArchiveRetentionS)};
        call.summary = v.summary.arg(printableBytes(id, 80), printableBytes(queueName(r.object)));
        call.meaning = [v, id](const RedisValue &reply) {
            if (reply.size() == 2 && reply.at(0).toInteger() == 1) { // delete's
                QString said = QStringLiteral("Task %1 was deleted.").arg(printableBytes(id, 80));
                if (!reply.at(1).bytes().isEmpty())
                    said += QStringLiteral(" Its uniqueness lock %1 expires by its TTL.")
                                .arg(printableBytes(reply.at(1).bytes(), 120));
                return ReplyMeaning{true, said};
            }
            QHash<qint64, QString> refusals{
                {0, QStringLiteral("There is no task %1 in this queue; nothing changed.")},
                {-1, QStringLiteral("Task %1 is active; nothing changed.")},
                {-3, QStringLiteral("Task %1 is aggregating in a group; nothing changed.")}};
            if (!v.already.isEmpty())
                refusals.insert(-2, v.already);
            return libraryqueue::jobMeaning(reply.toInteger(), id, v.did, refusals);
        };
        return call;
    };
    return a;
}

QList<PatternAction> taskActions()
{
    return {
        taskAction({QStringLiteral("run"), QStringLiteral("Run now…"), QStringLiteral("runButton"),
                    QStringLiteral("Move asynq task %1 of \"%2\" (scheduled, retry, archived or "
                                   "completed) to pending, as asynq's Inspector.RunTask does."),
                    QStringLiteral("is pending"),
                    QStringLiteral("Task %1 is already pending; nothing changed.")}),
        taskAction({QStringLiteral("archive"), QStringLiteral("Archive…"),
                    QStringLiteral("archiveButton"),
                    QStringLiteral("Archive asynq task %1 of \"%2\", as asynq's "
                                   "Inspector.ArchiveTask does (the archive is trimmed as asynq "
                                   "trims it: 90 days, 10,000 tasks); refused while it is "
                                   "active."),
                    QStringLiteral("was archived"),
                    QStringLiteral("Task %1 is already archived; nothing changed.")}),
        taskAction({QStringLiteral("delete"), QStringLiteral("Delete task…"),
                    QStringLiteral("deleteButton"),
                    QStringLiteral("Delete asynq task %1 of \"%2\": off its state's list or set, "
                                   "and its hash, as asynq's Inspector.DeleteTask does; refused "
                                   "while it is active."),
                    QStringLiteral("was deleted"), QString()}),
    };
}

PatternAction pause(bool pausing)
{
    return libraryqueue::pauseAction(pausing, [pausing](const ActionRequest &r) {
        ScriptCall call = baseCall(
            r.object, pausing ? QStringLiteral("queue.pause") : QStringLiteral("queue.resume"),
            QStringLiteral("asynq_pause"), {AsynqUnit::Paused});
        call.args = {pausing ? "pause" : "resume"};
        call.summary = (pausing ? QStringLiteral("Pause asynq queue \"%1\": its servers take no "
                                                 "task from it, as asynq's "
                                                 "Inspector.PauseQueue does.")
                                : QStringLiteral("Unpause asynq queue \"%1\", as asynq's "
                                                 "Inspector.UnpauseQueue does."))
                           .arg(printableBytes(queueName(r.object)));
        call.meaning = libraryqueue::pauseMeaning(pausing);
        return call;
    });
}

} // namespace

QList<PatternAction> AsynqUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);

    libraryqueue::RequeueSpec requeue;
    requeue.stuckLabel = QStringLiteral("Every lease-expired task");
    requeue.olderThanRefusal
        = QStringLiteral("An asynq task is stuck when its lease expired 30 s ago or more (the "
                         "recoverer's rule): queue requeue takes no --older-than for an asynq "
                         "queue.");
    requeue.build = [batch, cut](const ActionRequest &r) {
        ScriptCall call = baseCall(r.object, QStringLiteral("queue.requeue"),
                                   QStringLiteral("asynq_requeue"), {Active, Lease, Pending});
        const QByteArray id = r.input(QStringLiteral("job"));
        call.args = {taskPrefix(r.object), id, QByteArray::number(RecovererGraceS), batch, cut};
        if (!id.isEmpty()) {
            call.summary = QStringLiteral("Put lease-expired asynq task %1 of \"%2\" back on "
                                          "pending (only if its lease expired 30 s ago or more), "
                                          "as asynq's RDB.Requeue does.")
                               .arg(printableBytes(id, 80), printableBytes(queueName(r.object)));
            call.meaning = [id](const RedisValue &v) {
                return libraryqueue::jobMeaning(
                    v.toInteger(), id, QStringLiteral("was requeued"),
                    {{0, QStringLiteral("Task %1 holds no lease (it moved on); nothing "
                                        "changed.")},
                     {-1, QStringLiteral("Task %1's lease is live or expired less than 30 s ago "
                                         "(a worker may hold it); nothing changed.")},
                     {-2, QStringLiteral("There is no task hash for %1; nothing changed.")}});
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Put every lease-expired asynq task of \"%1\" (lease "
                                          "expired 30 s ago or more) back on pending, up to %2 "
                                          "per run, as asynq's RDB.Requeue does.")
                               .arg(printableBytes(queueName(r.object)))
                               .arg(Batch);
            libraryqueue::batchRun(call, Batch, QStringLiteral("Requeued %1 lease-expired tasks."));
        }
        return call;
    };

    return libraryqueue::requeueActions(requeue) + taskActions()
           + QList<PatternAction>{pause(true), pause(false)};
}

} // namespace gatehouse
