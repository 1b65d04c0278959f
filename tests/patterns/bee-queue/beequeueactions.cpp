// SPDX-License-Identifier: MIT
// Bee-Queue: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("bee-queue", "bq:q");

} // namespace
} // namespace gatehouse::test
