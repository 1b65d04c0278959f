// SPDX-License-Identifier: MIT
#include "presentation.h"

#include "objecthealth.h"
#include "patternunit.h"

#include <redis/redisvalue.h>

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace gatehouse {

QString formatMs(qint64 ms)
{
    constexpr qint64 Second = 1000, Minute = 60 * Second, Hour = 60 * Minute, Day = 24 * Hour;
    if (ms < 0)
        return QStringLiteral("–");
    if (ms < Second)
        return QStringLiteral("%1 ms").arg(ms);
    // One decimal while it says something ("2.5 s"), whole seconds above 10 s.
    if (ms < 10 * Second)
        return QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    if (ms < Minute)
        return QStringLiteral("%1 s").arg(ms / Second);
    if (ms < Hour)
        return QStringLiteral("%1 min").arg(double(ms) / double(Minute), 0, 'f', 1);
    if (ms < Day)
        return QStringLiteral("%1 h %2 min").arg(ms / Hour).arg((ms % Hour) / Minute);
    return QStringLiteral("%1 d %2 h").arg(ms / Day).arg((ms % Day) / Hour);
}

QString formatBytes(qint64 bytes)
{
    if (bytes < 0)
        return QStringLiteral("–");
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

QString formatAgeSinceWatching(qint64 ms)
{
    return QStringLiteral("≥ %1, since watching began").arg(formatMs(ms));
}

QString sinceWatchingToolTip()
{
    return QStringLiteral("The job was in flight already when this console began watching the "
                          "queue: the list records no time, so its age counts from then and "
                          "it may be older.");
}

QString formatPercent(double ratio)
{
    if (!std::isfinite(ratio))
        return QStringLiteral("?");
    return QString::number(qRound64(std::clamp(ratio * 100, -1e15, 1e15)));
}

Column Column::key(const QString &header)
{
    Column c;
    c.header = header;
    c.text = [](const ObjectState &s, qint64) -> QString {
        return PatternUnit::of(s.object->kind).displayName(s.object);
    };
    c.sort = [](const ObjectState &s, qint64) {
        return QVariant(PatternUnit::of(s.object->kind).displayName(s.object));
    };
    c.fromReading = false;
    return c;
}

Column Column::pattern()
{
    Column c;
    c.header = QStringLiteral("Pattern");
    c.text = [](const ObjectState &s, qint64) -> QString {
        return s.object->kind.id();
    };
    c.fromReading = false;
    return c;
}

Column Column::status()
{
    Column c;
    c.header = QStringLiteral("Status");
    c.movesWithTime = true; // "expired 9.3 min ago", "stale for 12 s"
    // The pattern's words ("over limit", "expired 9.3 min ago: holder crashed,
    // may be taken over"), never a bare "ok" for an object that is not.
    c.text = [](const ObjectState &s, qint64 nowMs) -> QString {
        return objectHealth(s, nowMs).words;
    };
    c.sort = [](const ObjectState &s, qint64 nowMs) {
        return QVariant(int(objectHealth(s, nowMs).severity));
    };
    c.fromReading = false;
    return c;
}

Column Column::library(const QString &name)
{
    Column c;
    c.header = QStringLiteral("Library");
    c.toolTip = QStringLiteral("The library whose layout the keys follow, with the version it "
                               "recorded; \"unknown layout\" is shown read-only.");
    c.text = [name](const ObjectState &s, qint64) -> QString {
        const Reading &r = s.reading;
        QString text = r.library().layoutVersion.isEmpty() ? name : r.library().layoutVersion;
        if (!r.library().layoutKnown)
            text += QStringLiteral(" (unknown layout, read-only)");
        else if (r.library().paused)
            text += QStringLiteral(" (paused)");
        return text;
    };
    return c;
}

Column Column::counts()
{
    Column c;
    c.header = QStringLiteral("Counts");
    c.toolTip = QStringLiteral("Jobs per state, by the library's own state names.");
    c.text = [](const ObjectState &s, qint64) -> QString {
        QStringList parts;
        for (const StateCount &n : s.reading.library().counts)
            parts << QStringLiteral("%1 %2").arg(n.state).arg(n.count);
        return parts.join(QStringLiteral(" · "));
    };
    c.sort = [](const ObjectState &s, qint64) {
        qint64 total = 0;
        for (const StateCount &n : s.reading.library().counts)
            total = saturatingAdd(total, n.count); // counts come from replies
        return QVariant(total);
    };
    return c;
}

namespace {

// A count, or an age projected to now, of the figure value(reading) gives.
template<class Value>
Column countColumn(const QString &header, Value value)
{
    Column c;
    c.header = header;
    c.text = [value](const ObjectState &s, qint64) -> QString {
        return QString::number(value(s.reading));
    };
    c.sort = [value](const ObjectState &s, qint64) {
        return QVariant(double(value(s.reading)));
    };
    return c;
}

template<class Value>
Column ageColumn(const QString &header, Value value)
{
    Column c;
    c.header = header;
    c.movesWithTime = true;
    c.text = [value](const ObjectState &s, qint64 now) -> QString {
        return formatMs(s.reading.ageAt(value(s.reading), now));
    };
    c.sort = [value](const ObjectState &s, qint64 now) {
        return QVariant(double(s.reading.ageAt(value(s.reading), now)));
    };
    return c;
}

} // namespace

Column Column::count(const QString &header, qint64 Reading::*field)
{
    return countColumn(header, [field](const Reading &r) { return r.*field; });
}

Column Column::count(const QString &header, qint64 Reading::Queue::*field)
{
    return countColumn(header, [field](const Reading &r) { return r.queue().*field; });
}

Column Column::usedOfLimit(const QString &header)
{
    Column c = count(header, &Reading::inWindow);
    c.text = [](const ObjectState &s, qint64) -> QString {
        return QStringLiteral("%1 / %2")
            .arg(s.reading.inWindow)
            .arg(s.reading.limit ? QString::number(*s.reading.limit) : QStringLiteral("?"));
    };
    return c;
}

Column Column::occupancy()
{
    Column c;
    c.header = QStringLiteral("Occupancy");
    c.text = [](const ObjectState &s, qint64) -> QString {
        const auto o = s.reading.occupancy();
        // Occupancy over 100 % is real (a limit lowered in the profile); a
        // wild reply can make it any size, so the percentage is a qint64.
        return o ? QStringLiteral("%1 %").arg(formatPercent(*o)) : QStringLiteral("?");
    };
    c.sort = [](const ObjectState &s, qint64) {
        return QVariant(s.reading.occupancy().value_or(-1));
    };
    return c;
}

Column Column::countdown(const QString &header, qint64 Reading::*field)
{
    Column c;
    c.header = header;
    c.movesWithTime = true;
    c.text = [field](const ObjectState &s, qint64 now) -> QString {
        return formatMs(s.reading.countdownAt(s.reading.*field, now));
    };
    c.sort = [field](const ObjectState &s, qint64 now) {
        return QVariant(double(s.reading.countdownAt(s.reading.*field, now)));
    };
    return c;
}

Column Column::age(const QString &header, qint64 Reading::*field)
{
    return ageColumn(header, [field](const Reading &r) { return r.*field; });
}

Column Column::age(const QString &header, qint64 Reading::Queue::*field)
{
    return ageColumn(header, [field](const Reading &r) { return r.queue().*field; });
}

} // namespace gatehouse
