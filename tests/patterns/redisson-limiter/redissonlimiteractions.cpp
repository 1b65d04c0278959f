// SPDX-License-Identifier: MIT
// Redisson RRateLimiter: read-only in Gatehouse; its reset is refused with
// why, on the limiter at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("redisson-limiter", "rrl");

} // namespace
} // namespace gatehouse::test
