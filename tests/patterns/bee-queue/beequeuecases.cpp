// SPDX-License-Identifier: MIT
// bee-queue: a queue of its own library's, never Bull's.
#include "beequeueshapes.h"
#include "bull/bullshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = beeQueueShapes("bq:emails", now);

    // It shares the names id, active and delayed with Bull, but its jobs
    // hash and stall check's stalling set and stallBlock guard are only its
    // own. A base with Bull's id counter, active and delayed alone is
    // neither library's.
    ShapeCase c;
    c.name = "bee-queue is not Bull";
    c.shapes
        = beeQueueShapes("bq:emails", now) + bullQueueShapes("bull:legacy", now)
          + QList<KeyShape>{stringShape("jobs:bare:id", "3", -1), listShape("jobs:bare:active"),
                            zsetShape("jobs:bare:delayed", now + 60000, now + 3600000)};
    c.present = QStringList{"bee-queue bq:emails", "bull bull:legacy"};
    c.absent = QStringList{"bull bq:*", "*bq:emails:*", "bull jobs:bare*", "bee-queue jobs:bare*"};
    p.cases << c;
    return p;
}

const ShapeRegistrar s_registrar("bee-queue", &shapes);

} // namespace
} // namespace gatehouse::test
