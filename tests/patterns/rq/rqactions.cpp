// SPDX-License-Identifier: MIT
// RQ: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "rq:queue:q";
    return r;
}

const ActionRowsRegistrar s_registrar("rq", &rows);

} // namespace
} // namespace gatehouse::test
