// SPDX-License-Identifier: MIT
#pragma once

#include "keyshapes.h"

namespace gatehouse::test {

// A Bull 3/4 queue: BullMQ's state names without its meta hash, events
// stream or marker; "priority" and the id counter.
inline QList<KeyShape> bullQueueShapes(const QByteArray &base, double nowMs)
{
    return {stringShape(base + ":id", "17", -1),
            listShape(base + ":wait"),
            listShape(base + ":active"),
            zsetShape(base + ":completed", nowMs - 60000, nowMs - 10),
            zsetShape(base + ":failed", nowMs - 30000, nowMs - 20),
            stringShape(base + ":stalled-check", QByteArray::number(qint64(nowMs)), 4000),
            stringShape(base + ":3:lock", "8d3c1a2e-5b7f-4c1d-9e2a-77b1f0c3d4e5", 25000),
            sizedShape(base + ":3", "hash", 10)};
}

} // namespace gatehouse::test
