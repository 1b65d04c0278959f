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

// A task's own call: its hash first, then the queue's state keys.
ScriptCall taskCall(const ActionRequest &r, const QString &action, const QString &script,
                    const QList<AsynqUnit::State> &keys)
{
    const QByteArray id = r.input(QStringLiteral("job"));
    ScriptCall call = baseCall(r.object, action, script, {});
    call.keys << taskPrefix(r.object) + id;
    call.keyRoles << QStringLiteral("task hash");
    const ScriptCall rest = baseCall(r.object, action, script, keys);
    call.keys << rest.keys;
    call.keyRoles << rest.keyRoles;
    call.args = {id};
    return call;
}

ReplyMeaning taskMeaning(qint64 reply, const QByteArray &id, const QString &did,
                         const QHash<qint64, QString> &more)
{
    QHash<qint64, QString> refusals{
        {0, QStringLiteral("There is no task %1 in this queue; nothing changed.")},
        {-3, QStringLiteral("Task %1 is aggregating in a group; nothing changed.")}};
    refusals.insert(more);
    return libraryqueue::jobMeaning(reply, id, did, refusals);
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

PatternAction runAction()
{
    PatternAction a = libraryqueue::oneJobAction(QStringLiteral("run"), QStringLiteral("Run now…"),
                                                 QStringLiteral("runButton"), {});
    a.build = [](const ActionRequest &r) {
        ScriptCall call = taskCall(r, QStringLiteral("queue.run"), QStringLiteral("asynq_run"),
                                   {AsynqUnit::Pending, AsynqUnit::Scheduled, AsynqUnit::Retry,
                                    AsynqUnit::Archived, AsynqUnit::Completed});
        const QByteArray id = call.args.first();
        call.summary = QStringLiteral("Move asynq task %1 of \"%2\" (scheduled, retry, archived or "
                                      "completed) to pending, as asynq's Inspector.RunTask does.")
                           .arg(printableBytes(id, 80), printableBytes(queueName(r.object)));
        call.meaning = [id](const RedisValue &v) {
            return taskMeaning(v.toInteger(), id, QStringLiteral("is pending"),
                               {{-1, QStringLiteral("Task %1 is active; nothing changed.")},
                                {-2, QStringLiteral("Task %1 is already pending; nothing "
                                                    "changed.")}});
        };
        return call;
    };
    return a;
}

PatternAction archiveAction()
{
    PatternAction a = libraryqueue::oneJobAction(
        QStringLiteral("archive"), QStringLiteral("Archive…"), QStringLiteral("archiveButton"), {});
    a.build = [](const ActionRequest &r) {
        ScriptCall call
            = taskCall(r, QStringLiteral("queue.archive"), QStringLiteral("asynq_archive"),
                       {AsynqUnit::Archived, AsynqUnit::Pending, AsynqUnit::Scheduled,
                        AsynqUnit::Retry, AsynqUnit::Completed});
        const QByteArray id = call.args.first();
        call.args << QByteArray::number(MaxArchiveSize) << QByteArray::number(ArchiveRetentionS);
        call.summary = QStringLiteral("Archive asynq task %1 of \"%2\", as asynq's "
                                      "Inspector.ArchiveTask does (the archive is trimmed as "
                                      "asynq trims it: 90 days, 10,000 tasks); refused while "
                                      "it is active.")
                           .arg(printableBytes(id, 80), printableBytes(queueName(r.object)));
        call.meaning = [id](const RedisValue &v) {
            return taskMeaning(v.toInteger(), id, QStringLiteral("was archived"),
                               {{-1, QStringLiteral("Task %1 is already archived; nothing "
                                                    "changed.")},
                                {-2, QStringLiteral("Task %1 is active; nothing changed.")}});
        };
        return call;
    };
    return a;
}

PatternAction deleteAction()
{
    PatternAction a
        = libraryqueue::oneJobAction(QStringLiteral("delete"), QStringLiteral("Delete task…"),
                                     QStringLiteral("deleteButton"), {});
    a.build = [](const ActionRequest &r) {
        ScriptCall call
            = taskCall(r, QStringLiteral("queue.delete"), QStringLiteral("asynq_delete"),
                       {AsynqUnit::Pending, AsynqUnit::Scheduled, AsynqUnit::Retry,
                        AsynqUnit::Archived, AsynqUnit::Completed});
        const QByteArray id = call.args.first();
        call.summary = QStringLiteral("Delete asynq task %1 of \"%2\": off its state's list or "
                                      "set, and its hash, as asynq's Inspector.DeleteTask "
                                      "does; refused while it is active.")
                           .arg(printableBytes(id, 80), printableBytes(queueName(r.object)));
        call.meaning = [id](const RedisValue &v) {
            if (v.size() == 2 && v.at(0).toInteger() == 1) {
                QString said = QStringLiteral("Task %1 was deleted.").arg(printableBytes(id, 80));
                if (!v.at(1).bytes().isEmpty())
                    said += QStringLiteral(" Its uniqueness lock %1 expires by its TTL.")
                                .arg(printableBytes(v.at(1).bytes(), 120));
                return ReplyMeaning{true, said};
            }
            return taskMeaning(v.toInteger(), id, QString(),
                               {{-1, QStringLiteral("Task %1 is active; nothing changed.")}});
        };
        return call;
    };
    return a;
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

    return libraryqueue::requeueActions(requeue)
           + QList<PatternAction>{runAction(), archiveAction(), deleteAction(), pause(true),
                                  pause(false)};
}

} // namespace gatehouse
