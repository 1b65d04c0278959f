// SPDX-License-Identifier: MIT
// Bull 3/4: a queue without BullMQ's meta hash, events stream or marker.
// Told from BullMQ in bullmq/, from bee-queue in bee-queue/.
#include "bullshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    PatternShapes p;
    p.sample = bullQueueShapes("bull:legacy", double(ShapeNowMs));
    return p;
}

const ShapeRegistrar s_registrar("bull", &shapes);

} // namespace
} // namespace gatehouse::test
