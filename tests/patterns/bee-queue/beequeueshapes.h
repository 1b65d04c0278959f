// SPDX-License-Identifier: MIT
#pragma once

#include "keyshapes.h"

namespace gatehouse::test {

// A bee-queue queue as a real one leaves it (tst_lib_beequeue reads live
// ones): the id counter, the jobs hash, waiting and active lists, succeeded
// and failed sets, delayed jobs, and the stall check's set and guard (a
// string with a TTL, which looks like a lock).
inline QList<KeyShape> beeQueueShapes(const QByteArray &base, double nowMs)
{
    return {stringShape(base + ":id", "4", -1),
            sizedShape(base + ":jobs", "hash", 4),
            listShape(base + ":waiting"),
            listShape(base + ":active"),
            sizedShape(base + ":succeeded", "set", 2),
            zsetShape(base + ":delayed", nowMs + 60000, nowMs + 3600000),
            sizedShape(base + ":stalling", "set", 1),
            stringShape(base + ":stallBlock", "1", 4000)};
}

} // namespace gatehouse::test
