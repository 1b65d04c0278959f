// SPDX-License-Identifier: MIT
// Laravel Horizon: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "h:";
    return r;
}

const ActionRowsRegistrar s_registrar("laravel-horizon", &rows);

} // namespace
} // namespace gatehouse::test
