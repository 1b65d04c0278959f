// SPDX-License-Identifier: MIT
// One-time tokens kept one per key: revoke deletes the token shown.
#include "kit/actioncases.h"

#include <patterns/token-family/tokenfamilyunit.h>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternActionRows r;
    r.cases.append({QStringLiteral("token.revoke"),
                    {"code:7f3a9b2c"},
                    {{{"SET", "code:7f3a9b2c", "{\"user\":1}", "EX", "600"}}},
                    {{{"HSET", "code:7f3a9b2c", "used_by", "0"}}},
                    {"string|hash"}, // a JSON string, or a hash (seed 002)
                    [] {
                        return TokenFamilyUnit::revoke("code:7f3a9b2c", {"code:"});
                    }});
    return r;
}

const ActionRowsRegistrar s_registrar("token-family", &rows);

} // namespace
} // namespace gatehouse::test
