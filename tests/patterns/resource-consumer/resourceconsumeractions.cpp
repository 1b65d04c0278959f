// SPDX-License-Identifier: MIT
// A resource's per-consumer sliding window (scores in seconds): reset
// empties the consumer's window only while it holds what a limiter writes.
#include "kit/actioncases.h"

#include <patterns/limiters.h>
#include <patterns/resource-consumer/resourceconsumerunit.h>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    const PatternObject consumer = ResourceConsumerUnit().conventionalObject("api:consumer:alice");
    const QByteArray t = num(matrixNowMs() / 1000);
    PatternActionRows r;
    r.cases.append({QStringLiteral("limiter.reset consumer"),
                    {consumer.key},
                    {{{"ZADD", consumer.key, t, t + "-1", t, t + "-2"}}},
                    {{{"ZADD", consumer.key, "1", "alice", "2", "bob"}}}, // a leaderboard
                    {"zset"},
                    [consumer] {
                        return limiterReset(consumer);
                    }});
    return r;
}

const ActionRowsRegistrar s_registrar("resource-consumer", &rows);

} // namespace
} // namespace gatehouse::test
