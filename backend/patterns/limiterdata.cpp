// SPDX-License-Identifier: MIT
#include "limiterdata.h"

namespace gatehouse {

PatternData *LimiterData::clone() const
{
    return new LimiterData(*this);
}

PatternData *LimiterData::projected(const Reading &from, qint64 nowMs) const
{
    auto *moved = new LimiterData(*this);
    moved->oldestAgeMs = from.ageAt(oldestAgeMs, nowMs);
    moved->retryHorizonMs = from.countdownAt(retryHorizonMs, nowMs);
    moved->resetMs = from.countdownAt(resetMs, nowMs);
    return moved;
}

Column LimiterData::countdown(const QString &header, qint64 LimiterData::*field)
{
    Column c;
    c.header = header;
    c.movesWithTime = true;
    c.text = [field](const ObjectState &s, qint64 now) -> QString {
        return formatMs(s.reading.countdownAt(of(s.reading).*field, now));
    };
    c.sort = [field](const ObjectState &s, qint64 now) {
        return QVariant(double(s.reading.countdownAt(of(s.reading).*field, now)));
    };
    return c;
}

Column LimiterData::age(const QString &header, qint64 LimiterData::*field)
{
    Column c;
    c.header = header;
    c.movesWithTime = true;
    c.text = [field](const ObjectState &s, qint64 now) -> QString {
        return formatMs(s.reading.ageAt(of(s.reading).*field, now));
    };
    c.sort = [field](const ObjectState &s, qint64 now) {
        return QVariant(double(s.reading.ageAt(of(s.reading).*field, now)));
    };
    return c;
}

} // namespace gatehouse
