// SPDX-License-Identifier: MIT
// Sidekiq: every call its actions build, on the structure at its conventional key.
#include "kit/actioncases.h"

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.conventionalKey = "queues";
    return r;
}

const ActionRowsRegistrar s_registrar("sidekiq", &rows);

} // namespace
} // namespace gatehouse::test
