// SPDX-License-Identifier: MIT
#pragma once

#include "keyshapes.h"

namespace gatehouse::test {

// A Sidekiq 6-8 deployment as a real one leaves it (tst_lib_sidekiq reads
// live ones), under a redis-namespace prefix ns ("" or "myapp:"): the queues
// SET and a queue LIST, retry/schedule/dead sets scored in epoch seconds, a
// process's heartbeat hash (TTL 60 s) and work hash, its signals list, the
// stat counters (per day with a TTL of five years).
inline QList<KeyShape> sidekiqShapes(const QByteArray &ns, double nowMs)
{
    const double s = nowMs / 1000;
    KeyShape beat = sizedShape(ns + "web-1:4242:8266484eb2cf", "hash", 6);
    beat.pttlMs = 55000;
    KeyShape work = sizedShape(ns + "web-1:4242:8266484eb2cf:workers", "hash", 1);
    work.pttlMs = 55000;
    return {sizedShape(ns + "queues", "set", 2),
            listShape(ns + "queue:default"),
            zsetShape(ns + "retry", s + 20, s + 3600),
            zsetShape(ns + "schedule", s + 60, s + 600),
            zsetShape(ns + "dead", s - 86400, s - 10),
            sizedShape(ns + "processes", "set", 1),
            beat,
            work,
            listShape(ns + "web-1:4242:8266484eb2cf-signals"),
            stringShape(ns + "stat:processed", "1234", -1),
            stringShape(ns + "stat:processed:2026-11-23", "17", 157680000000),
            stringShape(ns + "stat:failed:2026-11-23", "2", 157680000000)};
}

} // namespace gatehouse::test
