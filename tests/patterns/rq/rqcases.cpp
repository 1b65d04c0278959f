// SPDX-License-Identifier: MIT
// RQ: queues are one object each, named by their list.
#include "kit/shapecases.h"
#include "rqshapes.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    const double s = now / 1000;
    PatternShapes p;
    p.sample = rqQueueShapes("emails", now);

    // Its registries are not sliding windows, its cleaning guard not a
    // fixed window, its scheduler lock not a lock, its job hashes not
    // tokens; an application's lock and window beside them keep their own
    // pattern.
    p.cases << objectsCase(
        "queues are one object each",
        rqQueueShapes("emails", now) + rqQueueShapes("reports", now)
            + QList<KeyShape>{stringShape("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000),
                              zsetShape("rl:api:failed", now - 4000, now - 10, 8000)},
        {"lock app:order:7:lock", "rq rq:queue:emails", "rq rq:queue:reports",
         "sliding-window rl:api:failed"});

    // RQ 2's own keys (rq/executions.py, rq/intermediate_queue.py of 2.10,
    // as tst_lib_rq's RQ 2 run leaves them): an execution's hash, a job's
    // executions ZSET, the queue's intermediate list and its first-seen
    // guard, its groups (rq/group.py) belong to RQ; none is a queue, lock,
    // window or token.
    p.cases << objectsCase(
        "RQ 2 keys belong to their queue",
        rqQueueShapes("emails", now)
            + QList<KeyShape>{sizedShape("rq:execution:job-1:4e16fcd022bb4345b21912265d41785a",
                                         "hash", 3),
                              zsetShape("rq:executions:job-1", s + 120, s + 120, 121000),
                              listShape("rq:queue:emails:intermediate"),
                              stringShape("rq:queue:emails:intermediate:first_seen:job-2",
                                          "1795503990.5", 86400000),
                              zsetShape("rq:groups", s + 600, s + 900),
                              sizedShape("rq:group:g1", "set", 2)},
        {"rq rq:queue:emails"});
    return p;
}

const ShapeRegistrar s_registrar("rq", &shapes);

} // namespace
} // namespace gatehouse::test
