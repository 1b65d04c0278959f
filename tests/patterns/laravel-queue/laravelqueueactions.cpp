// SPDX-License-Identifier: MIT
// Laravel queues: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "queues:q";
    return r;
}

const ActionRowsRegistrar s_registrar("laravel-queue", &rows);

} // namespace
} // namespace gatehouse::test
