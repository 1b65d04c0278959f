// SPDX-License-Identifier: MIT
// Celery (kombu): every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "celery";
    return r;
}

const ActionRowsRegistrar s_registrar("celery", &rows);

} // namespace
} // namespace gatehouse::test
