// SPDX-License-Identifier: MIT
// The fixed-window counter (seed): reset deletes it only while it holds a
// count.
#include "kit/actioncases.h"

#include <patterns/limiters.h>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternObject counter;
    counter.kind = PatternKind("fixed-window");
    counter.key = "rl:fixed";
    PatternActionRows r;
    r.cases.append({QStringLiteral("limiter.reset fixed"),
                    {"rl:fixed"},
                    {{{"SET", "rl:fixed", "7", "PX", "60000"}}},
                    {{{"SET", "rl:fixed", "<html>cached page</html>", "PX", "60000"}}},
                    {"string"},
                    [counter] {
                        return limiterReset(counter);
                    }});
    return r;
}

const ActionRowsRegistrar s_registrar("fixed-window", &rows);

} // namespace
} // namespace gatehouse::test
