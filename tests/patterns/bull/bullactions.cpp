// SPDX-License-Identifier: MIT
// Bull: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("bull", "bull:q");

} // namespace
} // namespace gatehouse::test
