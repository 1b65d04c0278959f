// SPDX-License-Identifier: MIT
#include "snapshot.h"

#include <QJsonArray>

namespace gatehouse {

namespace {

QJsonValue optionalNumber(const std::optional<qint64> &v)
{
    return v ? QJsonValue(double(*v)) : QJsonValue();
}

QJsonArray keysJson(const PatternObject &o)
{
    QJsonArray keys;
    for (const QByteArray &k : o.keys())
        keys.append(keyToJson(k));
    return keys;
}

QJsonObject common(const ObjectState &s)
{
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
    return j;
}

} // namespace

QJsonObject Snapshot::toJson() const
{
    QJsonArray limiters, locks, tokens, queues;
    for (const ObjectState &s : objects) {
        // Every figure as of the snapshot's time: readings not re-read by
        // the last tick are projected (TTLs down, ages up).
        const Reading r = s.reading.at(server.timeMs);
        QJsonObject j = common(s);
        const QString section = patternSection(s.object.kind);
        if (section == QLatin1String("limiter")) {
            j.insert(QStringLiteral("keys"), keysJson(s.object));
            if (!s.object.parent.isEmpty())
                j.insert(QStringLiteral("parent"), keyToJson(s.object.parent));
            j.insert(QStringLiteral("inWindow"), double(r.inWindow));
            j.insert(QStringLiteral("limit"), optionalNumber(r.limit));
            const auto occupancy = r.occupancy();
            j.insert(QStringLiteral("occupancy"),
                     occupancy ? QJsonValue(*occupancy) : QJsonValue());
            j.insert(QStringLiteral("windowMs"), double(r.windowMs));
            j.insert(QStringLiteral("retryHorizonMs"), double(r.retryHorizonMs));
            j.insert(QStringLiteral("retrySlots"), double(r.retrySlots));
            j.insert(QStringLiteral("oldestAgeMs"), double(r.oldestAgeMs));
            if (s.object.kind == PatternKind::FixedWindow)
                j.insert(QStringLiteral("resetMs"), double(r.resetMs));
            limiters.append(j);
        } else if (section == QLatin1String("lock")) {
            j.insert(QStringLiteral("token"), keyToJson(r.token));
            j.insert(QStringLiteral("pttlMs"), double(r.pttlMs));
            j.insert(QStringLiteral("heldForMs"),
                     s.heldSinceMs >= 0 ? QJsonValue(double(server.timeMs - s.heldSinceMs))
                                        : QJsonValue());
            if (s.object.kind == PatternKind::LegacyLock)
                j.insert(QStringLiteral("expiresAtMs"), double(r.expiresAtMs));
            locks.append(j);
        } else if (section == QLatin1String("token")) {
            j.insert(QStringLiteral("count"), double(r.count));
            j.insert(QStringLiteral("withoutTtl"), double(r.withoutTtl));
            j.insert(QStringLiteral("minTtlMs"), double(r.minTtlMs));
            j.insert(QStringLiteral("maxTtlMs"), double(r.maxTtlMs));
            j.insert(QStringLiteral("counted"), s.object.countedTokens);
            if (s.object.countedTokens)
                j.insert(QStringLiteral("used"), double(r.used));
            tokens.append(j);
        } else {
            j.insert(QStringLiteral("keys"), keysJson(s.object));
            j.insert(QStringLiteral("length"), double(r.length));
            j.insert(QStringLiteral("inFlight"), double(r.inFlight));
            j.insert(QStringLiteral("deadLength"), double(r.deadLength));
            j.insert(QStringLiteral("stuckCount"), double(r.stuck));
            j.insert(QStringLiteral("stuckIsLowerBound"), r.stuckIsLowerBound);
            j.insert(QStringLiteral("oldestInFlightAgeMs"), double(r.oldestInFlightAgeMs));
            j.insert(QStringLiteral("truncated"), r.truncated);
            j.insert(QStringLiteral("throughputPerS"),
                     s.throughputPerS < 0 ? QJsonValue() : QJsonValue(s.throughputPerS));
            QJsonArray stuck;
            for (const InFlightItem &item : r.items) {
                if (item.ageMs < s.object.params.stuckAfterMs)
                    continue;
                stuck.append(QJsonObject{{QStringLiteral("job"), keyToJson(item.job)},
                                         {QStringLiteral("ageMs"), double(item.ageMs)},
                                         {QStringLiteral("ageSource"), ageSourceId(item.source)}});
            }
            j.insert(QStringLiteral("stuck"), stuck);
            queues.append(j);
        }
    }
    QJsonArray notes;
    for (const QString &n : server.notes)
        notes.append(n);
    return QJsonObject{
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
        {QStringLiteral("limiters"), limiters},
        {QStringLiteral("locks"), locks},
        {QStringLiteral("tokens"), tokens},
        {QStringLiteral("queues"), queues},
    };
}

} // namespace gatehouse
