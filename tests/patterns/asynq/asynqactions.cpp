// SPDX-License-Identifier: MIT
// asynq: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("asynq", "asynq:{q}:pending");

} // namespace
} // namespace gatehouse::test
