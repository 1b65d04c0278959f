// SPDX-License-Identifier: MIT
// Laravel Horizon: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("laravel-horizon", "h:");

} // namespace
} // namespace gatehouse::test
