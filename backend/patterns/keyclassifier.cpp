// SPDX-License-Identifier: MIT
#include "keyclassifier.h"

#include "patternregistry.h"

#include <cmath>

namespace gatehouse {

namespace {
constexpr double s_dayMs = 24.0 * 3600.0 * 1000.0;
} // namespace

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

qint64 guessWindowMs(qint64 pttlMs)
{
    if (pttlMs <= 0)
        return 0;
    for (qint64 step : {1000LL, 2000LL, 5000LL, 10000LL, 15000LL, 30000LL, 60000LL, 300000LL,
                        600000LL, 3600000LL, 86400000LL}) {
        if (pttlMs <= step)
            return step;
    }
    return pttlMs;
}

QByteArray generaliseKey(const QByteArray &key)
{
    const qsizetype colon = key.lastIndexOf(':');
    if (colon < 0 || colon == key.size() - 1)
        return key;
    return key.left(colon + 1) + '*';
}

QList<std::pair<PatternKind, KeyClaim>> claimsOn(const KeyShape &shape, qint64 serverNowMs)
{
    QList<std::pair<PatternKind, KeyClaim>> claims;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        if (std::optional<KeyClaim> c = unit->claimKey(shape, serverNowMs))
            claims.append({unit->kind(), std::move(*c)});
    }
    // Stable: equal strengths keep registration order.
    std::stable_sort(claims.begin(), claims.end(), [](const auto &a, const auto &b) {
        return a.second.strength > b.second.strength;
    });
    return claims;
}

void ClaimPool::add(const KeyShape &shape, QList<std::pair<PatternKind, KeyClaim>> claims)
{
    if (claims.isEmpty())
        return;
    m_entries.insert(shape.key, Entry{shape, std::move(claims), false});
}

const ClaimPool::Entry *ClaimPool::find(const QByteArray &key) const
{
    const auto it = m_entries.constFind(key);
    return it == m_entries.cend() ? nullptr : &*it;
}

QList<QByteArray> ClaimPool::under(const QByteArray &prefix) const
{
    QList<QByteArray> out;
    for (auto it = m_entries.lowerBound(prefix);
         it != m_entries.cend() && it.key().startsWith(prefix); ++it) {
        if (!it->taken)
            out.append(it.key());
    }
    return out;
}

QString ClaimPool::roleOf(const QByteArray &key, PatternKind kind) const
{
    if (const Entry *e = find(key)) {
        for (const auto &[k, claim] : e->claims) {
            if (k == kind)
                return claim.role;
        }
    }
    return QString();
}

QList<QByteArray> ClaimPool::won(PatternKind kind) const
{
    QList<QByteArray> keys;
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it) {
        if (!it->taken && it->claims.first().first == kind)
            keys.append(it.key());
    }
    return keys;
}

QList<QByteArray> ClaimPool::claimed(PatternKind kind, int maxStrength) const
{
    QList<QByteArray> keys;
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it) {
        if (it->taken || it->claims.first().second.strength > maxStrength)
            continue;
        for (const auto &[k, claim] : it->claims) {
            if (k == kind) {
                keys.append(it.key());
                break;
            }
        }
    }
    return keys;
}

bool ClaimPool::take(const QByteArray &key)
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end() || it->taken)
        return false;
    it->taken = true;
    return true;
}

} // namespace gatehouse
