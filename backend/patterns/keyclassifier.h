// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QList>

namespace gatehouse {

// What a bounded look at one key showed (TYPE, PTTL, and per type: the first
// 64 bytes of a string, a ZSET's size and first/last scores, a few hash fields).
struct KeyShape
{
    QByteArray key;
    QByteArray type; // TYPE's reply: "string", "zset", "list", "hash", ...
    qint64 pttlMs = -1;
    QByteArray head;       // strings: GETRANGE 0 63
    qint64 size = 0;       // STRLEN, ZCARD, LLEN or HLEN
    double firstScore = 0; // zsets, when size > 0
    double lastScore = 0;
    bool hasRate = false; // hashes: Redisson's rate/interval/type fields present
    bool hasInterval = false;
    bool hasType = false;
    bool hasCountField = false; // hashes: the token use counter field present
    qint64 rate = -1;           // hashes: Redisson's rate and interval (ms), when present
    qint64 interval = -1;
};

// The role one key plays, judged on its own; grouping keys into pattern
// instances (window + retry, queue + processing, token families) is the
// autodetector's job.
enum class KeyRole {
    Unknown,
    WindowMs,        // ZSET scored by times in ms near the server's clock
    WindowSeconds,   // ZSET scored by times in s (seed 003)
    Semaphore,       // ZSET scored by times in ms, named like a semaphore ("sem:", "semaphore")
    RetrySlots,      // ZSET named "...:retry", scores in ms (future slots)
    ClaimsSet,       // ZSET named "...:claims", scores in ms
    RedissonPermits, // ZSET named "{name}:permits"
    RedissonValue,   // STRING named "{name}:value..."
    RedissonConfig,  // HASH with rate, interval and type
    Counter,         // STRING integer with a TTL
    Lock,            // STRING random-looking token with a TTL
    LegacyLock,      // STRING expiry timestamp on a key named like a lock
    Token,           // STRING with a TTL on "<prefix>:<random>"
    CountedToken,    // HASH with a use counter (seed 002)
    List,            // LIST
    ProcessingList,  // LIST named "...:processing" (or "...processing...")
};

// Server time in ms; scores within a day of it count as times.
KeyRole classifyKey(const KeyShape &shape, qint64 serverNowMs);

// True for values that look generated: long enough, from a token alphabet,
// mixing letters and digits (UUIDs, hex, base64url).
bool looksRandom(const QByteArray &value);
// The family prefix of "<prefix>:<random>": everything up to the last ':',
// including it; empty when the last segment is not random-looking.
QByteArray tokenPrefix(const QByteArray &key);

} // namespace gatehouse
