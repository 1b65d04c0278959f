// SPDX-License-Identifier: MIT
// Redisson's RSemaphore and RPermitExpirableSemaphore: an integer STRING,
// with or without its "{name}:timeout" ZSET.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = {stringShape("perm:api", "2", -1),
                zsetShape("{perm:api}:timeout", now - 50, 922337203685477.0)};

    // A plain one (no partner) is found by its name: shown with no TTL, a
    // candidate with one; integer counters of the same shape stay ordinary
    // when their name carries no semaphore word, an ordinary-data word, or
    // a date. A limiter's counter whose name says permits stays the
    // limiter's.
    ShapeCase c;
    c.name = "plain semaphores by name";
    c.shapes
        = {stringShape("semaphore:api", "3", -1),         stringShape("mySemaphore", "10", -1),
           stringShape("billing:permits", "0", -1),       stringShape("jobs:sema", "-1", -1),
           stringShape("semaphore:exports", "4", 600000), stringShape("sem:plain", "2", -1),
           stringShape("stats:semaphore_waits", "7", -1), stringShape("views:semaphore", "7", -1),
           stringShape("semaphore:2026-11-24", "7", -1),  stringShape("semantic:count", "7", -1),
           stringShape("parking:permit:7", "7", -1),      stringShape("semaphore:name", "api", -1),
           stringShape("throttle:permits:7", "7", 60000)};
    c.text = ObjectText::Related;
    c.sorted = true;
    c.objects = QStringList{"fixed-window throttle:permits:7 []",
                            "redisson-semaphore billing:permits [{billing:permits}:timeout]",
                            "redisson-semaphore jobs:sema [{jobs:sema}:timeout]",
                            "redisson-semaphore mySemaphore [{mySemaphore}:timeout]",
                            "redisson-semaphore semaphore:api [{semaphore:api}:timeout]"};
    c.candidates = QStringList{"redisson-semaphore semaphore:exports 1"};
    p.cases << c;
    return p;
}

const ShapeRegistrar s_registrar("redisson-semaphore", &shapes);

} // namespace
} // namespace gatehouse::test
