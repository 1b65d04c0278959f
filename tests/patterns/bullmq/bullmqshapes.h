// SPDX-License-Identifier: MIT
#pragma once

#include "keyshapes.h"

namespace gatehouse::test {

// A BullMQ 5/6 queue as a real one leaves it (tst_libraries reads live
// ones): base "<prefix>:<queue>", finished sets scored by time, a job's lock
// with a worker's token, the stall guard holding a timestamp.
inline QList<KeyShape> bullMqQueueShapes(const QByteArray &base, double nowMs)
{
    return {sizedShape(base + ":meta", "hash", 2),
            sizedShape(base + ":events", "stream", 40),
            stringShape(base + ":id", "42", -1),
            listShape(base + ":wait"),
            listShape(base + ":active"),
            zsetShape(base + ":completed", nowMs - 60000, nowMs - 10),
            zsetShape(base + ":failed", nowMs - 30000, nowMs - 20),
            zsetShape(base + ":marker", 0, 0),
            stringShape(base + ":stalled-check", QByteArray::number(qint64(nowMs)), 25000),
            stringShape(base + ":7:lock", "8d3c1a2e-5b7f-4c1d-9e2a-77b1f0c3d4e5", 1400),
            sizedShape(base + ":7", "hash", 12),
            listShape(base + ":7:logs")};
}

} // namespace gatehouse::test
