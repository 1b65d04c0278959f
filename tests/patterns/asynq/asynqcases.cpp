// SPDX-License-Identifier: MIT
// Asynq: the queues SET and each queue's hash-tagged keys.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double s = double(ShapeNowMs) / 1000;
    PatternShapes p;
    p.sample = {sizedShape("asynq:queues", "set", 1), listShape("asynq:{mail}:pending"),
                listShape("asynq:{mail}:active"), zsetShape("asynq:{mail}:lease", s + 600, s + 600),
                sizedShape("asynq:{mail}:t:a1", "hash", 2)};
    return p;
}

const ShapeRegistrar s_registrar("asynq", &shapes);

} // namespace
} // namespace gatehouse::test
