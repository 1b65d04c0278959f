// SPDX-License-Identifier: MIT
#include "rereadcheck.h"

#include <algorithm>
#include <cmath>

namespace gatehouse {

bool rereadWritten(const QList<Figure> &figures, const Reading &projected, const Reading &reading,
                   double durationSlackMs)
{
    if (projected.status != reading.status)
        return true;
    return std::any_of(figures.cbegin(), figures.cend(), [&](const Figure &f) {
        const double a = f.value(projected, reading.atMs);
        const double b = f.value(reading, reading.atMs);
        const double slack = f.isDuration ? durationSlackMs : 0.0;
        return std::abs(a - b) > slack && !(std::isnan(a) && std::isnan(b));
    });
}

bool rereadConfirms(const QList<Figure> &figures, const Reading &projected, const Reading &reading,
                    double durationSlackMs)
{
    if (projected.status != reading.status)
        return false;
    const auto near = [](double a, double b, double slack) {
        if (std::isnan(a) || std::isnan(b))
            return std::isnan(a) && std::isnan(b);
        return std::abs(a - b) <= slack;
    };
    const qint64 now = reading.atMs;
    const qint64 ms = now + 1;
    const qint64 hour = now + 3600 * 1000;
    return std::all_of(figures.cbegin(), figures.cend(), [&](const Figure &f) {
        const double slack = f.isDuration ? durationSlackMs : 0.0;
        const double a = f.value(projected, now);
        const double b = f.value(reading, now);
        return near(a, b, slack) && near(f.value(projected, hour), f.value(reading, hour), slack)
               && near(f.value(projected, ms) - a, f.value(reading, ms) - b, 0.0);
    });
}

} // namespace gatehouse
