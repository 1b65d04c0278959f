// SPDX-License-Identifier: MIT
// Redisson RSemaphore: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("redisson-semaphore", "rsem");

} // namespace
} // namespace gatehouse::test
