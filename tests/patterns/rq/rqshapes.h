// SPDX-License-Identifier: MIT
#pragma once

#include "keyshapes.h"

namespace gatehouse::test {

// An RQ 1.x queue as a real one leaves it (tst_lib_rq reads live ones): its
// list, registries scored by expiry in seconds, the global queue and worker
// sets, a worker's hash, job hashes, and the cleaning guard and scheduler
// lock (strings with a TTL, which look like a fixed window and a lock).
inline QList<KeyShape> rqQueueShapes(const QByteArray &name, double nowMs)
{
    const double s = nowMs / 1000;
    return {listShape("rq:queue:" + name),
            zsetShape("rq:wip:" + name, s + 40, s + 62),
            zsetShape("rq:finished:" + name, s + 400, s + 500),
            zsetShape("rq:failed:" + name, s + 31535000, s + 31536000),
            sizedShape("rq:queues", "set", 1),
            sizedShape("rq:workers", "set", 1),
            sizedShape("rq:workers:" + name, "set", 1),
            sizedShape("rq:worker:b734c1ee4de448549f857ea5939cbe61", "hash", 14),
            sizedShape("rq:job:0f9a1c2e-77b1-4c1d-9e2a-77b1f0c3d4e5", "hash", 16),
            sizedShape("rq:results:0f9a1c2e-77b1-4c1d-9e2a-77b1f0c3d4e5", "stream", 1),
            stringShape("rq:clean_registries:" + name, "1", 899000),
            stringShape("rq:scheduler-lock:" + name, "host:1234", 60000)};
}

} // namespace gatehouse::test
