// SPDX-License-Identifier: MIT
#pragma once
// What AsynqUnit's files share (asynqunit.cpp: claims, probe and reading;
// asynqactions.cpp): asynq's key names (internal/base/base.go, v0.25.1).
// Not API.

#include "asynqunit.h"

namespace gatehouse::AsynqInternal {

inline const QByteArray Root = "asynq:{";
// The per-queue keys' suffixes after "asynq:{<name>}:" (State order up to
// Groups), then the shared keys' whole names.
inline constexpr const char *Names[]
    = {"pending",   "active",       "scheduled",     "retry",        "archived",
       "completed", "lease",        "paused",        "processed",    "failed",
       "groups",    "asynq:queues", "asynq:servers", "asynq:workers"};
inline constexpr const char *Types[]
    = {"list",   "list",   "zset",   "zset", "zset", "zset", "zset",
       "string", "string", "string", "set",  "set",  "zset", "zset"};
inline constexpr int PerQueue = AsynqUnit::Groups + 1;

// Per-queue keys named by a prefix: task hashes, daily counters, uniqueness
// locks, group ZSETs, and their types.
struct Family
{
    const char *prefix;
    const char *type;
};
inline constexpr Family Families[]
    = {{"t:", "hash"},        {"processed:", "string"}, {"failed:", "string"},
       {"unique:", "string"}, {"g:", "zset"},           {"aggregation_sets", "zset"}};

inline QByteArray taskPrefix(const PatternObject &o)
{
    return AsynqUnit::prefixOf(AsynqUnit::nameOf(o.key)) + "t:";
}

inline QByteArray queueName(const PatternObject &o)
{
    return AsynqUnit::nameOf(o.key);
}

} // namespace gatehouse::AsynqInternal
