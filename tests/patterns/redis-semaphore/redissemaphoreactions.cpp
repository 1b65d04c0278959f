// SPDX-License-Identifier: MIT
// redis-semaphore: a MultiSemaphore holder (two permits) released only while
// it holds both with the acquire time shown; a Semaphore holder is there
// throughout. "unexpected": it refreshed since (a newer score).
#include "kit/actioncases.h"

#include <patterns/redis-semaphore/redissemaphoreunit.h>

#include "redisserver.h"

#include <QTest>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternObject semaphore;
    semaphore.kind = RedisSemaphoreUnit::Kind;
    semaphore.key = "semaphore:jobs";
    const qint64 acquired = matrixNowMs() - 5000;
    const QByteArray holder = "0b6c59a4-7f7e-4b5e-9d0e-3c1f2a4b5c6d";
    const QByteArray other = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
    PatternActionRows r;
    r.cases.append({QStringLiteral("redis-semaphore.release"),
                    {semaphore.key},
                    {{{"ZADD", semaphore.key, num(acquired), holder + "_0", num(acquired),
                       holder + "_1", num(acquired + 10), other},
                      {"PEXPIRE", semaphore.key, "60000"}}},
                    {{{"ZADD", semaphore.key, num(acquired + 3000), holder + "_0",
                       num(acquired + 3000), holder + "_1", num(acquired + 10), other},
                      {"PEXPIRE", semaphore.key, "60000"}}},
                    {"zset"},
                    [semaphore, holder, acquired] {
                        ActionRequest request;
                        request.object = semaphore;
                        request.target = semaphore.key;
                        request.inputs = {{QStringLiteral("holder"), holder},
                                          {QStringLiteral("score"), num(acquired)}};
                        return RedisSemaphoreUnit().actions().first().build(request);
                    },
                    [other](const ActionCaseRun &r) {
                        if (r.out.result != ActionOutcome::Result::Done)
                            return;
                        // Both permits of the holder shown are gone; the other holder stays.
                        QCOMPARE(r.variant, QStringLiteral("right"));
                        QCOMPARE(call(r.client, {"ZRANGE", r.target, "0", "-1"}),
                                 RedisValue::array({RedisValue::bulk(other)}));
                    }});
    return r;
}

const ActionRowsRegistrar s_registrar("redis-semaphore", &rows);

} // namespace
} // namespace gatehouse::test
