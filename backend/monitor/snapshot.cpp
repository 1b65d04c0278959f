// SPDX-License-Identifier: MIT
#include "snapshot.h"

#include <patterns/patternregistry.h>

#include <QJsonArray>

namespace gatehouse {

QJsonObject Snapshot::toJson() const
{
    const PatternRegistry &registry = PatternRegistry::instance();
    QHash<QString, QJsonArray> sections;
    for (const ObjectState &s : objects) {
        const PatternUnit &unit = PatternUnit::of(s.object.kind);
        // Every figure as of the snapshot's time: readings not re-read by
        // the last tick are projected (TTLs down, ages up).
        const Reading r = s.reading.at(server.timeMs);
        QJsonObject j{{QStringLiteral("key"), keyToJson(s.object.key)},
                      {QStringLiteral("pattern"), patternId(s.object.kind)},
                      {QStringLiteral("status"), readingStatusId(s.reading.status)},
                      {QStringLiteral("gone"), s.gone},
                      {QStringLiteral("source"), s.object.source},
                      {QStringLiteral("stale"), s.stale}};
        if (s.stale)
            j.insert(QStringLiteral("staleSinceMs"), double(s.staleSinceMs));
        if (!s.reading.message.isEmpty())
            j.insert(QStringLiteral("message"), s.reading.message);
        unit.writeJson(s, r, server.timeMs, j);
        sections[unit.section().jsonKey].append(j);
    }
    QJsonArray notes;
    for (const QString &n : server.notes)
        notes.append(n);
    QJsonObject root{
        {QStringLiteral("server"),
         QJsonObject{
             {QStringLiteral("address"), server.address},
             {QStringLiteral("version"),
              server.version.isEmpty() ? QJsonValue() : QJsonValue(server.version)},
             {QStringLiteral("role"),
              server.role.isEmpty() ? QJsonValue() : QJsonValue(server.role)},
             {QStringLiteral("timeMs"), double(server.timeMs)},
             {QStringLiteral("clockOffsetMs"), double(server.clockOffsetMs)},
             {QStringLiteral("events"),
              server.eventsLive ? QStringLiteral("live") : QStringLiteral("polling")},
             {QStringLiteral("intervalMs"), double(server.intervalMs)},
             {QStringLiteral("lastReadingAgeMs"),
              server.lastReadingAgeMs < 0 ? QJsonValue()
                                          : QJsonValue(double(server.lastReadingAgeMs))},
             {QStringLiteral("notes"), notes},
             {QStringLiteral("complete"), server.complete},
             {QStringLiteral("permissions"), QJsonArray::fromStringList(server.permissions)}}},
        {QStringLiteral("profile"), profile},
        {QStringLiteral("sequence"), double(sequence)},
    };
    // Every section's array, empty ones too: a script can rely on them.
    for (const Section &section : registry.sections())
        root.insert(section.jsonKey, sections.value(section.jsonKey));
    return root;
}

} // namespace gatehouse
