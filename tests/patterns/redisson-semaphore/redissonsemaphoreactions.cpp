// SPDX-License-Identifier: MIT
// Redisson RSemaphore: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "rsem";
    return r;
}

const ActionRowsRegistrar s_registrar("redisson-semaphore", &rows);

} // namespace
} // namespace gatehouse::test
