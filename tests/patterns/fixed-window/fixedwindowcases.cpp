// SPDX-License-Identifier: MIT
// Fixed windows: integer counters that expire, shown when their name says
// limiter, candidates otherwise.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = {stringShape("throttle:user:1", "17", 25000)};

    p.cases << profileCase("fixed-window counter", {stringShape("throttle:user:1", "17", 25000)},
                           {"fixed-window throttle:user:1 [] window=30000ms unit=1ms"},
                           {R"({"limit":null,"match":"throttle:user:*","pattern":"fixed-window",)"
                            R"("window":30,"windowUnit":"s"})"});
    // Where two patterns' evidence meets, the one that says more wins.
    p.cases << profileCase(
        "counter named like a retry set stays a counter",
        {zsetShape("rl:x", now - 4000, now - 10, 8000), stringShape("rl:x:retry", "5", 1000)},
        {"sliding-window rl:x [rl:x:retry] window=10000ms unit=1ms",
         "fixed-window rl:x:retry [] window=1000ms unit=1ms"},
        {R"({"limit":null,"match":"rl:*","pattern":"sliding-window",)"
         R"("retryKey":"{key}:retry","scoreUnit":"ms","window":10,)"
         R"("windowUnit":"s"})",
         R"({"limit":null,"match":"rl:x:*","pattern":"fixed-window",)"
         R"("window":1,"windowUnit":"s"})"});

    p.cases << evidenceCase("limiter word: a fixed window",
                            {stringShape("throttle:login:7", "3", 60000)},
                            {"fixed-window throttle:login:7"}, {}, "\"throttle\" in its name");
    p.cases << evidenceCase(
        "counter that expires, no word: a candidate",
        {stringShape("tries:7", "3", 60000), stringShape("tries:8", "1", 60000)}, {},
        {"fixed-window tries:{int} 2"}, "integer counter");
    p.cases << evidenceCase("dated counter with a limiter word: a candidate at most",
                            {stringShape("quota:user:7:2026-11-23", "3", 3600000)}, {},
                            {"fixed-window quota:user:{int}:{date} 1"}, "a date in its name");
    p.cases << evidenceCase("counter kept for days is no window",
                            {stringShape("rl:user:7", "3", 3LL * 86400000)}, {},
                            {"fixed-window rl:user:{int} 1"}, "longer than");
    return p;
}

const ShapeRegistrar s_registrar("fixed-window", &shapes);

} // namespace
} // namespace gatehouse::test
