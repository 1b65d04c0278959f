// SPDX-License-Identifier: MIT
#pragma once

// Canned key shapes (what autodetection's bounded look at a key shows), for
// tests of the patterns' evidence without a server.
#include <patterns/keyclassifier.h>

namespace gatehouse::test {

// A server time in ms the shapes' times are near.
constexpr qint64 ShapeNowMs = 1'763'800'000'000;

inline KeyShape zsetShape(const QByteArray &key, double first, double last, qint64 pttl = -1)
{
    KeyShape s;
    s.key = key;
    s.type = "zset";
    s.size = 10;
    s.firstScore = first;
    s.lastScore = last;
    s.pttlMs = pttl;
    return s;
}

inline KeyShape stringShape(const QByteArray &key, const QByteArray &head, qint64 pttl)
{
    KeyShape s;
    s.key = key;
    s.type = "string";
    s.head = head;
    s.pttlMs = pttl;
    return s;
}

inline KeyShape listShape(const QByteArray &key)
{
    KeyShape s;
    s.key = key;
    s.type = "list";
    s.size = 3;
    return s;
}

// A key of a type only its size tells about (SET, STREAM, HASH).
inline KeyShape sizedShape(const QByteArray &key, const QByteArray &type, qint64 size = 1)
{
    KeyShape s;
    s.key = key;
    s.type = type;
    s.size = size;
    return s;
}

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

// A Celery 5 deployment on kombu 5's Redis transport as a worker leaves it
// (tst_lib_celery reads a live one): the default queue "celery" and a
// priority sub-list, its binding and the worker's pidbox and event
// bindings, one unacked message scored by its delivery time in seconds, the
// restore mutex, and a result of the Redis result backend.
inline QList<KeyShape> celeryShapes(double nowMs)
{
    const double s = nowMs / 1000;
    return {sizedShape("_kombu.binding.celery", "set", 1),
            sizedShape("_kombu.binding.celeryev", "set", 2),
            sizedShape("_kombu.binding.celery.pidbox", "set", 1),
            listShape("celery"),
            listShape(QByteArray("celery\x06\x16") + '9'),
            sizedShape("unacked", "hash", 1),
            zsetShape("unacked_index", s - 4000, s - 4000),
            stringShape("unacked_mutex", "8d3c1a2e5b7f4c1d9e2a77b1f0c3d4e5", 290000),
            stringShape("celery-task-meta-e907e370-ed3b-4042-b334-95f979e802dd",
                        "{\"status\": \"SUCCESS\", \"result\": \"job\"", 86000000)};
}

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

// n keys of one ordinary application family (what production servers hold
// mostly), named "<prefix><name>..." as applications name them, with the
// shapes a bounded look shows; i varies the ids. Kinds: "cache",
// "hash-cache", "page-cache", "session", "session-id", "dated-counter",
// "hourly-counter", "timeline", "activity", "leaderboard", "flag", "log",
// "profile-hash", "counter".
inline QList<KeyShape> ordinaryShapes(const QByteArray &kind, const QByteArray &prefix, int n,
                                      double nowMs)
{
    QList<KeyShape> out;
    const auto hex = [](int i, int len) {
        QByteArray h = QByteArray::number(quint64(i) * 2654435761u + 0x9e3779b9u, 16);
        while (h.size() < len)
            h += QByteArray::number(quint64(h.size()) * 40503u + quint64(i), 16);
        h = h.left(len);
        if (h.count('a') + h.count('b') + h.count('c') + h.count('d') + h.count('e') + h.count('f')
            == 0)
            h[0] = 'f';
        return h;
    };
    for (int i = 0; i < n; ++i) {
        const QByteArray id = QByteArray::number(1000 + i * 7);
        if (kind == "cache") {
            out << stringShape(prefix + "cache:user:" + id, "{\"name\":\"u" + id + "\"}",
                               300000 + i * 10);
        } else if (kind == "hash-cache") {
            out << stringShape(prefix + "cache:q:" + hex(i, 32), "[{\"id\":1}]", 600000);
        } else if (kind == "page-cache") {
            out << stringShape(prefix + "page:" + hex(i, 40), "<!doctype html><html>", 600000);
        } else if (kind == "session") {
            out << stringShape(prefix + "session:" + hex(i, 12) + "Zq" + id,
                               "{\"user\":" + id + "}", 1800000);
        } else if (kind == "session-id") {
            out << stringShape(prefix + "user:" + id + ":sid",
                               "8d3c1a2e-5b7f-4c1d-9e2a-" + hex(i, 12), 86400000);
        } else if (kind == "dated-counter") {
            out << stringShape(prefix + "stats:views:2026-11-" + QByteArray::number(10 + i % 20)
                                   + ':' + id,
                               QByteArray::number(i % 500 + 1), 7LL * 86400000);
        } else if (kind == "hourly-counter") {
            out << stringShape(prefix + "api_calls:20261123" + QByteArray::number(10 + i % 12) + ':'
                                   + id,
                               QByteArray::number(i % 90 + 1), 3600000);
        } else if (kind == "timeline") {
            out << zsetShape(prefix + "timeline:" + id, nowMs - 3600000, nowMs - 1000);
        } else if (kind == "activity") {
            out << zsetShape(prefix + "activity:" + id, nowMs - 600000, nowMs - 100, 86400000);
        } else if (kind == "leaderboard") {
            out << zsetShape(prefix + "leaderboard:game_" + QByteArray::number(i) + ":2026-11-"
                                 + QByteArray::number(10 + i % 20),
                             1, 9000);
        } else if (kind == "flag") {
            out << stringShape(prefix + "feature:flag_" + QByteArray::number(i), "on", -1);
        } else if (kind == "log") {
            out << listShape(prefix + "log:2026-11-" + QByteArray::number(10 + i % 20) + ':' + id);
        } else if (kind == "profile-hash") {
            out << sizedShape(prefix + "user:" + id, "hash", 8);
        } else if (kind == "counter") {
            out << stringShape(prefix + "counter:" + id, QByteArray::number(i * 3), -1);
        } else if (kind == "integer-cache") { // a cached count: a small integer that expires
            out << stringShape(prefix + "cache:uid:" + id, QByteArray::number(i % 40 + 1),
                               300000 + i * 10);
        } else if (kind == "uuid-session") {
            out << stringShape(prefix + "session:8d3c1a2e-5b7f-4c1d-9e2a-" + hex(i, 12),
                               "{\"user\":" + id + ",\"ts\":1763800000}", 1800000);
        }
    }
    return out;
}

// The value the n-th holder of a lock writes, by shape: "tok" (tok<n>),
// "literal" (the same "tok" in every key), "host-pid" (host-<n>:<pid>),
// "integer" (a small one), "uuid", "json" ({"owner":"w-<n>","ts":...}),
// "letters" (random letters only: no digit, so not "random-looking").
inline QByteArray lockValue(const QByteArray &shape, int n)
{
    const QByteArray i = QByteArray::number(n);
    if (shape == "tok")
        return "tok" + i;
    if (shape == "literal")
        return "tok";
    if (shape == "host-pid")
        return "host-" + QByteArray::number(n % 7) + ':' + QByteArray::number(4100 + n * 13);
    if (shape == "integer")
        return QByteArray::number(n % 9 + 1);
    if (shape == "uuid")
        return "3f9a1c2e-77b1-4c1d-9e2a-" + QByteArray::number(0x100000000000ULL + quint64(n), 16);
    if (shape == "json")
        return "{\"owner\":\"w-" + QByteArray::number(n % 5)
               + "\",\"ts\":" + QByteArray::number(1763800000000LL + n) + '}';
    if (shape == "letters") {
        QByteArray out;
        quint32 x = 2654435761u * quint32(n + 1);
        for (int c = 0; c < 16; ++c) {
            x = x * 1664525u + 1013904223u;
            const int r = int((x >> 16) % 52);
            out += char(r < 26 ? 'a' + r : 'A' + r - 26);
        }
        return out;
    }
    return {};
}

// n locks "<prefix><k>" holding lockValue(shape, k), each with a PX TTL.
inline QList<KeyShape> lockFamilyShapes(const QByteArray &shape, const QByteArray &prefix, int n,
                                        qint64 pttlMs = 600000)
{
    QList<KeyShape> out;
    for (int k = 0; k < n; ++k)
        out << stringShape(prefix + QByteArray::number(k), lockValue(shape, k), pttlMs - k);
    return out;
}

} // namespace gatehouse::test
