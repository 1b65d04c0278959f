// SPDX-License-Identifier: MIT
// Sliding windows: ZSETs of recent times, in ms or s, with a ":retry"
// partner; the window is read from the TTL.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    const double s = now / 1000;
    PatternShapes p;
    p.sample
        = {zsetShape("rl:api:1", now - 4000, now - 10, 8000),
           zsetShape("rl:api:1:retry", now + 9, now + 90), zsetShape("rl:sec:7", s - 3, s, 2000),
           zsetShape("rl:gone:retry", now + 50, now + 900)};

    p.cases << profileCase("ms window with its retry set",
                           {zsetShape("rl:api:1", now - 4000, now - 10, 8000),
                            zsetShape("rl:api:1:retry", now + 100, now + 3000)},
                           {"sliding-window rl:api:1 [rl:api:1:retry] window=10000ms unit=1ms"},
                           {R"({"limit":null,"match":"rl:api:*","pattern":"sliding-window",)"
                            R"("retryKey":"{key}:retry","scoreUnit":"ms","window":10,)"
                            R"("windowUnit":"s"})"});
    p.cases << profileCase("ms window alone", {zsetShape("rl:api:2", now - 900, now - 5, 60000)},
                           {"sliding-window rl:api:2 [] window=60000ms unit=1ms"},
                           {R"({"limit":null,"match":"rl:api:*","pattern":"sliding-window",)"
                            R"("scoreUnit":"ms","window":60,"windowUnit":"s"})"});
    p.cases << profileCase("ms windows of one glob: widest window, retry seen once",
                           {zsetShape("rl:api:1", now - 4000, now - 10, 8000),
                            zsetShape("rl:api:1:retry", now + 100, now + 3000),
                            zsetShape("rl:api:2", now - 900, now - 5, 60000)},
                           {"sliding-window rl:api:1 [rl:api:1:retry] window=10000ms unit=1ms",
                            "sliding-window rl:api:2 [] window=60000ms unit=1ms"},
                           {R"({"limit":null,"match":"rl:api:*","pattern":"sliding-window",)"
                            R"("retryKey":"{key}:retry","scoreUnit":"ms","window":60,)"
                            R"("windowUnit":"s"})"});
    p.cases << profileCase("retry set whose window expired",
                           {zsetShape("rl:api:3:retry", now + 50, now + 900)},
                           {"sliding-window rl:api:3 [rl:api:3:retry] window=0ms unit=1ms"},
                           {R"({"limit":null,"match":"rl:api:*","pattern":"sliding-window",)"
                            R"("retryKey":"{key}:retry","scoreUnit":"ms","window":0,)"
                            R"("windowUnit":"s"})"});
    p.cases << profileCase("seconds window", {zsetShape("rl:sec:7", s - 3, s, 2000)},
                           {"sliding-window rl:sec:7 [] window=2000ms unit=1000ms"},
                           {R"({"limit":null,"match":"rl:sec:*","pattern":"sliding-window",)"
                            R"("scoreUnit":"s","window":2,"windowUnit":"s"})"});

    p.cases << evidenceCase("window with a word and its TTL",
                            {zsetShape("ratelimit:api:7", now - 4000, now - 10, 10000)},
                            {"sliding-window ratelimit:api:7"}, {}, "within its 10.0 s TTL");
    p.cases << evidenceCase("recent times without a word: a candidate",
                            {zsetShape("seen:7", now - 4000, now - 10)}, {},
                            {"sliding-window seen:{int} 1"}, "recent times");
    return p;
}

const ShapeRegistrar s_registrar("sliding-window", &shapes);

} // namespace
} // namespace gatehouse::test
