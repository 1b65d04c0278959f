// SPDX-License-Identifier: MIT
// The hand-written reliable queue (seed): requeue, dead-letter and
// requeue-stuck, each moving jobs between the queue, its processing list
// and its claims only while they are what the console showed.
#include "kit/actioncases.h"

#include <patterns/reliable-queue/reliablequeueunit.h>

#include "redisserver.h"

#include <QTest>

namespace gatehouse::test {
namespace {

PatternObject queueObject()
{
    PatternObject o;
    o.kind = PatternKind("reliable-queue");
    o.key = "q";
    o.related = {"q:processing", "q:claims", "q:dead"};
    return o;
}

// Done: every job is where it was or where the reply says it went (moved
// from the processing list to `to`, not copied or lost, its claim gone);
// fromReply: the jobs moved are the reply's (requeue-stuck), else jobA.
std::function<void(const ActionCaseRun &)> moved(const QByteArray &to, bool fromReply)
{
    return [to, fromReply](const ActionCaseRun &r) {
        if (r.out.result != ActionOutcome::Result::Done)
            return;
        QCOMPARE(listItems(r.client, r.keys), r.itemsBefore);
        QList<QByteArray> jobs{"jobA"};
        if (fromReply) {
            jobs.clear();
            for (const RedisValue &j : r.out.reply.at(2).elements())
                jobs << j.bytes();
        }
        QCOMPARE(countInList(r.client, "q:processing", "jobA") + countInList(r.client, to, "jobA"),
                 int(r.itemsBefore.count("jobA")));
        for (const QByteArray &job : std::as_const(jobs)) {
            QVERIFY(countInList(r.client, to, job) >= 1);
            QVERIFY(call(r.client, {"ZSCORE", "q:claims", job}).isNil());
        }
        if (jobs.isEmpty()) // claims of jobs no longer in flight were dropped
            QVERIFY(r.out.message.contains(QLatin1String("claim")));
    };
}

PatternActionRows rows(const ServerIdentity &)
{
    const QByteArray past = num(matrixNowMs() - 600000);
    const QList<Command> queue{{"RPUSH", "q", "waiting-1", "waiting-2"}};
    const QList<Command> processing{{"RPUSH", "q:processing", "jobA", "jobB"}};
    const QList<Command> processingWithout{{"RPUSH", "q:processing", "jobB", "jobC"}};
    const QList<Command> claims{{"ZADD", "q:claims", past, "jobA", past, "jobB"}};
    const QList<Command> claimsOther{{"ZADD", "q:claims", "1", "someone-else"}};
    const QList<Command> dead{{"RPUSH", "q:dead", "dead-1"}};

    PatternActionRows r;
    r.cases.append({QStringLiteral("queue.requeue"),
                    {"q", "q:processing", "q:claims"},
                    {queue, processing, claims},
                    {{{"RPUSH", "q", "jobA"}}, processingWithout, claimsOther},
                    {"list", "list", "zset"},
                    [] { return ReliableQueueUnit::requeue(queueObject(), "jobA"); },
                    moved("q", false)});
    r.cases.append({QStringLiteral("queue.dead-letter"),
                    {"q:processing", "q:dead", "q:claims"},
                    {processing, dead, claims},
                    {processingWithout, {{"RPUSH", "q:dead", "jobA"}}, claimsOther},
                    {"list", "list", "zset"},
                    [] { return ReliableQueueUnit::deadLetter(queueObject(), "jobA"); },
                    moved("q:dead", false)});
    r.cases.append({QStringLiteral("queue.requeue-stuck"),
                    {"q", "q:processing", "q:claims"},
                    {queue, processing, claims},
                    {{{"RPUSH", "q", "jobA"}}, processingWithout, claimsOther},
                    {"list", "list", "zset"},
                    [] { return ReliableQueueUnit::requeueStuck(queueObject(), 1000, 100); },
                    moved("q", true)});
    return r;
}

const ActionRowsRegistrar s_registrar("reliable-queue", &rows);

} // namespace
} // namespace gatehouse::test
