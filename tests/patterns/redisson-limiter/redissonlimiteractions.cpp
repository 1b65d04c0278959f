// SPDX-License-Identifier: MIT
// Redisson RRateLimiter: read-only in Gatehouse; its reset is refused with
// why, on the limiter at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "rrl";
    return r;
}

const ActionRowsRegistrar s_registrar("redisson-limiter", &rows);

} // namespace
} // namespace gatehouse::test
