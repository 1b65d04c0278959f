// SPDX-License-Identifier: MIT
// Laravel queues: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("laravel-queue", "queues:q");

} // namespace
} // namespace gatehouse::test
