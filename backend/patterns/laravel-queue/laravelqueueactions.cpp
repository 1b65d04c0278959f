// SPDX-License-Identifier: MIT
#include "laravelqueueunit.h"

#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/matchcounter.h>

namespace gatehouse {

namespace {

constexpr const char *Roles[] = {"queue list", "delayed zset", "reserved zset", "notify list"};

ScriptCall baseCall(const PatternObject &o, const QString &action, const QString &script,
                    const QList<LaravelQueueUnit::State> &keys)
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    for (LaravelQueueUnit::State s : keys) {
        call.keys << LaravelQueueUnit::keyOf(o, s);
        call.keyRoles << QString::fromLatin1(Roles[s]);
    }
    return call;
}

// laravel_migrate_expired with no job: the reservations whose expiry (the
// score, epoch seconds) is at or before the server's clock, as the script
// judges them.
[[maybe_unused]] const bool s_releaseCounted = MatchCounter::add(
    QStringLiteral("laravel_migrate_expired"),
    {[](const ScriptCall &call, qint64 nowMs) {
         if (!call.args.value(2).isEmpty())
             return QList<QList<QByteArray>>();
         return QList<QList<QByteArray>>{
             {"ZCOUNT", call.keys.value(0), "-inf", QByteArray::number(nowMs / 1000)}};
     },
     [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
     [](const ScriptCall &call) {
         return QStringLiteral("they are put back on the queue %1 per run until none is left")
             .arg(QString::fromLatin1(call.args.value(1)));
     }});

} // namespace

QList<PatternAction> LaravelQueueUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);

    libraryqueue::RequeueSpec release;
    release.stuckLabel = QStringLiteral("Every expired reservation");
    release.olderThanRefusal
        = QStringLiteral("A Laravel reservation expires at its own retry_after (its score): "
                         "queue requeue takes no --older-than for a Laravel queue.");
    release.build = [batch, cut](const ActionRequest &r) {
        ScriptCall call
            = baseCall(r.object, QStringLiteral("queue.requeue"),
                       QStringLiteral("laravel_migrate_expired"), {Reserved, Queue, Notify});
        const QByteArray job = jobIdOf(r.input(QStringLiteral("job")));
        call.args = {QByteArray(), batch, job, cut};
        if (!job.isEmpty()) {
            call.summary = QStringLiteral("Put reserved Laravel job %1 of \"%2\" back on its queue "
                                          "(only if its reservation has expired), as "
                                          "RedisQueue::migrateExpiredJobs does.")
                               .arg(printableBytes(job, 80), printableBytes(r.object->key));
            call.meaning = [job](const RedisValue &v) {
                return libraryqueue::jobMeaning(
                    v.toInteger(), job, QStringLiteral("was put back on its queue"),
                    {{0, QStringLiteral("Job %1 is not reserved (it moved on); nothing "
                                        "changed.")},
                     {-1, QStringLiteral("Job %1's reservation has not expired: a worker may "
                                         "still run it; nothing changed.")}});
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Put every expired reservation of \"%1\" (reserved past "
                                          "retry_after) back on its queue, up to %2 per run, as "
                                          "RedisQueue::migrateExpiredJobs does.")
                               .arg(printableBytes(r.object->key))
                               .arg(Batch);
            libraryqueue::batchRun(call, Batch,
                                   QStringLiteral("Put %1 expired reservations back on the "
                                                  "queue."));
        }
        return call;
    };

    PatternAction remove = libraryqueue::oneJobAction(
        QStringLiteral("remove"), QStringLiteral("Remove job…"), QStringLiteral("removeButton"),
        [](const ActionRequest &r) {
            ScriptCall call
                = baseCall(r.object, QStringLiteral("queue.remove"),
                           QStringLiteral("laravel_remove"), {Queue, Delayed, Reserved, Notify});
            const QByteArray job = jobIdOf(r.input(QStringLiteral("job")));
            call.args = {job, QByteArray(), QByteArray::number(ListSearch)};
            call.summary = QStringLiteral("Remove Laravel job %1 (its payload's id) from \"%2\": "
                                          "from the reserved or delayed set or the queue's list "
                                          "(its first %3 entries); refused while its reservation "
                                          "has not expired.")
                               .arg(printableBytes(job, 80), printableBytes(r.object->key))
                               .arg(ListSearch);
            call.meaning = [job](const RedisValue &v) {
                return libraryqueue::jobMeaning(
                    v.toInteger(), job, QStringLiteral("was removed"),
                    {{0, QStringLiteral("There is no job %1 in the queue; nothing changed.")},
                     {-1, QStringLiteral("Job %1 is reserved and its reservation has not "
                                         "expired: a worker may still run it; nothing "
                                         "changed.")},
                     {-3, QStringLiteral("Job %1 is not in the queue's first ")
                              + QString::number(ListSearch)
                              + QStringLiteral(" entries; nothing changed.")}});
            };
            return call;
        });

    return libraryqueue::requeueActions(release) + QList<PatternAction>{remove};
}

} // namespace gatehouse
