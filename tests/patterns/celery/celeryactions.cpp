// SPDX-License-Identifier: MIT
// Celery (kombu): every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

const ActionRowsRegistrar s_registrar("celery", "celery");

} // namespace
} // namespace gatehouse::test
