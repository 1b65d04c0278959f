// SPDX-License-Identifier: MIT
// BullMQ: a queue is one object under its library, whatever its prefix.
#include "bull/bullshapes.h"
#include "bullmqshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = bullMqQueueShapes("bull:emails", now);

    // Its finished sets are not sliding windows, its stall guard not a fixed
    // window, its jobs' locks not locks; an application's lock beside it,
    // and lone keys that merely share a BullMQ name, keep their own pattern.
    p.cases << objectsCase(
        "queues are one object each",
        bullMqQueueShapes("bull:emails", now) + bullMqQueueShapes("{bull}:reports", now)
            + bullQueueShapes("bull:legacy", now)
            + QList<KeyShape>{stringShape("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000),
                              zsetShape("rl:api:completed", now - 4000, now - 10, 8000)},
        {"bull bull:legacy", "bullmq bull:emails", "bullmq {bull}:reports", "lock app:order:7:lock",
         "sliding-window rl:api:completed"});
    return p;
}

const ShapeRegistrar s_registrar("bullmq", &shapes);

} // namespace
} // namespace gatehouse::test
