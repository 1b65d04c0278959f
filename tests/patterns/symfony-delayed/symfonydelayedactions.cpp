// SPDX-License-Identifier: MIT
// Symfony Messenger delayed: every call its actions build, on the structure at its conventional
// key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("symfony-delayed", "s__queue");

} // namespace
} // namespace gatehouse::test
