// SPDX-License-Identifier: MIT
#pragma once

#include <QtGlobal>

namespace gatehouse::Internal {

// The history file's rows are by minute and by hour of server time (ms).
constexpr qint64 MinuteMs = 60 * 1000;
constexpr qint64 HourMs = 3600 * 1000;

// a / b rounded towards minus infinity (times before 1970 are negative).
inline qint64 floorDiv(qint64 a, qint64 b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

} // namespace gatehouse::Internal
