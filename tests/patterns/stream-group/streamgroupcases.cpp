// SPDX-License-Identifier: MIT
// Streams with consumer groups (XINFO GROUPS names them) and their
// ":dead" streams; a stream without groups is an event log.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    PatternShapes p;
    p.sample = {streamShape("orders", {"billing", "audit"}), streamShape("orders:dead", {}),
                streamShape("audit:events", {})};

    p.cases << profileCase("stream with consumer groups",
                           {streamShape("orders", {"billing"}), streamShape("orders:dead", {}),
                            streamShape("audit:events", {})},
                           {"stream-group orders [orders:dead] window=0ms unit=1ms"},
                           {R"({"deadKey":"{key}:dead","match":"orders","pattern":"stream-group",)"
                            R"("stuckAfter":300000})"});
    p.cases << profileCase("stream without groups is an event log",
                           {streamShape("audit:events", {}), streamShape("app:log", {})}, {}, {});
    return p;
}

const ShapeRegistrar s_registrar("stream-group", &shapes);

} // namespace
} // namespace gatehouse::test
