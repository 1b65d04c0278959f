// SPDX-License-Identifier: MIT
#include "historycommand.h"

#include "exitcodes.h"

#include <history/historystore.h>
#include <redis/userinput.h>

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTextStream>

#include <cmath>

namespace gatehouse::cli {

namespace {

constexpr int MaxEvents = 200;

QString isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

// The shortest decimal that reads back as the same float: history keeps
// 4-byte floats, and 0.9 was 0.9 in the snapshot, not 0.899999976.
QString text(float v)
{
    if (std::isnan(v))
        return QString();
    for (int digits = 6; digits < 9; ++digits) {
        const QString t = QString::number(double(v), 'g', digits);
        if (t.toFloat() == v)
            return t;
    }
    return QString::number(double(v), 'g', 9);
}

// JSON has no NaN: an unknown figure is null.
QJsonValue number(float v)
{
    return std::isnan(v) ? QJsonValue() : QJsonValue(text(v).toDouble());
}

} // namespace

std::optional<qint64> parseHistoryTime(const QString &text, qint64 nowMs, QString *error)
{
    const QString t = text.trimmed();
    if (t == QLatin1String("now"))
        return nowMs;
    static const QRegularExpression duration(
        QStringLiteral("^(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?$"));
    if (const auto m = duration.match(t); m.hasMatch() && !t.isEmpty()) {
        const qint64 ms
            = m.captured(1).toLongLong() * 86400000LL + m.captured(2).toLongLong() * 3600000LL
              + m.captured(3).toLongLong() * 60000LL + m.captured(4).toLongLong() * 1000LL;
        return nowMs - ms;
    }
    QDateTime at = QDateTime::fromString(t, Qt::ISODateWithMs);
    if (!at.isValid())
        at = QDateTime::fromString(t, Qt::ISODate);
    if (at.isValid())
        return at.toMSecsSinceEpoch();
    *error = QStringLiteral("\"%1\" is not a time: give an ISO time (2026-11-23T03:10:00Z, or "
                            "local 2026-11-23T03:10), \"now\", or a duration back from now "
                            "(30m, 2h, 7d, 1h30m).")
                 .arg(echoed(text));
    return std::nullopt;
}

namespace {

// history --json: the figures' samples and buckets, and the events.
void printJson(QTextStream &out, const HistoryRequest &request, const HistoryRange &range,
               const QList<qsizetype> &figures, const QList<HistoryEvent> &events)
{
    QJsonArray eventList;
    for (const HistoryEvent &e : events) {
        eventList.append(QJsonObject{{QStringLiteral("atMs"), double(e.atMs)},
                                     {QStringLiteral("kind"), e.kind},
                                     {QStringLiteral("text"), e.text}});
    }
    QJsonArray samples;
    for (qsizetype i = 0; i < range.times.size(); ++i) {
        QJsonObject s{{QStringLiteral("atMs"), double(range.times.at(i))}};
        for (qsizetype f : figures)
            s.insert(range.figures.at(f), number(range.values.at(f).at(i)));
        samples.append(s);
    }
    QJsonArray buckets;
    for (qsizetype i = 0; i < range.bucketTimes.size(); ++i) {
        QJsonObject b{{QStringLiteral("atMs"), double(range.bucketTimes.at(i))}};
        for (qsizetype f : figures) {
            const Internal::Bucket &v = range.buckets.at(f).at(i);
            b.insert(range.figures.at(f), QJsonObject{{QStringLiteral("min"), number(v.min)},
                                                      {QStringLiteral("max"), number(v.max)},
                                                      {QStringLiteral("mean"), number(v.mean)},
                                                      {QStringLiteral("last"), number(v.last)}});
        }
        buckets.append(b);
    }
    QJsonArray names;
    for (qsizetype f : figures)
        names.append(range.figures.at(f));
    const QJsonObject doc{{QStringLiteral("key"), QString::fromUtf8(request.key)},
                          {QStringLiteral("pattern"), range.pattern},
                          {QStringLiteral("figures"), names},
                          {QStringLiteral("sinceMs"), double(request.sinceMs)},
                          {QStringLiteral("untilMs"), double(request.untilMs)},
                          {QStringLiteral("buckets"), buckets},
                          {QStringLiteral("samples"), samples},
                          {QStringLiteral("events"), eventList}};
    out << QJsonDocument(doc).toJson(QJsonDocument::Indented);
}

// CSV and text: one row per time; a bucket row gives its minute's mean
// (CSV adds min, max, last columns per figure for them).
void printRows(QTextStream &out, const HistoryRequest &request, const HistoryRange &range,
               const QList<qsizetype> &figures, const QList<HistoryEvent> &events)
{
    const QString sep = request.csv ? QStringLiteral(",") : QStringLiteral("  ");
    QStringList header{QStringLiteral("time"), QStringLiteral("atMs"),
                       QStringLiteral("resolution")};
    for (qsizetype f : figures) {
        header << range.figures.at(f);
        if (request.csv && !range.bucketTimes.isEmpty())
            header << range.figures.at(f) + QStringLiteral(".min")
                   << range.figures.at(f) + QStringLiteral(".max")
                   << range.figures.at(f) + QStringLiteral(".last");
    }
    if (!request.csv) {
        out << "# " << QString::fromUtf8(request.key) << " (" << range.pattern << ") "
            << range.bucketTimes.size() << " one-minute buckets, " << range.times.size()
            << " samples\n";
        for (const HistoryEvent &e : events)
            out << "# " << isoTime(e.atMs) << ' ' << e.kind << ": " << e.text << '\n';
    }
    out << header.join(sep) << '\n';
    for (qsizetype i = 0; i < range.bucketTimes.size(); ++i) {
        QStringList row{isoTime(range.bucketTimes.at(i)), QString::number(range.bucketTimes.at(i)),
                        QStringLiteral("1m")};
        for (qsizetype f : figures) {
            const Internal::Bucket &v = range.buckets.at(f).at(i);
            row << text(v.mean);
            if (request.csv)
                row << text(v.min) << text(v.max) << text(v.last);
        }
        out << row.join(sep) << '\n';
    }
    for (qsizetype i = 0; i < range.times.size(); ++i) {
        QStringList row{isoTime(range.times.at(i)), QString::number(range.times.at(i)),
                        QStringLiteral("sample")};
        for (qsizetype f : figures) {
            row << text(range.values.at(f).at(i));
            if (request.csv && !range.bucketTimes.isEmpty())
                row << QString() << QString() << QString();
        }
        out << row.join(sep) << '\n';
    }
}

} // namespace

int runHistory(const HistoryRequest &request)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QString error;
    const auto range
        = HistoryStore::read(request.path, request.key, request.sinceMs, request.untilMs, &error);
    if (!range) {
        if (error.startsWith(QLatin1String("There is no history file"))) {
            err << "gatehouse-cli: no history for " << request.connection << ": " << error
                << " The console writes it while connected, gatehouse-cli watch --history "
                   "too; --history-dir names another directory."
                << Qt::endl;
            return ExitNothingDone;
        }
        err << "gatehouse-cli: " << error << Qt::endl;
        return ExitFailure;
    }
    QList<qsizetype> figures; // indices into range->figures
    for (qsizetype f = 0; f < range->figures.size(); ++f) {
        if (request.figure.isEmpty() || range->figures.at(f) == request.figure)
            figures << f;
    }
    if (!range->figures.isEmpty() && figures.isEmpty()) {
        err << "gatehouse-cli: " << echoed(QString::fromUtf8(request.key)) << " (" << range->pattern
            << ") has no figure \"" << echoed(request.figure) << "\"; its figures are "
            << range->figures.join(QStringLiteral(", ")) << "." << Qt::endl;
        return ExitUsage;
    }
    if (range->isEmpty()) {
        err << "gatehouse-cli: no history for " << echoed(QString::fromUtf8(request.key))
            << " from " << isoTime(request.sinceMs) << " to " << isoTime(request.untilMs) << " in "
            << request.path << " (" << request.connection
            << "): the key was not seen then, or not by a console writing history"
            << " (--since widens the range)." << Qt::endl;
        return ExitNothingDone;
    }
    // What happened to the key in the range beside its figures (alert
    // firings and resolutions), newest last; at most a screenful.
    QString eventsError;
    const QList<HistoryEvent> events
        = HistoryStore::readEvents(request.path, request.sinceMs, request.untilMs, request.key,
                                   MaxEvents, &eventsError)
              .value_or(QList<HistoryEvent>());
    if (request.json)
        printJson(out, request, *range, figures, events);
    else
        printRows(out, request, *range, figures, events);
    return ExitOk;
}

} // namespace gatehouse::cli
