// SPDX-License-Identifier: MIT
#include "tokendata.h"

namespace gatehouse {

PatternData *TokenData::clone() const
{
    return new TokenData(*this);
}

Figure TokenData::liveTokens()
{
    Figure f;
    f.id = QStringLiteral("count");
    f.title = QStringLiteral("Live tokens");
    f.value = [](const Reading &r, qint64) {
        return double(of(r).count);
    };
    f.total = QStringLiteral("liveTokens");
    return f;
}

ObjectHealth TokenData::health(const ObjectState &s, qint64 nowMs)
{
    const ObjectHealth h = defaultHealth(s, nowMs);
    const qint64 withoutTtl = of(s.reading).withoutTtl;
    if (h.id == states::Ok && withoutTtl > 0)
        return {states::Orphaned, QStringLiteral("%1 without TTL").arg(withoutTtl),
                Severity::Warning};
    return h;
}

PatternData *TokenData::projected(const Reading &from, qint64 nowMs) const
{
    auto *moved = new TokenData(*this);
    moved->minTtlMs = from.countdownAt(minTtlMs, nowMs);
    moved->maxTtlMs = from.countdownAt(maxTtlMs, nowMs);
    return moved;
}

} // namespace gatehouse
