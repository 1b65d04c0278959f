// SPDX-License-Identifier: MIT
// Bee-Queue: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "bq:q";
    return r;
}

const ActionRowsRegistrar s_registrar("bee-queue", &rows);

} // namespace
} // namespace gatehouse::test
