// SPDX-License-Identifier: MIT
// BullMQ: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("bullmq", "bull:q");

} // namespace
} // namespace gatehouse::test
