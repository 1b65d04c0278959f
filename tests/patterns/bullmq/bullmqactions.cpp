// SPDX-License-Identifier: MIT
// BullMQ: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "bull:q";
    return r;
}

const ActionRowsRegistrar s_registrar("bullmq", &rows);

} // namespace
} // namespace gatehouse::test
