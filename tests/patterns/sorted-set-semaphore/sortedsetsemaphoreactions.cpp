// SPDX-License-Identifier: MIT
// The sorted-set semaphore (seed): a holder released only if it still holds
// the slot shown (its score); another holder is there throughout. "zset"
// (the holder gone, the other still holding) and "missing" find nothing to do.
#include "kit/actioncases.h"

#include <patterns/sorted-set-semaphore/semaphoreunit.h>

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
         [semaphore, acquired] {
             return SemaphoreUnit::release(semaphore, "worker-7", acquired);
         }});
    return r;
}

const ActionRowsRegistrar s_registrar("sorted-set-semaphore", &rows);

} // namespace
} // namespace gatehouse::test
