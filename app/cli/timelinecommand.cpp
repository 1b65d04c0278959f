// SPDX-License-Identifier: MIT
#include "timelinecommand.h"

#include "exitcodes.h"

#include <history/historystore.h>
#include <monitor/connectiontimeline.h>

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace gatehouse::cli {

namespace {

// Events of every kind are read (the file keeps alert and lock events
// beside them), at most this many, and the timeline's kept.
constexpr int MaxEventsRead = 100000;

} // namespace

int runTimeline(const HistoryRequest &request)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QString error;
    const std::optional<QList<HistoryEvent>> events = HistoryStore::readEvents(
        request.path, request.sinceMs, request.untilMs, QByteArray(), MaxEventsRead, &error);
    if (!events) {
        err << "gatehouse-cli: " << error;
        if (error.startsWith(QLatin1String("There is no history file"))) {
            err << " The console writes it while connected, gatehouse-cli watch --history too; "
                   "--history-dir names another directory."
                << Qt::endl;
            return ExitNothingDone;
        }
        err << Qt::endl;
        return ExitFailure;
    }
    QList<ConnectionTimeline::Entry> entries;
    for (const HistoryEvent &e : *events) {
        if (const auto entry = ConnectionTimeline::Entry::fromHistory(e.atMs, e.kind, e.text))
            entries.append(*entry);
    }
    if (request.json) {
        QJsonArray list;
        for (const ConnectionTimeline::Entry &e : std::as_const(entries))
            list.append(e.toJson());
        out << QJsonDocument(QJsonObject{{QStringLiteral("connection"), request.connection},
                                         {QStringLiteral("sinceMs"), double(request.sinceMs)},
                                         {QStringLiteral("untilMs"), double(request.untilMs)},
                                         {QStringLiteral("timeline"), list}})
                   .toJson(QJsonDocument::Indented);
        return entries.isEmpty() ? ExitNothingDone : ExitOk;
    }
    if (entries.isEmpty()) {
        err << "gatehouse-cli: nothing happened to the connection " << request.connection
            << " from "
            << QDateTime::fromMSecsSinceEpoch(request.sinceMs, Qt::UTC).toString(Qt::ISODate)
            << " to "
            << QDateTime::fromMSecsSinceEpoch(request.untilMs, Qt::UTC).toString(Qt::ISODate)
            << " that " << request.path << " recorded (--since widens the range)." << Qt::endl;
        return ExitNothingDone;
    }
    for (const ConnectionTimeline::Entry &e : std::as_const(entries))
        out << QDateTime::fromMSecsSinceEpoch(e.atMs, Qt::UTC).toString(Qt::ISODateWithMs) << "  "
            << ConnectionTimeline::Entry::title(e.event) << ": " << e.text << '\n';
    return ExitOk;
}

} // namespace gatehouse::cli
