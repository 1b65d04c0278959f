// SPDX-License-Identifier: MIT
// Redisson RLock: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "rlock";
    return r;
}

const ActionRowsRegistrar s_registrar("redisson-lock", &rows);

} // namespace
} // namespace gatehouse::test
