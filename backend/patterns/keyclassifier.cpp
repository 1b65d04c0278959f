// SPDX-License-Identifier: MIT
#include "keyclassifier.h"

#include "legacy-lock/legacylockunit.h"

#include <cmath>

namespace gatehouse {

namespace {
constexpr double s_dayMs = 24.0 * 3600.0 * 1000.0;

bool nearMs(double score, qint64 now)
{
    return std::fabs(score - double(now)) < s_dayMs;
}

bool nearSeconds(double score, qint64 now)
{
    return std::fabs(score * 1000.0 - double(now)) < s_dayMs;
}

bool isInteger(const QByteArray &v)
{
    if (v.isEmpty() || v.size() > 20)
        return false;
    bool ok = false;
    v.toLongLong(&ok);
    return ok;
}

bool namedLikeLock(const QByteArray &key)
{
    return key.toLower().contains("lock");
}

// A segment "sem" or "sems", or "semaphore" anywhere: holders and request
// times are both ZSETs of ms times, so only the name tells them apart.
bool namedLikeSemaphore(const QByteArray &key)
{
    const QByteArray lower = key.toLower();
    if (lower.contains("semaphore"))
        return true;
    for (const QByteArray &segment : lower.split(':')) {
        if (segment == "sem" || segment == "sems")
            return true;
    }
    return false;
}
} // namespace

bool looksRandom(const QByteArray &value)
{
    if (value.size() < 8 || value.size() > 256)
        return false;
    int letters = 0;
    int digits = 0;
    for (char ch : value) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= '0' && c <= '9')
            ++digits;
        else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            ++letters;
        else if (c != '-' && c != '_' && c != '.' && c != ':')
            return false;
    }
    return letters > 0 && digits > 0;
}

QByteArray tokenPrefix(const QByteArray &key)
{
    const qsizetype colon = key.lastIndexOf(':');
    if (colon <= 0 || colon == key.size() - 1)
        return {};
    return looksRandom(key.mid(colon + 1)) ? key.left(colon + 1) : QByteArray();
}

KeyRole classifyKey(const KeyShape &s, qint64 now)
{
    if (s.type == "zset") {
        if (s.key.endsWith(":permits") && s.key.startsWith('{'))
            return KeyRole::RedissonPermits;
        if (s.size == 0)
            return KeyRole::Unknown;
        if (s.key.endsWith(":retry") && nearMs(s.lastScore, now))
            return KeyRole::RetrySlots;
        if (s.key.endsWith(":claims") && nearMs(s.lastScore, now))
            return KeyRole::ClaimsSet;
        if (nearMs(s.lastScore, now) && nearMs(s.firstScore, now))
            return namedLikeSemaphore(s.key) ? KeyRole::Semaphore : KeyRole::WindowMs;
        if (nearSeconds(s.lastScore, now) && nearSeconds(s.firstScore, now))
            return KeyRole::WindowSeconds;
        return KeyRole::Unknown;
    }
    if (s.type == "hash") {
        if (s.hasRate && s.hasInterval && s.hasType)
            return KeyRole::RedissonConfig;
        if (s.hasCountField)
            return KeyRole::CountedToken;
        return KeyRole::Unknown;
    }
    if (s.type == "list") {
        const QByteArray lower = s.key.toLower();
        if (lower.endsWith(":processing") || lower.contains(":processing:")
            || lower.endsWith("-processing") || lower.endsWith(".processing"))
            return KeyRole::ProcessingList;
        return KeyRole::List;
    }
    if (s.type != "string")
        return KeyRole::Unknown;

    if (s.key.startsWith('{') && s.key.contains("}:value"))
        return KeyRole::RedissonValue;
    if (isInteger(s.head)) {
        const qint64 expiry = LegacyLockUnit::expiryFromValue(s.head);
        if (namedLikeLock(s.key) && expiry > 0 && std::fabs(double(expiry - now)) < s_dayMs)
            return KeyRole::LegacyLock;
        if (s.pttlMs > 0)
            return KeyRole::Counter;
        return KeyRole::Unknown;
    }
    if (s.pttlMs <= 0)
        return KeyRole::Unknown;
    if (namedLikeLock(s.key) && looksRandom(s.head))
        return KeyRole::Lock;
    if (!tokenPrefix(s.key).isEmpty())
        return KeyRole::Token;
    if (looksRandom(s.head))
        return KeyRole::Lock;
    return KeyRole::Unknown;
}

} // namespace gatehouse
