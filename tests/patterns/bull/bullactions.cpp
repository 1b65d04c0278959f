// SPDX-License-Identifier: MIT
// Bull: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "bull:q";
    return r;
}

const ActionRowsRegistrar s_registrar("bull", &rows);

} // namespace
} // namespace gatehouse::test
