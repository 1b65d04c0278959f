// SPDX-License-Identifier: MIT
// The sorted-set semaphore (seed): a holder released only if it still holds
// the slot shown (its score); another holder is there throughout. "zset"
// (the holder gone, the other still holding) and "missing" find nothing to do.
#include "kit/actioncases.h"

#include <patterns/sorted-set-semaphore/semaphoreunit.h>

#include "redisserver.h"

#include <QTest>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternObject semaphore;
    semaphore.kind = PatternKind("sorted-set-semaphore");
    semaphore.key = "sem:pool";
    const qint64 acquired = matrixNowMs() - 5000;
    PatternActionRows r;
    r.cases.append(
        {QStringLiteral("semaphore.release"),
         {"sem:pool"},
         {{{"ZADD", "sem:pool", num(acquired), "worker-7", num(acquired + 10), "worker-9"}}},
         {{{"ZADD", "sem:pool", num(acquired + 3000), "worker-7", num(acquired + 10),
            "worker-9"}}}, // worker-7 released and acquired again
         {"zset"},
         [semaphore, acquired] { return SemaphoreUnit::release(semaphore, "worker-7", acquired); },
         [](const ActionCaseRun &r) {
             using R = ActionOutcome::Result;
             if (r.out.result != R::Done) {
                 if (!r.wrongType) {
                     QCOMPARE(r.out.result, R::NothingDone);
                     QVERIFY2(r.out.message.contains(QLatin1String("\"sem:pool\"")),
                              qPrintable(r.out.message));
                 }
                 if (r.variant == QLatin1String("unexpected"))
                     QVERIFY2(r.out.message.contains(QLatin1String("not the one shown")),
                              qPrintable(r.out.message));
                 return;
             }
             // Exactly the holder shown is gone; the other still holds its slot.
             QCOMPARE(r.variant, QStringLiteral("right"));
             QVERIFY(call(r.client, {"ZSCORE", r.target, "worker-7"}).isNil());
             QCOMPARE(call(r.client, {"ZRANGE", r.target, "0", "-1"}),
                      RedisValue::array({RedisValue::bulk("worker-9")}));
         }});
    return r;
}

const ActionRowsRegistrar s_registrar("sorted-set-semaphore", &rows);

} // namespace
} // namespace gatehouse::test
