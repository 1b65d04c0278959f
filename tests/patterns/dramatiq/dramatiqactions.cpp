// SPDX-License-Identifier: MIT
// Dramatiq: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "dramatiq:q";
    return r;
}

const ActionRowsRegistrar s_registrar("dramatiq", &rows);

} // namespace
} // namespace gatehouse::test
