// SPDX-License-Identifier: MIT
// asynq: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "asynq:{q}:pending";
    return r;
}

const ActionRowsRegistrar s_registrar("asynq", &rows);

} // namespace
} // namespace gatehouse::test
