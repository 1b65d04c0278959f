// SPDX-License-Identifier: MIT
// Sorted-set semaphores: ZSETs of holders scored by the time they took it.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = {zsetShape("sim:sem:gpu", now - 4000, now - 100)};

    p.cases << profileCase("sorted-set semaphore",
                           {zsetShape("sim:sem:gpu", now - 4000, now - 100)},
                           {"sorted-set-semaphore sim:sem:gpu [] window=0ms unit=1ms"},
                           {R"({"limit":null,"match":"sim:sem:*","pattern":"sorted-set-semaphore",)"
                            R"("timeout":0})"});
    // Where two patterns' evidence meets, the one that says more wins.
    p.cases << profileCase("semaphore named like a consumer stays a semaphore",
                           {zsetShape("sim:sem:gpu", now - 4000, now - 100),
                            zsetShape("sim:sem:gpu:consumer:0", now - 4000, now - 100)},
                           {"sorted-set-semaphore sim:sem:gpu [] window=0ms unit=1ms",
                            "sorted-set-semaphore sim:sem:gpu:consumer:0 [] window=0ms unit=1ms"},
                           {R"({"limit":null,"match":"sim:sem:*","pattern":"sorted-set-semaphore",)"
                            R"("timeout":0})",
                            R"({"limit":null,"match":"sim:sem:gpu:consumer:*",)"
                            R"("pattern":"sorted-set-semaphore","timeout":0})"});
    return p;
}

const ShapeRegistrar s_registrar("sorted-set-semaphore", &shapes);

} // namespace
} // namespace gatehouse::test
