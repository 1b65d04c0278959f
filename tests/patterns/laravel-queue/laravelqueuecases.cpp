// SPDX-License-Identifier: MIT
// Laravel's Redis queue: a list with its notify list, and reserved and
// delayed ZSETs scored in seconds.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double s = double(ShapeNowMs) / 1000;
    PatternShapes p;
    p.sample = {listShape("laravel_database_queues:default"),
                listShape("laravel_database_queues:default:notify"),
                zsetShape("laravel_database_queues:default:reserved", s - 5, s + 90),
                zsetShape("laravel_database_queues:default:delayed", s + 600, s + 900)};
    return p;
}

const ShapeRegistrar s_registrar("laravel-queue", &shapes);

} // namespace
} // namespace gatehouse::test
