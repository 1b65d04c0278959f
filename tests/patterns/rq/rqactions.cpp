// SPDX-License-Identifier: MIT
// RQ: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("rq", "rq:queue:q");

} // namespace
} // namespace gatehouse::test
