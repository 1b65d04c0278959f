// SPDX-License-Identifier: MIT
#pragma once

#include <QtGlobal>

#include <cmath>
#include <optional>

namespace gatehouse {

// Seconds read from a server (a score, a field, a difference of them) as ms;
// none when they are not a number or the ms would not fit a qint64, so a
// value no library writes never overflows a computation.
inline std::optional<qint64> secondsToMs(double seconds)
{
    const double ms = seconds * 1000.0;
    if (!std::isfinite(ms) || ms <= -9.2e18 || ms >= 9.2e18)
        return std::nullopt;
    return qint64(ms);
}

} // namespace gatehouse
