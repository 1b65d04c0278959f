// SPDX-License-Identifier: MIT
// Redisson RDelayedQueue: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "rdq";
    return r;
}

const ActionRowsRegistrar s_registrar("redisson-delayed-queue", &rows);

} // namespace
} // namespace gatehouse::test
