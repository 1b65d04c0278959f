// SPDX-License-Identifier: MIT
#pragma once

#include "presentation.h"
#include "reading.h"

#include <QList>

namespace gatehouse {

// What a limiter's or a semaphore's reading holds beyond the count against
// its limit (Reading::inWindow, Reading::limit): its window, what it stores,
// its oldest entry, when a caller may retry, and the times the window strip
// draws. Written and read by the limiter and semaphore units (sliding and
// resource/consumer windows, fixed windows, Redisson's rate limiter, Python
// limits, the semaphores), their panels and their JSON.
struct LimiterData : PatternData
{
    qint64 windowMs = 0;       // 0: unknown
    qint64 stored = 0;         // members stored (includes ones not yet trimmed)
    qint64 oldestAgeMs = -1;   // age of the oldest entry in the window; -1: empty
    qint64 retryHorizonMs = 0; // last retry slot - now (fixed: PTTL when over the limit;
                               // Redisson: time to the next permit)
    qint64 retrySlots = 0;     // future retry slots
    qint64 resetMs = -1;       // fixed window: ms until the counter expires
    // The window strip's times (ProbeContext::detail, each bounded): entry
    // times in the window, oldest first, and future retry slot times.
    QList<qint64> windowTimes;
    QList<qint64> retryTimes;

    PatternData *clone() const override;
    // Ages grow and countdowns count down (Reading::at).
    PatternData *projected(const Reading &from, qint64 nowMs) const override;

    static const LimiterData &of(const Reading &r) { return r.data<LimiterData>(); }
    static LimiterData &in(Reading &r) { return r.edit<LimiterData>(); }

    // Columns of its countdowns and ages, projected to now.
    static Column countdown(const QString &header, qint64 LimiterData::*field);
    static Column age(const QString &header, qint64 LimiterData::*field);
};

} // namespace gatehouse
