// SPDX-License-Identifier: MIT
#pragma once

#include "objectstate.h"

#include <QString>
#include <QVariant>

#include <functional>
#include <type_traits>

namespace gatehouse {

// A group of patterns shown together: one page of the console, one array of
// the snapshot JSON, one table of the CLI ("limiter": sliding windows, fixed
// windows, Redisson...). Declared by the patterns (PatternUnit::section());
// the registry keeps them in the order they were first registered.
struct Section
{
    QString id;       // "limiter": profiles, CLI nouns ("limiter reset"), sections of pages
    QString jsonKey;  // "limiters": the snapshot JSON's array
    QString title;    // "Limiters": page and CLI table titles
    QString singular; // "limiter": in sentences ("… is a lock, not a limiter")
};

// One column of a section's table, used alike by the console's table model,
// its CSV export and the CLI's text tables. The patterns of a section share
// columns by header: a pattern without a column leaves its cell empty.
struct Column
{
    QString header;
    // The cell's text for an object at server time nowMs: readings are projected
    // (Reading::countdownAt / ageAt) from their atMs to nowMs.
    std::function<QString(const ObjectState &s, qint64 nowMs)> text;
    // What the column sorts by (a number or a string); the text when unset.
    std::function<QVariant(const ObjectState &s, qint64 nowMs)> sort;
    // Countdowns and ages: repainted as the server's clock moves between
    // readings (every projected value moves alike, so the sort order holds).
    bool movesWithTime = false;
    QString toolTip; // what the figure is, when the header does not say
    // Read from the reading (a figure): "–" where the reading failed (a
    // refused or lost read), never its empty figures; not the key, the
    // pattern or the status.
    bool fromReading = true;

    QVariant sortValue(const ObjectState &s, qint64 nowMs) const
    {
        return sort ? sort(s, nowMs) : QVariant(text(s, nowMs));
    }
    // The columns every section starts or ends with.
    static Column key(const QString &header);
    static Column pattern();
    static Column status();
    // Library objects: the library and its recorded version ("bullmq:6.7.0"),
    // and the counts by its state names ("wait 3 · active 1 · …").
    static Column library(const QString &name);
    static Column counts();
    // Common figures of a reading: a count ("12"), the count in the window
    // over the limit ("12 / 20"), occupancy ("60 %"), a countdown and an age
    // projected to now ("1.2 s").
    static Column count(const QString &header, qint64 Reading::*field);
    // A count of what a queue, semaphore or lock holds (Reading::queue()).
    static Column count(const QString &header, qint64 Reading::Queue::*field);
    // A count of the pattern's own data (PatternData: Reading::data<T>()).
    template<class T, std::enable_if_t<std::is_base_of_v<PatternData, T>, int> = 0>
    static Column count(const QString &header, qint64 T::*field)
    {
        Column c;
        c.header = header;
        c.text = [field](const ObjectState &s, qint64) -> QString {
            return QString::number(s.reading.data<T>().*field);
        };
        c.sort = [field](const ObjectState &s, qint64) {
            return QVariant(double(s.reading.data<T>().*field));
        };
        return c;
    }
    static Column usedOfLimit(const QString &header);
    static Column occupancy();
    static Column countdown(const QString &header, qint64 Reading::*field);
    static Column age(const QString &header, qint64 Reading::*field);
    static Column age(const QString &header, qint64 Reading::Queue::*field);
};

// A figure kept per tick in an object's history and charted (one float per
// sample), taken from the reading as of the tick's server time.
struct Figure
{
    QString id;              // "inWindow": JSON and chart series names
    QString title;           // "In window"
    bool isDuration = false; // ms: charted in seconds
    std::function<double(const Reading &r, qint64 atMs)> value;
    // A quantile of a distribution (how long jobs waited): Prometheus gets
    // the figures of one summary id as one summary with a quantile label
    // (gatehouse_queue_job_wait_seconds{quantile="0.95"}); empty: a gauge.
    QString summary;
    double quantile = 0;
    // The total of `gatehouse-cli watch`'s line this figure adds to, summed
    // over every object of every pattern that declares it ("liveTokens");
    // empty: none.
    QString total;
};

// One chart of the selected object (the console's ChartPanel), declared by
// its pattern: figures of its history over time, or the strip of its
// detailed reading (the times in the window and the retry slots after now).
struct Chart
{
    struct Series
    {
        QString figure;     // a Figure id of the pattern's history
        QString name;       // the legend's
        double scale = 1.0; // 0.001: a duration in ms charted in seconds
        // The figure is a count that grows as work is done (completed,
        // failed): charted as its rise per minute, a throughput. A fall (a
        // clean, a library trimming its finished jobs) counts as none.
        bool perMinute = false;
    };
    enum class Kind { History, WindowStrip };
    QString title;
    QString yLabel;
    QList<Series> series;
    bool limitLine = false; // the reading's limit as a dashed line
    Kind kind = Kind::History;
};

// "1.2 s", "350 ms", "3.0 min"; "–" for a negative (unknown) duration.
QString formatMs(qint64 ms);
// An age counted from when the console began watching, the thing being
// older already: "≥ 5.0 min, since watching began".
QString formatAgeSinceWatching(qint64 ms);
// Why such an age is a lower bound (tooltips).
QString sinceWatchingToolTip();
// Bytes in IEC units, as everywhere in the console: "512 B", "12.3 MiB";
// "–" for a negative (unknown) size.
QString formatBytes(qint64 bytes);
// A ratio as a whole percentage ("80"), any size; "?" when not a number.
QString formatPercent(double ratio);

} // namespace gatehouse
