// SPDX-License-Identifier: MIT
#include "worldnotice.h"

#include <patterns/presentation.h>

#include <QCoreApplication>
#include <QDateTime>

namespace gatehouse {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("WorldNotice", text);
}

} // namespace

bool WorldNotice::update(const ServerStatus &server)
{
    const ServerStatus::World &w = server.world;
    const bool whole = w.wholeAtMs >= 0;
    if (w.generation == m_generation && whole == m_whole)
        return false;
    m_generation = w.generation;
    m_whole = whole;
    m_world = w;
    m_persistence = server.nodes.isEmpty() || !server.primary().durability.known
                        ? QString()
                        : server.primary().durability.sentence(server.timeMs / 1000);
    return true;
}

QString WorldNotice::rereadingWords(const ServerStatus::World &world)
{
    if (world.restart)
        return tr("Reading again after a restart");
    if (world.kind == QLatin1String("flush"))
        return tr("Reading again after a flush");
    return tr("Reading again after a master switch");
}

std::optional<WorldNotice::Text> WorldNotice::current() const
{
    if (m_generation == 0 || m_dismissed == m_generation)
        return std::nullopt;
    const ServerStatus::World &w = m_world;
    Text t;
    if (w.restart) {
        // A time, not "4 s ago": the banner stays, and an age in it would not move on.
        t.title = w.uptimeS >= 0
                      ? tr("Server restarted at %1")
                            .arg(QDateTime::fromMSecsSinceEpoch(w.sinceMs - w.uptimeS * 1000)
                                     .toString(QStringLiteral("HH:mm:ss")))
                      : tr("Server restarted");
        if (w.keysBefore >= 0 && w.keysAfter >= 0)
            t.title += tr(": %1 keys → %2").arg(w.keysBefore).arg(w.keysAfter);
        if (w.keysBefore > 0 && w.keysAfter >= 0 && w.keysAfter < w.keysBefore / 2)
            t.title += tr(" (what it held was not persisted)");
    } else if (w.kind == QLatin1String("flush")) {
        t.title = w.keysBefore >= 0 && w.keysAfter >= 0
                      ? tr("Keyspace emptied or swapped: %1 → %2 keys")
                            .arg(w.keysBefore)
                            .arg(w.keysAfter)
                      : tr("Keyspace emptied or swapped");
    } else if (w.kind == QLatin1String("keys")) {
        t.title = tr("Keys vanished: %1 → %2").arg(w.keysBefore).arg(w.keysAfter);
    } else if (w.kind == QLatin1String("objects")) {
        t.title = tr("Objects vanished at once");
    } else {
        t.title = tr("The master changed: what was read before is no longer trusted");
    }
    t.message = w.reason;
    if (w.restart && !m_persistence.isEmpty())
        t.message += QLatin1Char(' ') + tr("Persistence now: %1.").arg(m_persistence);
    const QString when
        = QDateTime::fromMSecsSinceEpoch(w.sinceMs).toString(QStringLiteral("HH:mm:ss"));
    if (!w.reread) {
        t.advice = tr("Seen at %1. What vanished shows as gone, with when, until it is back or "
                      "you dismiss it (File > Dismiss gone objects).")
                       .arg(when);
        return t;
    }
    t.advice = m_whole ? tr("Since %1 every object was read again and the keyspace scanned again "
                            "(%2 after the change); objects that no longer exist show as gone.")
                             .arg(when, formatMs(w.wholeAtMs - w.sinceMs))
                       : tr("Since %1 every object is being read again; until it is, what was "
                            "read before is marked stale.")
                             .arg(when);
    return t;
}

} // namespace gatehouse
