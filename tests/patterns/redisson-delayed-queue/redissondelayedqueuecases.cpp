// SPDX-License-Identifier: MIT
// Redisson's RDelayedQueue: its timeout ZSET and list beside the target list.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = {zsetShape("redisson_delay_queue_timeout:{mail}", now - 2000, now + 60000),
                listShape("redisson_delay_queue:{mail}"), listShape("mail")};
    return p;
}

const ShapeRegistrar s_registrar("redisson-delayed-queue", &shapes);

} // namespace
} // namespace gatehouse::test
