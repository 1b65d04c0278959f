// SPDX-License-Identifier: MIT
#pragma once

#include "keyshapes.h"

namespace gatehouse::test {

// A Resque namespace as node-resque 9 (node: delayed jobs, a working worker
// with its ping) or Resque 2 (its heartbeat hash) writes it.
inline QList<KeyShape> resqueShapes(const QByteArray &ns, bool node, double nowMs)
{
    const double s = nowMs / 1000;
    const QByteArray worker = ns + "worker:web-1:4242:mail";
    QList<KeyShape> keys{sizedShape(ns + "queues", "set", 2),
                         listShape(ns + "queue:mail"),
                         listShape(ns + "queue:sms"),
                         listShape(ns + "failed"),
                         sizedShape(ns + "workers", "set", 1),
                         stringShape(worker, "{\"run_at\":\"Wed Nov 25", -1),
                         stringShape(worker + ":started", "1764000000", -1),
                         stringShape(ns + "stat:processed", "12", -1),
                         stringShape(ns + "stat:failed", "3", -1),
                         stringShape(ns + "stat:processed:web-1:4242", "12", -1)};
    if (node)
        keys << zsetShape(ns + "delayed_queue_schedule", s + 60, s + 3600)
             << listShape(ns + "delayed:" + QByteArray::number(qint64(s) + 60))
             << sizedShape(ns + "timestamps:{\"class\":\"add\",\"queue\":\"mail\",\"args\":[1]}",
                           "set", 1)
             << stringShape(ns + "worker:ping:web-1:4242", "{\"time\":1764000000}", -1)
             << stringShape(ns + "resque_scheduler_leader_lock", "web-1", 3000);
    else
        keys << sizedShape(ns + "workers:heartbeat", "hash", 1);
    return keys;
}

} // namespace gatehouse::test
