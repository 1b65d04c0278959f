// SPDX-License-Identifier: MIT
// Python limits: "LIMITER/<key>/<amount>/<multiples>/<granularity>" counters
// (fixed window) and lists (moving window).
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    PatternShapes p;
    KeyShape moving = listShape("LIMITER/api/bob/5/1/minute");
    moving.size = 3;
    moving.pttlMs = 40000;
    p.sample = {stringShape("LIMITER/api/alice/10/1/minute", "4", 50000), moving};
    return p;
}

const ShapeRegistrar s_registrar("python-limits", &shapes);

} // namespace
} // namespace gatehouse::test
