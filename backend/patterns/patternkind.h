// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace gatehouse {

// The coordination patterns Gatehouse knows (see DESIGN.md, "The patterns").
enum class PatternKind {
    SlidingWindow,    // seed 000: ZSET of request times + ZSET of retry slots
    ResourceConsumer, // seed 003: a resource window and its consumers' windows
    FixedWindow,      // seed 002: STRING counter with PEXPIRE
    RedissonLimiter,  // seed 001: HASH config, {name}:value, {name}:permits (read-only)
    Lock,             // seeds 000/004: STRING token with PX TTL
    LegacyLock,       // seed 004: SETNX lock whose value is an expiry time (read-only)
    TokenFamily,      // seeds 000/002: <prefix><random> STRING (or HASH with a use counter)
    ReliableQueue,    // seed 004: LIST queue + LIST processing (+ claims ZSET, dead LIST)
};

// Stable ids used in profiles, JSON and the CLI ("sliding-window", ...).
QString patternId(PatternKind kind);
std::optional<PatternKind> patternFromId(const QString &id);
QList<PatternKind> allPatterns();
// "limiter", "lock", "token" or "queue": the snapshot section a pattern goes in.
QString patternSection(PatternKind kind);

} // namespace gatehouse
