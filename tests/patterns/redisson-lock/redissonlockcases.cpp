// SPDX-License-Identifier: MIT
// Redisson's locks (RLock, RReadWriteLock, RFairLock): one object each.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

// A Redisson lock HASH as discovery sees it: its sampled fields (HRANDFIELD
// 2 WITHVALUES) and "mode", with the lease as its TTL.
KeyShape lockHash(const QByteArray &key, QList<QByteArray> fields, const QByteArray &mode = {})
{
    KeyShape s = sizedShape(key, "hash", 3);
    s.pttlMs = 30000;
    if (!mode.isEmpty())
        s.hashFields.insert("mode", mode);
    s.sampleFields = std::move(fields);
    return s;
}

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = {lockHash("reports", {"1b4e28ba-2ca1-41d2-a5c6-3d3f3c7c1a5e:41", "2"}),
                listShape("redisson_lock_queue:{fair:res}"),
                zsetShape("redisson_lock_timeout:{fair:res}", now + 60000, now + 90000)};

    // Found by their holder fields or their fair-lock keys; its bookkeeping
    // keys (read-lock timeouts, unlock latches) are nobody's objects; an
    // application's own "x:lock" stays a generic lock and ordinary hashes
    // (even with a TTL and "a:1" -> 2 fields) are nothing.
    const QByteArray uuid = "6fa459ea-ee8a-4ca4-894e-db77e160355e";
    p.cases << objectsCase(
        "locks are one object each",
        {lockHash("reports", {uuid + ":41", "2"}),
         lockHash("rw:doc", {"mode", "read", uuid + ":7", "1"}, "read"),
         stringShape("{rw:doc}:" + uuid + ":7:rwlock_timeout:1", "1", 30000),
         stringShape("redisson_unlock_latch:{reports}:9f8e7d6c5b4a39281706f5e4d3c2b1a0", "1", 5000),
         listShape("redisson_lock_queue:{fair:res}"),
         zsetShape("redisson_lock_timeout:{fair:res}", now + 60000, now + 90000),
         stringShape("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000),
         lockHash("session:9", {"a:1", "2"}),
         lockHash("two:holders", {uuid + ":1", "1", uuid + ":2", "1"}),
         lockHash("bad:mode", {"mode", "x", uuid + ":1", "1"}, "x")},
        {"lock app:order:7:lock", "redisson-lock fair:res", "redisson-lock reports",
         "redisson-lock rw:doc"});
    return p;
}

const ShapeRegistrar s_registrar("redisson-lock", &shapes);

} // namespace
} // namespace gatehouse::test
