// SPDX-License-Identifier: MIT
#include "chartscale.h"

#include <qcustomplot.h>

#include <QDateTime>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace gatehouse {

ValueRange valueRange(const QList<double> &values, std::optional<double> limit)
{
    double lo = 0, hi = 0;
    bool any = false;
    auto take = [&](double v) {
        if (!std::isfinite(v))
            return;
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
    };
    for (double v : values)
        take(v);
    if (limit)
        take(*limit);
    if (!any || (hi <= 0 && lo >= 0))
        return {0, 1};
    // Zero-based for non-negative figures (counts, ages, horizons).
    lo = std::min(lo, 0.0);
    const double span = hi - lo;
    ValueRange r{lo, hi + std::max(span * 0.08, 1e-9)};
    if (lo < 0)
        r.lower = lo - span * 0.08;
    return r;
}

int tickCountFor(int axisPixels)
{
    return std::clamp(axisPixels / 60, 2, 8);
}

QString chartFileName(const QString &chart, const QString &key, qint64 timeMs)
{
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]+"));
    auto safe = [](QString s) {
        s = s.toLower().replace(unsafe, QStringLiteral("_"));
        while (s.startsWith(QLatin1Char('_')))
            s.remove(0, 1);
        while (s.endsWith(QLatin1Char('_')))
            s.chop(1);
        return s.left(80).isEmpty() ? QStringLiteral("chart") : s.left(80);
    };
    return QStringLiteral("%1-%2-%3.png")
        .arg(safe(chart), safe(key),
             QDateTime::fromMSecsSinceEpoch(timeMs).toString(QStringLiteral("yyyyMMdd-HHmmss")));
}

int drawnPoints(const QCustomPlot *plot)
{
    int drawn = 0;
    for (int g = 0; g < plot->graphCount(); ++g)
        drawn += plot->graph(g)->dataCount();
    return drawn;
}

double liveSpanS(const QCustomPlot *plot, double rangeS)
{
    // Until the range fills, the axis fits the data: from a little before
    // the oldest point (10 s at least) to now, not 15 minutes with the
    // points in its last pixels.
    double oldest = 0;
    for (int g = 0; g < plot->graphCount(); ++g) {
        const auto *data = plot->graph(g)->data().data();
        if (!data->isEmpty())
            oldest = std::min(oldest, data->constBegin()->key);
    }
    constexpr double LeastS = 10.0;
    return std::clamp(-oldest * 1.05, LeastS, std::max(LeastS, rangeS));
}

} // namespace gatehouse
