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

} // namespace gatehouse::test
