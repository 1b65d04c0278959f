// SPDX-License-Identifier: MIT
// Token hashes: one hash of tokens whose fields expire on their own.
#include "kit/shapecases.h"
#include "tokenhashshapes.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    PatternShapes p;
    p.sample = {tokenHashShape("otp:pending")};
    return p;
}

const ShapeRegistrar s_registrar("token-hash", &shapes);

} // namespace
} // namespace gatehouse::test
