// SPDX-License-Identifier: MIT
// Laravel Horizon: its job indexes scored by negated seconds, and its
// supervisors.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double s = double(ShapeNowMs) / 1000;
    PatternShapes p;
    p.sample = {zsetShape("laravel_horizon:recent_jobs", -s, -(s - 100)),
                zsetShape("laravel_horizon:failed_jobs", -s, -(s - 50)),
                zsetShape("laravel_horizon:supervisors", s - 3, s)};
    return p;
}

const ShapeRegistrar s_registrar("laravel-horizon", &shapes);

} // namespace
} // namespace gatehouse::test
