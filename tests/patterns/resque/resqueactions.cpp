// SPDX-License-Identifier: MIT
// Resque: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("resque", "resque:queues");

} // namespace
} // namespace gatehouse::test
