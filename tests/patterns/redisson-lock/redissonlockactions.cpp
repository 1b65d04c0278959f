// SPDX-License-Identifier: MIT
// Redisson RLock: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("redisson-lock", "rlock");

} // namespace
} // namespace gatehouse::test
