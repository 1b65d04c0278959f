// SPDX-License-Identifier: MIT
// Redisson RDelayedQueue: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("redisson-delayed-queue", "rdq");

} // namespace
} // namespace gatehouse::test
