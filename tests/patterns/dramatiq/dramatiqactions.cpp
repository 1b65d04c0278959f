// SPDX-License-Identifier: MIT
// Dramatiq: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("dramatiq", "dramatiq:q");

} // namespace
} // namespace gatehouse::test
