// SPDX-License-Identifier: MIT
#include "snapshot.h"

#include <patterns/patternregistry.h>

#include <QJsonArray>

namespace gatehouse {

const NodeStatus &ServerStatus::primary() const
{
    static const NodeStatus s_none;
    return nodes.isEmpty() ? s_none : nodes.first();
}

QList<QPointF> ObjectHistory::points(const QString &figure, int maxPoints) const
{
    const qsizetype f = figures.indexOf(figure);
    if (f < 0 || f >= series.size())
        return {};
    const QList<QPointF> &all = series.at(f);
    const qsizetype n = all.size();
    if (maxPoints <= 1 || n <= maxPoints)
        return all;
    // Evenly spaced samples ending at the newest: step > 1.
    QList<QPointF> points;
    points.reserve(maxPoints);
    const double step = double(n - 1) / (maxPoints - 1);
    for (int i = 0; i < maxPoints; ++i)
        points.append(all.at(std::min<qsizetype>(n - 1, qRound64(i * step))));
    return points;
}

namespace {

QString connectionStateId(RedisConnection::State state)
{
    switch (state) {
    case RedisConnection::State::Disconnected:
        return QStringLiteral("disconnected");
    case RedisConnection::State::Connecting:
        return QStringLiteral("connecting");
    case RedisConnection::State::Ready:
        return QStringLiteral("ready");
    case RedisConnection::State::Reconnecting:
        return QStringLiteral("reconnecting");
    case RedisConnection::State::Failed:
        return QStringLiteral("failed");
    }
    return QString();
}

QJsonValue optionalString(const QString &s)
{
    return s.isEmpty() ? QJsonValue() : QJsonValue(s);
}

// A library object's common fields (README, "Libraries"): which library and
// layout, counts by the library's own state names, and the stuck jobs.
void writeLibraryJson(const LibraryInfo &library, const Reading &r, QJsonObject &j)
{
    j.insert(QStringLiteral("library"),
             QJsonObject{{QStringLiteral("name"), library.name},
                         {QStringLiteral("versions"), library.versions},
                         {QStringLiteral("layout"), optionalString(r.layoutVersion)},
                         {QStringLiteral("layoutKnown"), r.layoutKnown}});
    QJsonObject counts;
    for (const StateCount &c : r.counts)
        counts.insert(c.state, double(c.count));
    j.insert(QStringLiteral("counts"), counts);
    QJsonArray stuck;
    for (const StuckJob &job : r.stuckJobs) {
        stuck.append(
            QJsonObject{{QStringLiteral("job"), keyToJson(job.job)},
                        {QStringLiteral("reason"), job.reason},
                        {QStringLiteral("sinceMs"),
                         job.sinceMs < 0 ? QJsonValue() : QJsonValue(double(job.sinceMs))}});
    }
    j.insert(QStringLiteral("stuck"), stuck);
    j.insert(QStringLiteral("paused"), r.paused);
}

} // namespace

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
        if (const LibraryInfo library = unit.library(); !library.isEmpty())
            writeLibraryJson(library, r, j);
        sections[unit.section().jsonKey].append(j);
    }
    QJsonArray notes;
    for (const QString &n : server.notes)
        notes.append(n);
    QJsonArray nodes;
    const auto figure = [](qint64 v) {
        return v < 0 ? QJsonValue() : QJsonValue(double(v));
    };
    for (const NodeStatus &n : server.nodes) {
        QJsonObject node{
            {QStringLiteral("address"), n.address},
            {QStringLiteral("version"), optionalString(n.version)},
            {QStringLiteral("role"), optionalString(n.role)},
            {QStringLiteral("clockOffsetMs"), double(n.clockOffsetMs)},
            {QStringLiteral("lastReadingAgeMs"),
             n.lastReadingAgeMs < 0 ? QJsonValue() : QJsonValue(double(n.lastReadingAgeMs))},
            {QStringLiteral("connection"), connectionStateId(n.connection.state)},
            {QStringLiteral("connectionMessage"), optionalString(n.connection.message)},
            {QStringLiteral("replicationOffset"), figure(n.replicationOffset)},
            {QStringLiteral("usedMemoryBytes"), figure(n.usedMemoryBytes)},
            {QStringLiteral("connectedClients"), figure(n.connectedClients)},
            {QStringLiteral("opsPerSec"), figure(n.opsPerSec)},
            {QStringLiteral("aofEnabled"),
             n.aofEnabled < 0 ? QJsonValue() : QJsonValue(n.aofEnabled == 1)},
            {QStringLiteral("rdbLastSaveS"), figure(n.rdbLastSaveS)}};
        if (server.mode == QLatin1String("cluster")) {
            node.insert(QStringLiteral("id"), QString::fromLatin1(n.id));
            node.insert(QStringLiteral("slots"), n.slotRanges);
            node.insert(QStringLiteral("slotCount"), n.slotCount);
            node.insert(QStringLiteral("masterAddress"), optionalString(n.masterAddress));
            node.insert(QStringLiteral("state"), optionalString(n.health));
        } else {
            node.insert(QStringLiteral("state"), connectionStateId(n.connection.state));
        }
        nodes.append(node);
    }
    const NodeStatus &primary = server.primary();
    QJsonObject root{
        {QStringLiteral("server"),
         QJsonObject{
             {QStringLiteral("mode"), server.mode},
             {QStringLiteral("address"), primary.address},
             {QStringLiteral("version"), optionalString(primary.version)},
             {QStringLiteral("role"), optionalString(primary.role)},
             {QStringLiteral("connection"), connectionStateId(primary.connection.state)},
             {QStringLiteral("nodes"), nodes},
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
