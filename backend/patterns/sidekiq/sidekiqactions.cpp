// SPDX-License-Identifier: MIT
#include "sidekiqlayout.h"
#include "sidekiqunit.h"

#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/matchcounter.h>
#include <redis/redisscript.h>

namespace gatehouse {

using namespace SidekiqInternal;

namespace {

// The deployment as the console names it ("Sidekiq", "Sidekiq myapp"), never
// its processes set's key ("queues").
QString deployment(const PatternObject &object)
{
    return PatternUnit::of(object.kind).displayName(object);
}

// elsewhere: where else it may be, when the set was not named.
ReplyMeaning oneJob(qint64 reply, const QByteArray &jid, const QString &did, const QString &where,
                    const QString &elsewhere = {})
{
    return libraryqueue::jobMeaning(
        reply, jid, did,
        {{0, QStringLiteral("No job %1 %2 (it moved on, or is in another set%3); nothing changed.")
                 .arg(QStringLiteral("%1"), where, elsewhere)},
         {-1, QStringLiteral("Job %1 is in flight on a live Sidekiq process; nothing changed.")},
         {-2, QStringLiteral("Job %1's record is not a Sidekiq job Gatehouse can move; nothing "
                             "changed.")}});
}

} // namespace

namespace {

// sidekiq_recover with no jid (KEYS[2] processes SET, ARGV[1] namespace,
// ARGV[3] dead after, ARGV[4] batch): the jobs in flight on dead processes,
// counted by sidekiq_count_stranded (read-only, HLEN of the dead processes'
// work hashes: dead by the server's clock, as the recover script judges).
[[maybe_unused]] const bool s_recoverCounted = MatchCounter::add(
    QStringLiteral("sidekiq_recover"),
    {[](const ScriptCall &call, qint64) {
         if (!call.args.value(1).isEmpty())
             return QList<QList<QByteArray>>();
         static const QByteArray source
             = RedisScript::fromResource(QStringLiteral("sidekiq_count_stranded")).source();
         return QList<QList<QByteArray>>{{"EVAL", source, "1", call.keys.value(1),
                                          call.args.value(0), call.args.value(2),
                                          call.args.value(3)}};
     },
     [](const QList<RedisValue> &r) {
         const RedisValue reply = r.value(0); // {stranded, dead, examined}
         return reply.size() >= 1 ? reply.at(0).toInteger() : qint64(0);
     },
     [](const ScriptCall &call) {
         return QStringLiteral("they are requeued %1 per run until none is left")
             .arg(QString::fromLatin1(call.args.value(3)));
     }});

} // namespace

namespace {

// requeue: a dead process's work back to its queues.
libraryqueue::RequeueSpec requeueSpec()
{
    libraryqueue::RequeueSpec requeue;
    requeue.jobLabel = QStringLiteral("Job id (jid)");
    requeue.stuckLabel = QStringLiteral("Every stuck job");
    requeue.olderThanRefusal
        = QStringLiteral("A Sidekiq job is stuck when its process is dead, whatever its age: queue "
                         "requeue takes no --older-than for Sidekiq.");
    requeue.build = [](const ActionRequest &r) {
        ScriptCall call;
        call.action = QStringLiteral("queue.requeue");
        call.script = QStringLiteral("sidekiq_recover");
        call.keys = {SidekiqUnit::keyOf(r.object, SidekiqUnit::Queues),
                     SidekiqUnit::keyOf(r.object, SidekiqUnit::Processes)};
        call.keyRoles = {QStringLiteral("queues set"), QStringLiteral("processes set")};
        const QByteArray job = r.input(QStringLiteral("job"));
        call.args = {nsOf(r.object), job, QByteArray::number(SidekiqUnit::DeadAfterMs),
                     QByteArray::number(SidekiqUnit::Batch),
                     QByteArray::number(ScriptCall::ReplyCutBytes)};
        if (!job.isEmpty()) {
            call.summary = QStringLiteral("Push Sidekiq job %1, in flight on a dead process of "
                                          "%2, back to its queue and remove it from the "
                                          "process's work, as Sidekiq requeues in-progress work "
                                          "at shutdown.")
                               .arg(printableBytes(job, 80), deployment(r.object));
            const QByteArray ns = nsOf(r.object);
            call.meaning = [job, ns](const RedisValue &v) {
                // Requeued: {1, the queue's name}, as the job's work record named it.
                const bool moved = v.isArray() && v.size() == 2;
                const QByteArray queue = moved ? v.at(1).bytes() : QByteArray();
                return oneJob(
                    moved ? v.at(0).toInteger() : v.toInteger(), job,
                    QStringLiteral("was pushed back to queue \"%1\" (%2)")
                        .arg(printableBytes(queue, 80), printableBytes(ns + "queue:" + queue, 120)),
                    QStringLiteral("in flight on a dead process"));
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Push every job in flight on a dead Sidekiq process of "
                                          "%1 (heartbeat gone or older than %2) back to its "
                                          "queue, up to %3 per run, as Sidekiq requeues "
                                          "in-progress work at shutdown.")
                               .arg(deployment(r.object), formatMs(SidekiqUnit::DeadAfterMs))
                               .arg(SidekiqUnit::Batch);
            libraryqueue::batchRun(call, SidekiqUnit::Batch,
                                   QStringLiteral("Requeued %1 stuck jobs."));
        }
        return call;
    };
    return requeue;
}

} // namespace

QList<PatternAction> SidekiqUnit::actions() const
{
    const QByteArray batch = QByteArray::number(Batch);

    // Sidekiq Web's buttons on a job of the retry, scheduled and dead pages.
    struct SetOp
    {
        const char *id, *verb, *label, *objectName, *usage, *defaultFrom;
        QList<QByteArray> allowed;
    };
    const QList<SetOp> ops{
        {"queue.retry",
         "retry",
         "Retry now…",
         "retryButton",
         "queue retry QUEUE --job [SCORE-]JID [--from retry|schedule|dead]",
         "retry",
         {"retry", "schedule", "dead"}},
        {"queue.delete",
         "delete",
         "Delete…",
         "deleteButton",
         "queue delete QUEUE --job [SCORE-]JID [--from retry|schedule|dead]",
         "retry",
         {"retry", "schedule", "dead"}},
        {"queue.kill",
         "kill",
         "Kill…",
         "killButton",
         "queue kill QUEUE --job [SCORE-]JID [--from retry|schedule]",
         "retry",
         {"retry", "schedule"}},
    };
    QList<PatternAction> setActions;
    for (const SetOp &op : ops) {
        PatternAction a;
        a.id = QString::fromLatin1(op.id);
        a.verb = QString::fromLatin1(op.verb);
        a.label = QString::fromUtf8(op.label);
        a.objectName = QString::fromLatin1(op.objectName);
        a.usage = QString::fromLatin1(op.usage);
        a.inputs = {libraryqueue::jobInput(true, QStringLiteral("Job id (jid)")),
                    libraryqueue::optionalInput(QStringLiteral("from"),
                                                QStringLiteral("From (retry, schedule or dead)"))};
        const QString verb = a.verb;
        const QByteArray defaultFrom = op.defaultFrom;
        const QList<QByteArray> allowed = op.allowed;
        a.check = [verb, allowed](const ActionRequest &r) -> QString {
            if (r.input(QStringLiteral("job")).isEmpty())
                return QStringLiteral("queue %1 needs --job JID.").arg(verb);
            const QByteArray from = r.input(QStringLiteral("from"));
            if (!from.isEmpty() && !allowed.contains(from))
                return QStringLiteral("queue %1 takes --from %2.")
                    .arg(verb, QString::fromLatin1(allowed.join('|')));
            return {};
        };
        a.build = [verb, defaultFrom, allowed, batch](const ActionRequest &r) {
            QByteArray from = r.input(QStringLiteral("from"));
            QString elsewhere;
            if (from.isEmpty()) {
                from = defaultFrom;
                QList<QByteArray> others = allowed;
                others.removeAll(from);
                elsewhere = QStringLiteral(": name it with --from %1; queue search finds it")
                                .arg(QString::fromLatin1(others.join('|')));
            }
            const Shared set = from == "schedule" ? Schedule : from == "dead" ? Dead : Retry;
            ScriptCall call;
            call.action = QStringLiteral("queue.") + verb;
            call.script = QStringLiteral("sidekiq_move");
            call.keys = {keyOf(r.object, set), keyOf(r.object, Queues), keyOf(r.object, Dead)};
            call.keyRoles = {QStringLiteral("%1 zset").arg(QString::fromLatin1(from)),
                             QStringLiteral("queues set"), QStringLiteral("dead zset")};
            // Sidekiq Web: "retry" on the retry and dead pages (retry_count
            // given back), "add to queue" on the scheduled page.
            QByteArray op = verb.toUtf8();
            if (verb == QLatin1String("retry") && set == Schedule)
                op = "enqueue";
            // Plain variables, not a structured binding: clang 14 cannot capture those.
            const std::pair<QByteArray, QByteArray> named
                = scoreAndJid(r.input(QStringLiteral("job")));
            const QByteArray job = named.second;
            call.args = {op, job, named.first, batch, nsOf(r.object)};
            const QString jobName = printableBytes(job, 80);
            const QString where = QStringLiteral("in %1").arg(QString::fromLatin1(from));
            QString did;
            if (op == "delete") {
                call.summary = QStringLiteral("Delete Sidekiq job %1 from the %2 set of %3, "
                                              "as Sidekiq Web's Delete does.");
                did = QStringLiteral("was deleted");
            } else if (op == "kill") {
                call.summary = QStringLiteral("Move Sidekiq job %1 from the %2 set of %3 to "
                                              "the dead set, as Sidekiq Web's Kill does.");
                did = QStringLiteral("was moved to the dead set");
            } else {
                call.summary = QStringLiteral("Push Sidekiq job %1 from the %2 set of %3 to "
                                              "its queue now, as Sidekiq Web's Retry Now (Add to "
                                              "Queue) does.");
                did = QStringLiteral("was pushed to its queue");
            }
            call.summary
                = call.summary.arg(jobName, QString::fromLatin1(from), deployment(r.object));
            call.meaning = [job, did, where, elsewhere](const RedisValue &v) {
                return oneJob(v.toInteger(), job, did, where, elsewhere);
            };
            return call;
        };
        setActions.append(a);
    }

    return libraryqueue::requeueActions(requeueSpec()) + setActions;
}

} // namespace gatehouse
