// SPDX-License-Identifier: MIT
// Resources with consumers (seed 003): second-scored ZSETs, the consumers
// named "<resource>:consumer:<n>" and parented to it.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double s = double(ShapeNowMs) / 1000;
    PatternShapes p;
    p.sample = {zsetShape("z:rl:r:1{1}", s - 5, s, 1000),
                zsetShape("z:rl:r:1{1}:consumer:0", s - 3, s, 1000)};

    p.cases << profileCase("resource with consumers",
                           {zsetShape("z:rl:resource:4{4}", s - 5, s, 1000),
                            zsetShape("z:rl:resource:4{4}:consumer:0", s - 3, s, 1000),
                            zsetShape("z:rl:resource:4{4}:consumer:1", s - 2, s, 5000)},
                           {"resource-consumer z:rl:resource:4{4} [] window=1000ms unit=1000ms",
                            "resource-consumer z:rl:resource:4{4}:consumer:0 [] "
                            "parent=z:rl:resource:4{4} window=1000ms unit=1000ms",
                            "resource-consumer z:rl:resource:4{4}:consumer:1 [] "
                            "parent=z:rl:resource:4{4} window=5000ms unit=1000ms"},
                           {R"({"consumerLimit":null,"consumerMarker":":consumer:","limit":null,)"
                            R"("match":"z:rl:resource:*","pattern":"resource-consumer",)"
                            R"("scoreUnit":"s","window":5,"windowUnit":"s"})"});
    p.cases << profileCase("seconds consumer named ':retry' is a consumer",
                           {zsetShape("z:r{1}:consumer:0:retry", s - 3, s, 1000)},
                           {"resource-consumer z:r{1}:consumer:0:retry [] parent=z:r{1} "
                            "window=1000ms unit=1000ms"},
                           {R"({"consumerLimit":null,"consumerMarker":":consumer:","limit":null,)"
                            R"("match":"z:*","pattern":"resource-consumer","scoreUnit":"s",)"
                            R"("window":1,"windowUnit":"s"})"});
    return p;
}

const ShapeRegistrar s_registrar("resource-consumer", &shapes);

} // namespace
} // namespace gatehouse::test
