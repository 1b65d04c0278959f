// SPDX-License-Identifier: MIT
// Legacy locks (SETNX with an expiry time as the value, no TTL).
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const KeyShape lock
        = stringShape("lock.report", QByteArray::number(ShapeNowMs / 1000 + 30), -1);
    PatternShapes p;
    p.sample = {lock};
    p.cases << profileCase("legacy lock", {lock},
                           {"legacy-lock lock.report [] window=0ms unit=1ms"},
                           {R"({"match":"lock.report","pattern":"legacy-lock"})"});
    return p;
}

const ShapeRegistrar s_registrar("legacy-lock", &shapes);

} // namespace
} // namespace gatehouse::test
