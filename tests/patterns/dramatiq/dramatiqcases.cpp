// SPDX-License-Identifier: MIT
// Dramatiq: the heartbeats ZSET, a queue's list and message hash. A worker's
// ack sets carry its id in their names: the scan finds them (tst_lib_dramatiq,
// tst_mixedkeyspace), no rule names them.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = {zsetShape("dramatiq:__heartbeats__", now, now),
                sizedShape("dramatiq:mail.msgs", "hash", 2), listShape("dramatiq:mail")};
    return p;
}

const ShapeRegistrar s_registrar("dramatiq", &shapes);

} // namespace
} // namespace gatehouse::test
