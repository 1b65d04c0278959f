// SPDX-License-Identifier: MIT
#pragma once

// Canned key shapes (what autodetection's bounded look at a key shows), for
// tests of the patterns' evidence without a server. A pattern's own canned
// keyspaces are in its folder, tests/patterns/<pattern>/<pattern>shapes.h.
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

// A stream with its consumer groups' names as the shape probe samples them
// (XINFO GROUPS); none: an event log.
inline KeyShape streamShape(const QByteArray &key, const QList<QByteArray> &groups)
{
    KeyShape s = sizedShape(key, "stream", 40);
    s.sampleFields = groups;
    return s;
}

// n keys of one ordinary application family (what production servers hold
// mostly), named "<prefix><name>..." as applications name them, with the
// shapes a bounded look shows; i varies the ids. Kinds: "cache",
// "hash-cache", "page-cache", "session", "session-id", "dated-counter",
// "hourly-counter", "timeline", "activity", "leaderboard", "flag", "log",
// "profile-hash", "counter", "pageview-counter".
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
        } else if (kind == "pageview-counter") { // a counter whose name says "page"
            out << stringShape(prefix + "counter:pageviews:" + id, QByteArray::number(i * 11), -1);
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

} // namespace gatehouse::test
