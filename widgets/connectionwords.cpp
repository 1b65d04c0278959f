// SPDX-License-Identifier: MIT
#include "connectionwords.h"

#include <patterns/presentation.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>
#include <QRegularExpression>

namespace gatehouse {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("gatehouse::ConnectionWords", text);
}

} // namespace

QString ConnectionWords::withoutAttempt(const QString &message)
{
    static const QRegularExpression attempt(QStringLiteral("\\s*Next attempt in \\d+ ms\\.$"));
    QString out = message;
    out.remove(attempt);
    return out;
}

QString ConnectionWords::reconnecting(qint64 leftMs)
{
    // Whole seconds once it is that far: a figure that moves every second.
    const qint64 left = std::max<qint64>(0, leftMs);
    return tr("Reconnecting… next attempt in %1")
        .arg(left >= 1000 ? QStringLiteral("%1 s").arg((left + 999) / 1000) : formatMs(left));
}

QString ConnectionWords::offline(ConnectionState state, const ServerStatus &server)
{
    return offline(state, server.timeMs > 0 ? server.timeMs - server.clockOffsetMs : -1);
}

QString ConnectionWords::offline(ConnectionState state, qint64 lastMs)
{
    QString text;
    switch (state) {
    case ConnectionState::Disconnected:
        text = tr("Disconnected.");
        break;
    case ConnectionState::Reconnecting:
        text = tr("Connection lost: reconnecting.");
        break;
    case ConnectionState::Failed:
        text = tr("Not connected.");
        break;
    case ConnectionState::Connecting:
    case ConnectionState::Ready:
        text = tr("Connecting.");
        break;
    }
    if (lastMs > 0) {
        text.chop(1); // the full stop: the time follows
        text += tr(": showing data from %1.")
                    .arg(QDateTime::fromMSecsSinceEpoch(lastMs).toString(
                        QStringLiteral("HH:mm:ss")));
    }
    return text;
}

QString ConnectionWords::scanning(qint64 scanned, qint64 total)
{
    const QLocale c(QLocale::English); // "12,000" as the rest of the console writes counts
    return tr("Scanning %1 of ~%2 keys").arg(c.toString(scanned), c.toString(total));
}

QString ConnectionWords::events(const ServerStatus &server, bool offline)
{
    const bool budget = !server.eventsLive && server.budgetPercent > 0;
    return offline             ? tr("not live")
           : server.paused     ? tr("refresh paused")
           : server.eventsLive ? tr("events live")
           : budget            ? tr("polling, idle read within %1").arg(formatMs(server.ageBoundMs))
                               : tr("polling");
}

QString ConnectionWords::eventsToolTip(const ServerStatus &server)
{
    QStringList tip = server.notes;
    if (server.paused)
        tip << tr("Nothing is read until File > Pause refresh is turned off again; the "
                  "readings shown get older meanwhile.");
    else if (!server.eventsLive && server.budgetPercent > 0)
        tip << tr("Without keyspace events the console reads changing, selected and "
                  "attention-worthy objects every %1 and the others in turn, within %2 % "
                  "of one server core (last tick: %3 objects, %4 %); an idle object's "
                  "reading is at most %5 old.")
                   .arg(formatMs(server.intervalMs))
                   .arg(server.budgetPercent)
                   .arg(server.objectsRead)
                   .arg(server.sharePercent < 0 ? QStringLiteral("?")
                                                : QString::number(server.sharePercent, 'f', 1))
                   .arg(formatMs(server.ageBoundMs));
    return tip.join(QLatin1Char('\n'));
}

} // namespace gatehouse
