// SPDX-License-Identifier: MIT
// Symfony Messenger delayed: every call its actions build, on the structure at its conventional
// key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "s__queue";
    return r;
}

const ActionRowsRegistrar s_registrar("symfony-delayed", &rows);

} // namespace
} // namespace gatehouse::test
