// SPDX-License-Identifier: MIT
// Symfony Messenger's Redis transport: the delayed ZSET "<stream>__queue"
// beside its stream.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample
        = {zsetShape("messages__queue", now + 60000, now + 90000), streamShape("messages", {})};
    return p;
}

const ShapeRegistrar s_registrar("symfony-delayed", &shapes);

} // namespace
} // namespace gatehouse::test
