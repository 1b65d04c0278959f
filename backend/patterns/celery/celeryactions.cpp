// SPDX-License-Identifier: MIT
#include "celerylayout.h"
#include "celeryunit.h"

#include <patterns/countedsentence.h>
#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/matchcounter.h>

#include <algorithm>

namespace gatehouse {

using namespace CeleryInternal;

namespace {

ReplyMeaning oneTag(qint64 reply, const QByteArray &tag, const QByteArray &queue)
{
    const QString name = printableBytes(tag, 80);
    switch (reply) {
    case 1:
        return {true, QStringLiteral("Message %1 was put back on queue \"%2\".")
                          .arg(name, printableBytes(queue))};
    case 0:
        return {false, QStringLiteral("Message %1 is not unacked (acknowledged, or already "
                                      "restored); nothing changed.")
                           .arg(name)};
    case -1:
        return {false, QStringLiteral("Message %1 is not past the visibility timeout (or has no "
                                      "delivery time): its worker may still be running it; "
                                      "nothing changed.")
                           .arg(name)};
    case -2:
        return {false, QStringLiteral("Message %1 goes to another queue (or is unreadable); "
                                      "nothing changed.")
                           .arg(name)};
    case -3:
        return {false, QStringLiteral("unacked_mutex is held: a kombu worker is restoring unacked "
                                      "messages right now; nothing changed. Try again shortly.")};
    default:
        return {
            false,
            QStringLiteral("Unexpected reply %1; nothing is known to have changed.").arg(reply)};
    }
}

} // namespace

namespace {

// celery_restore with no tag (KEYS[2] unacked_index ZSET, delivery times in
// epoch seconds; ARGV[4] visibility timeout in seconds, ARGV[5] batch): the
// messages delivered before now - the timeout (ZCOUNT). The index is the
// broker's, shared by its queues: messages of another queue are counted here
// and left unacked by the run (it says how many).
[[maybe_unused]] const bool s_restoreCounted = MatchCounter::add(
    QStringLiteral("celery_restore"),
    {[](const ScriptCall &call, qint64 nowMs) {
         if (!call.args.value(2).isEmpty())
             return QList<QList<QByteArray>>();
         const double cutoff = double(nowMs) / 1000.0 - call.args.value(3).toDouble();
         return QList<QList<QByteArray>>{
             {"ZCOUNT", call.keys.value(1), "-inf", QByteArray::number(cutoff, 'f', 3)}};
     },
     [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
     [](const ScriptCall &call) {
         return QStringLiteral("they are restored %1 per run until none is left (the broker's "
                               "other queues' messages are counted too and left unacked)")
             .arg(QString::fromLatin1(call.args.value(4)));
     }});

} // namespace

namespace {

// The all-messages reply {restored, restored, skipped, waiting, oldest
// delivery (s), oldest tag, now (s), tag...}: what it did, or why nothing.
ReplyMeaning restoredMeaning(const RedisValue &v, const QByteArray &queue, qint64 visibilityMs,
                             qint64 olderThanMs)
{
    if (!v.isArray())
        return oneTag(v.toInteger(), {}, queue);
    const qint64 n = v.size() >= 2 ? v.at(1).toInteger() : 0;
    const qint64 skipped = v.size() >= 3 ? v.at(2).toInteger() : 0;
    QString text;
    if (n > 0) {
        text = countedSentence(QStringLiteral("Requeued %1 stuck messages."), n);
    } else {
        const auto part = [&v](qsizetype i) {
            return i < v.size() ? v.at(i).bytes() : QByteArray();
        };
        const qint64 waiting = v.size() >= 7 ? v.at(3).toInteger() : 0;
        bool ok = false, nowOk = false;
        const double oldestS = part(4).toDouble(&ok);
        const double nowS = part(6).toDouble(&nowOk);
        const QString name = printableBytes(queue, 80);
        const QString cut = olderThanMs >= 0 ? formatMs(olderThanMs) : formatMs(visibilityMs);
        if (waiting > 0 && ok && nowOk) {
            const qint64 forMs = std::max<qint64>(0, qint64((nowS - oldestS) * 1000.0));
            const qint64 inMs = std::max<qint64>(0, visibilityMs - forMs);
            text = QStringLiteral(
                       "Nothing is unacked longer than %1 on \"%2\"; nothing changed. %3 "
                       "message(s) of it are unacked (a worker took them and has not "
                       "acknowledged them), the oldest (delivery tag %4) for %5. kombu puts it "
                       "back on the queue by itself in %6 (its delivery + the visibility "
                       "timeout %7), once a worker polls the broker. To restore it now: "
                       "gatehouse-cli queue requeue %2 --older-than %8 --force (confirmed and "
                       "audited; if its worker is still alive and running it, it runs twice).")
                       .arg(cut, name)
                       .arg(waiting)
                       .arg(printableBytes(part(5), 80), formatMs(forMs), formatMs(inMs),
                            formatMs(visibilityMs))
                       .arg(std::max<qint64>(0, forMs - 1000));
        } else {
            text = QStringLiteral("Nothing is unacked longer than %1 on \"%2\", and nothing of it "
                                  "is unacked at all; nothing changed.")
                       .arg(cut, name);
        }
    }
    if (skipped > 0)
        text += QStringLiteral(" %1 routed to another queue or unreadable were left unacked.")
                    .arg(skipped);
    return ReplyMeaning{n > 0, text};
}

} // namespace

QList<PatternAction> CeleryUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    const QByteArray batch = QByteArray::number(Batch);

    libraryqueue::RequeueSpec requeue;
    requeue.jobLabel = QStringLiteral("Delivery tag");
    requeue.jobValue = QStringLiteral("TAG");
    requeue.stuckLabel = QStringLiteral("Every message past the visibility timeout");
    requeue.build = [batch, cut](const ActionRequest &r) {
        ScriptCall call;
        call.action = QStringLiteral("queue.requeue");
        call.script = QStringLiteral("celery_restore");
        for (State s : {Unacked, UnackedIndex, UnackedMutex, Queue, Binding}) {
            call.keys << keyOf(r.object, s);
            call.keyRoles << QStringLiteral("%1 %2").arg(QString::fromLatin1(Roles[s]),
                                                         QString::fromLatin1(Types[s]));
        }
        const QByteArray tag = r.input(QStringLiteral("job"));
        const qint64 visibility = r.object->params.stuckAfterMs;
        const QByteArray exchange = exchangeOf(r.object);
        if (r.has(QStringLiteral("older-than"))) {
            // Before kombu would: unacked longer than MS. Nothing in Redis
            // says whether the worker that took a message is alive (kombu
            // records no consumer with it; a killed worker's pidbox binding
            // stays), so it is refused unless forced.
            const qint64 ms
                = std::max<qint64>(0, r.input(QStringLiteral("older-than")).toLongLong());
            call.action = QStringLiteral("queue.requeue-stuck");
            call.args = {r.object->key, exchange, QByteArray(), secondsArg(double(ms) / 1000.0),
                         batch,         cut};
            call.summary
                = QStringLiteral("Put every Celery message of \"%1\" unacked for longer than %2 "
                                 "back on the queue now, up to %3, as kombu's restore_by_tag does "
                                 "after the visibility timeout (%4). A worker that is still alive "
                                 "and running one of them will run it a second time.")
                      .arg(printableBytes(r.object->key), formatMs(ms))
                      .arg(Batch)
                      .arg(formatMs(visibility));
            call.refusal
                = QStringLiteral("messages unacked for less than the visibility timeout (%1) may "
                                 "still be running on a live worker (Redis does not say which "
                                 "worker took them), which would run them twice.")
                      .arg(formatMs(visibility));
            call.forceable = true;
            const QByteArray queue = r.object->key;
            call.meaning = [queue, visibility, ms](const RedisValue &v) {
                return restoredMeaning(v, queue, visibility, ms);
            };
            return call;
        }
        call.args
            = {r.object->key, exchange, tag, secondsArg(double(visibility) / 1000.0), batch, cut};
        if (!tag.isEmpty()) {
            call.summary = QStringLiteral("Put Celery message %1 back on queue \"%2\" if it is "
                                          "unacked past the visibility timeout (%3), as kombu's "
                                          "restore_by_tag does.")
                               .arg(printableBytes(tag, 80), printableBytes(r.object->key),
                                    formatMs(visibility));
            const QByteArray queue = r.object->key;
            call.meaning = [tag, queue](const RedisValue &v) {
                return oneTag(v.toInteger(), tag, queue);
            };
        } else {
            call.action = QStringLiteral("queue.requeue-stuck");
            call.summary = QStringLiteral("Put every Celery message of \"%1\" unacked past the "
                                          "visibility timeout (%2) back on the queue, up to %3 per "
                                          "run, as kombu's restore_visible does (not while "
                                          "unacked_mutex is held).")
                               .arg(printableBytes(r.object->key), formatMs(visibility))
                               .arg(Batch);
            call.batch = Batch;
            call.batchSummary = QStringLiteral("Requeued %1 stuck messages.");
            const QByteArray queue = r.object->key;
            call.meaning = [queue, visibility](const RedisValue &v) {
                return restoredMeaning(v, queue, visibility, -1);
            };
        }
        return call;
    };

    QList<PatternAction> out = libraryqueue::requeueActions(requeue);
    // Celery's requeue also takes --older-than MS (with --force): restore
    // before the visibility timeout, what kombu only does after it.
    PatternAction &cli = out.first();
    cli.usage = QStringLiteral("queue requeue QUEUE (--job TAG | --stuck | --older-than MS "
                               "--force)");
    for (ActionInput &in : cli.inputs) {
        if (in.id == QLatin1String("older-than")) {
            in.label = QStringLiteral("Or: unacked longer than (ms), before the visibility "
                                      "timeout (forced)");
            in.console = true;
        }
    }
    cli.check = [plain = cli.check](const ActionRequest &r) -> QString {
        if (!r.has(QStringLiteral("older-than")))
            return plain ? plain(r) : QString();
        if (r.has(QStringLiteral("job")) || r.has(QStringLiteral("stuck")))
            return QStringLiteral("queue requeue takes --older-than MS alone (not with --job or "
                                  "--stuck).");
        bool ok = false;
        const qint64 ms = r.input(QStringLiteral("older-than")).toLongLong(&ok);
        return ok && ms >= 0 ? QString()
                             : QStringLiteral("--older-than takes a number of ms (0 or more).");
    };
    return out;
}

} // namespace gatehouse
