// SPDX-License-Identifier: MIT
#include "patternkind.h"

namespace gatehouse {

namespace {
struct Entry
{
    PatternKind kind;
    const char *id;
    const char *section;
};
constexpr Entry s_entries[] = {
    {PatternKind::SlidingWindow, "sliding-window", "limiter"},
    {PatternKind::ResourceConsumer, "resource-consumer", "limiter"},
    {PatternKind::FixedWindow, "fixed-window", "limiter"},
    {PatternKind::RedissonLimiter, "redisson-limiter", "limiter"},
    {PatternKind::Lock, "lock", "lock"},
    {PatternKind::LegacyLock, "legacy-lock", "lock"},
    {PatternKind::TokenFamily, "token-family", "token"},
    {PatternKind::ReliableQueue, "reliable-queue", "queue"},
};
} // namespace

QString patternId(PatternKind kind)
{
    for (const Entry &e : s_entries) {
        if (e.kind == kind)
            return QLatin1String(e.id);
    }
    return {};
}

std::optional<PatternKind> patternFromId(const QString &id)
{
    for (const Entry &e : s_entries) {
        if (id == QLatin1String(e.id))
            return e.kind;
    }
    return std::nullopt;
}

QList<PatternKind> allPatterns()
{
    QList<PatternKind> kinds;
    for (const Entry &e : s_entries)
        kinds.append(e.kind);
    return kinds;
}

QString patternSection(PatternKind kind)
{
    for (const Entry &e : s_entries) {
        if (e.kind == kind)
            return QLatin1String(e.section);
    }
    return {};
}

} // namespace gatehouse
