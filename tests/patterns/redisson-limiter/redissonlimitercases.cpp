// SPDX-License-Identifier: MIT
// Redisson's RRateLimiter: the config hash is the limiter's name, its value
// and permits keys hash-tagged with it.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

KeyShape config(const QByteArray &key, qint64 rate, qint64 intervalMs)
{
    KeyShape s = sizedShape(key, "hash", 3);
    s.hashFields = {{"rate", QByteArray::number(rate)},
                    {"interval", QByteArray::number(intervalMs)},
                    {"type", "0"}};
    return s;
}

PatternShapes shapes()
{
    const QList<KeyShape> limiter{config("api", 10, 20000), stringShape("{api}:value", "7", -1),
                                  zsetShape("{api}:permits", 1, 2)};
    PatternShapes p;
    p.sample = limiter;
    p.cases << profileCase("Redisson limiter", limiter,
                           {"redisson-limiter api [{api}:value,{api}:permits] window=20000ms "
                            "unit=1ms limit=10"},
                           {R"({"match":"api","pattern":"redisson-limiter"})"});
    return p;
}

const ShapeRegistrar s_registrar("redisson-limiter", &shapes);

} // namespace
} // namespace gatehouse::test
