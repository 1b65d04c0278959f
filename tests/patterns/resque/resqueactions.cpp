// SPDX-License-Identifier: MIT
// Resque: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "resque:queues";
    return r;
}

const ActionRowsRegistrar s_registrar("resque", &rows);

} // namespace
} // namespace gatehouse::test
