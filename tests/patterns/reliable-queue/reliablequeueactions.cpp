// SPDX-License-Identifier: MIT
// The hand-written reliable queue (seed): requeue, dead-letter and
// requeue-stuck, each moving jobs between the queue, its processing list
// and its claims only while they are what the console showed.
#include "kit/actioncases.h"

#include <patterns/reliable-queue/reliablequeueunit.h>

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
                    true});
    r.cases.append({QStringLiteral("queue.dead-letter"),
                    {"q:processing", "q:dead", "q:claims"},
                    {processing, dead, claims},
                    {processingWithout, {{"RPUSH", "q:dead", "jobA"}}, claimsOther},
                    {"list", "list", "zset"},
                    [] { return ReliableQueueUnit::deadLetter(queueObject(), "jobA"); },
                    true});
    r.cases.append({QStringLiteral("queue.requeue-stuck"),
                    {"q", "q:processing", "q:claims"},
                    {queue, processing, claims},
                    {{{"RPUSH", "q", "jobA"}}, processingWithout, claimsOther},
                    {"list", "list", "zset"},
                    [] { return ReliableQueueUnit::requeueStuck(queueObject(), 1000, 100); },
                    true});
    return r;
}

const ActionRowsRegistrar s_registrar("reliable-queue", &rows);

} // namespace
} // namespace gatehouse::test
