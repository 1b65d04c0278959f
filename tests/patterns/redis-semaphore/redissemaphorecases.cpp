// SPDX-License-Identifier: MIT
// redis-semaphore (Node): a ZSET of holders that expires.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = {zsetShape("semaphore:reports", now - 4000, now - 100, 9000)};
    return p;
}

const ShapeRegistrar s_registrar("redis-semaphore", &shapes);

} // namespace
} // namespace gatehouse::test
