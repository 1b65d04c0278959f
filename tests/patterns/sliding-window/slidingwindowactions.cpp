// SPDX-License-Identifier: MIT
// The sliding-window limiter (seed): reset empties the window and its retry
// horizon only while they hold what a limiter writes.
#include "kit/actioncases.h"

#include <patterns/limiters.h>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternObject window;
    window.kind = PatternKind("sliding-window");
    window.key = "rl:api";
    window.related = {"rl:api:retry"};
    const QByteArray t = num(matrixNowMs());
    const QByteArray retryAt = num(matrixNowMs() + 5000);
    PatternActionRows r;
    r.cases.append({QStringLiteral("limiter.reset sliding"),
                    {"rl:api", "rl:api:retry"},
                    {{{"ZADD", "rl:api", t, t + "-1", t, t + "-2"}},
                     {{"ZADD", "rl:api:retry", retryAt, retryAt}}},
                    {{{"ZADD", "rl:api", "1", "alice", "2", "bob"}}, // a leaderboard
                     {{"ZADD", "rl:api:retry", "3", "x"}}},
                    {"zset", "zset"},
                    [window] {
                        return limiterReset(window);
                    }});
    return r;
}

const ActionRowsRegistrar s_registrar("sliding-window", &rows);

} // namespace
} // namespace gatehouse::test
