// SPDX-License-Identifier: MIT
// Reliable queues: a list with its processing list, claims set and dead
// list (or only a "<queue>-processing" list).
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = {listShape("jobs:mail"), listShape("jobs:mail:processing"),
                zsetShape("jobs:mail:claims", now - 60000, now - 10), listShape("jobs:mail:dead"),
                listShape("work-processing")};

    p.cases << profileCase("reliable queue",
                           {listShape("jobs:mail"), listShape("jobs:mail:processing"),
                            zsetShape("jobs:mail:claims", now - 60000, now - 10),
                            listShape("jobs:mail:dead")},
                           {"reliable-queue jobs:mail "
                            "[jobs:mail:processing,jobs:mail:claims,jobs:mail:dead] "
                            "window=0ms unit=1ms"},
                           {R"({"claimsKey":"{key}:claims","deadKey":"{key}:dead",)"
                            R"("match":"jobs:*","pattern":"reliable-queue",)"
                            R"("processingKey":"{key}:processing","stuckAfter":60000})"});
    // Where two patterns' evidence meets, the one that says more wins.
    p.cases << profileCase("claims set named like a consumer stays the queue's",
                           {listShape("jobs:consumer:1:processing"),
                            zsetShape("jobs:consumer:1:claims", now - 60000, now - 10)},
                           {"reliable-queue jobs:consumer:1 "
                            "[jobs:consumer:1:processing,jobs:consumer:1:claims,] "
                            "window=0ms unit=1ms"},
                           {R"({"claimsKey":"{key}:claims","match":"jobs:consumer:*",)"
                            R"("pattern":"reliable-queue","processingKey":"{key}:processing",)"
                            R"("stuckAfter":60000})"});
    return p;
}

const ShapeRegistrar s_registrar("reliable-queue", &shapes);

} // namespace
} // namespace gatehouse::test
