// SPDX-License-Identifier: MIT
#include "snapshot.h"

#include <patterns/objecthealth.h>
#include <patterns/patternregistry.h>
#include <redis/hashslot.h>

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace gatehouse {

const NodeStatus &ServerStatus::primary() const
{
    static const NodeStatus s_none;
    return nodes.isEmpty() ? s_none : nodes.first();
}

int ServerStatus::nodeOfKey(const QByteArray &key) const
{
    if (mode == QLatin1String("cluster")) {
        const int slot = keyHashSlot(key);
        for (int i = 0; i < nodes.size(); ++i) {
            const NodeStatus &n = nodes.at(i);
            if (n.role != QLatin1String("master"))
                continue;
            for (const SlotRange &r : n.ownedSlots) {
                if (slot >= r.first && slot <= r.last)
                    return i;
            }
        }
        return -1;
    }
    for (int i = 0; i < nodes.size(); ++i) {
        if (nodes.at(i).role == QLatin1String("master"))
            return i;
    }
    return nodes.isEmpty() ? -1 : 0;
}

QString ServerStatus::heldBy(const QByteArray &key) const
{
    if (mode == QLatin1String("standalone"))
        return QString();
    const int i = nodeOfKey(key);
    if (i < 0)
        return mode == QLatin1String("cluster")
                   ? QStringLiteral("slot %1 is held by no known master").arg(keyHashSlot(key))
                   : QString();
    const NodeStatus &n = nodes.at(i);
    QString text = mode == QLatin1String("cluster")
                       ? QStringLiteral("held by %1 (master, slots %2, key slot %3)")
                             .arg(n.address, n.slotRanges)
                             .arg(keyHashSlot(key))
                       : QStringLiteral("held by %1 (master)").arg(n.address);
    if (!n.readsFrom.isEmpty())
        text += QStringLiteral(", read from replica %1").arg(n.readsFrom);
    return text;
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

QString connectionStateId(ConnectionState state)
{
    switch (state) {
    case ConnectionState::Disconnected:
        return QStringLiteral("disconnected");
    case ConnectionState::Connecting:
        return QStringLiteral("connecting");
    case ConnectionState::Ready:
        return QStringLiteral("ready");
    case ConnectionState::Reconnecting:
        return QStringLiteral("reconnecting");
    case ConnectionState::Failed:
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
                         {QStringLiteral("layout"), optionalString(r.library().layoutVersion)},
                         {QStringLiteral("layoutKnown"), r.library().layoutKnown}});
    QJsonObject counts;
    for (const StateCount &c : r.library().counts)
        counts.insert(c.state, double(c.count));
    j.insert(QStringLiteral("counts"), counts);
    QJsonArray stuck;
    for (const StuckJob &job : r.library().stuckJobs) {
        stuck.append(
            QJsonObject{{QStringLiteral("job"), keyToJson(job.job)},
                        {QStringLiteral("reason"), job.reason},
                        {QStringLiteral("sinceMs"),
                         job.sinceMs < 0 ? QJsonValue() : QJsonValue(double(job.sinceMs))}});
    }
    j.insert(QStringLiteral("stuck"), stuck);
    j.insert(QStringLiteral("paused"), r.library().paused);
}

QJsonArray evidenceJson(const PatternObject &o)
{
    QJsonArray out;
    if (o.source != QLatin1String("autodetected") && !o.source.isEmpty())
        out.append(QJsonObject{
            {QStringLiteral("kind"), QStringLiteral("profile")},
            {QStringLiteral("weight"), 0},
            {QStringLiteral("reason"), QStringLiteral("the profile says so (%1)").arg(o.source)}});
    for (const Evidence &e : o.evidence)
        out.append(QJsonObject{{QStringLiteral("kind"), evidenceKindId(e.kind)},
                               {QStringLiteral("weight"), e.weight},
                               {QStringLiteral("reason"), e.reason}});
    return out;
}

QJsonArray keysJson(const QList<QByteArray> &keys)
{
    QJsonArray out;
    for (const QByteArray &k : keys)
        out.append(keyToJson(k));
    return out;
}

QJsonValue msOrNull(qint64 v)
{
    return v < 0 ? QJsonValue() : QJsonValue(double(v));
}

// How the monitor refreshes: "events" (keyspace events drive it), "budget"
// (polling within a share of the server's time) or "every-tick".
QJsonObject refreshJson(const ServerStatus &server)
{
    if (server.eventsLive)
        return {{QStringLiteral("mode"), QStringLiteral("events")}};
    if (server.budgetPercent <= 0)
        return {{QStringLiteral("mode"), QStringLiteral("every-tick")},
                {QStringLiteral("objectsRead"), server.objectsRead}};
    return {{QStringLiteral("mode"), QStringLiteral("budget")},
            {QStringLiteral("budgetPercent"), server.budgetPercent},
            {QStringLiteral("sharePercent"),
             server.sharePercent < 0 ? QJsonValue() : QJsonValue(server.sharePercent)},
            {QStringLiteral("objectsRead"), server.objectsRead},
            {QStringLiteral("ageBoundMs"), msOrNull(server.ageBoundMs)}};
}

// The world the readings belong to (ServerStatus::World); null before any
// master switch or restart.
QJsonValue worldJson(const ServerStatus::World &w)
{
    if (w.generation == 0)
        return QJsonValue();
    return QJsonObject{{QStringLiteral("generation"), w.generation},
                       {QStringLiteral("kind"), w.kind},
                       {QStringLiteral("reason"), w.reason},
                       {QStringLiteral("restart"), w.restart},
                       {QStringLiteral("reread"), w.reread},
                       {QStringLiteral("sinceMs"), msOrNull(w.sinceMs)},
                       {QStringLiteral("whole"), w.wholeAtMs >= 0},
                       {QStringLiteral("wholeAtMs"), msOrNull(w.wholeAtMs)},
                       {QStringLiteral("keysBefore"), msOrNull(w.keysBefore)},
                       {QStringLiteral("keysAfter"), msOrNull(w.keysAfter)},
                       {QStringLiteral("uptimeS"), msOrNull(w.uptimeS)}};
}

} // namespace

QJsonObject Snapshot::objectJson(const ObjectState &s) const
{
    const PatternUnit &unit = PatternUnit::of(s.object->kind);
    // Every figure as of the snapshot's time: readings not re-read by
    // the last tick are projected (TTLs down, ages up).
    const Reading r = s.reading.at(server.timeMs);
    QJsonObject j{{QStringLiteral("key"), keyToJson(s.object->key)},
                  {QStringLiteral("pattern"), patternId(s.object->kind)},
                  {QStringLiteral("status"), readingStatusId(s.reading.status)},
                  {QStringLiteral("gone"), s.gone},
                  {QStringLiteral("source"), s.object->source},
                  {QStringLiteral("stale"), s.stale}};
    if (s.stale)
        j.insert(QStringLiteral("staleSinceMs"), double(s.staleSinceMs));
    if (s.gone && s.goneSinceMs > 0)
        j.insert(QStringLiteral("goneSinceMs"), double(s.goneSinceMs));
    // Budgeted polling leaves idle objects unread for a while: how old this
    // reading is (at most server.refresh.ageBoundMs), when older than a tick.
    if (server.budgetPercent > 0 && s.reading.atMs > 0
        && server.timeMs - s.reading.atMs > server.intervalMs * 3 / 2)
        j.insert(QStringLiteral("ageMs"), double(server.timeMs - s.reading.atMs));
    // The state in words, as the console's Status column shows it.
    const ObjectHealth health = objectHealth(s, server.timeMs);
    j.insert(QStringLiteral("state"),
             QJsonObject{{QStringLiteral("id"), health.id},
                         {QStringLiteral("words"), health.words},
                         {QStringLiteral("severity"), severityId(health.severity)}});
    if (!s.reading.message.isEmpty())
        j.insert(QStringLiteral("message"), s.reading.message);
    // Which node holds it (Cluster: by its key's slot; Sentinel: the master).
    if (server.mode != QLatin1String("standalone")) {
        QJsonObject node;
        if (const int i = server.nodeOfKey(s.object->key); i >= 0) {
            const NodeStatus &n = server.nodes.at(i);
            node = {{QStringLiteral("address"), n.address}, {QStringLiteral("role"), n.role}};
            if (!n.readsFrom.isEmpty())
                node.insert(QStringLiteral("readFrom"), n.readsFrom);
        }
        if (server.mode == QLatin1String("cluster"))
            node.insert(QStringLiteral("slot"), keyHashSlot(s.object->key));
        j.insert(QStringLiteral("node"), node);
    }
    unit.writeJson(s, r, server.timeMs, j);
    if (const LibraryInfo library = unit.library(); !library.isEmpty())
        writeLibraryJson(library, r, j);
    j.insert(QStringLiteral("evidence"), evidenceJson(s.object));
    if (!s.object->evidence.isEmpty())
        j.insert(QStringLiteral("score"), evidenceScore(s.object->evidence));
    return j;
}

QJsonObject Snapshot::candidateJson(const Candidate &c)
{
    return QJsonObject{{QStringLiteral("pattern"), patternId(c.kind)},
                       {QStringLiteral("family"), keyToJson(c.family)},
                       {QStringLiteral("glob"), keyToJson(familyGlob(c.family))},
                       {QStringLiteral("count"), double(c.count)},
                       {QStringLiteral("keyCount"), double(c.keys)},
                       {QStringLiteral("score"), c.score},
                       {QStringLiteral("threshold"), AutoDetector::Threshold},
                       {QStringLiteral("keys"), keysJson(c.sampleKeys)},
                       {QStringLiteral("evidence"), evidenceJson(c.example)}};
}

QJsonObject Snapshot::otherJson(const OtherFamily &o)
{
    return QJsonObject{{QStringLiteral("family"), keyToJson(o.family)},
                       {QStringLiteral("glob"), keyToJson(familyGlob(o.family))},
                       {QStringLiteral("kind"), o.kind},
                       {QStringLiteral("reason"), o.reason},
                       {QStringLiteral("type"), QString::fromLatin1(o.type)},
                       {QStringLiteral("keys"), double(o.keys)},
                       {QStringLiteral("withTtl"), double(o.withTtl)},
                       {QStringLiteral("keysRead"), double(o.keysRead)},
                       {QStringLiteral("minTtlMs"), msOrNull(o.minTtlMs)},
                       {QStringLiteral("maxTtlMs"), msOrNull(o.maxTtlMs)},
                       {QStringLiteral("sampledKeys"), double(o.sampledKeys)},
                       {QStringLiteral("estimatedBytes"), msOrNull(o.estimatedBytes)},
                       {QStringLiteral("sampleKeys"), keysJson(o.sampleKeys)}};
}

QJsonObject Snapshot::headerJson() const
{
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
            {QStringLiteral("serverName"), optionalString(n.serverName)},
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
        }
        if (server.mode != QLatin1String("standalone")) {
            node.insert(QStringLiteral("masterAddress"), optionalString(n.masterAddress));
            node.insert(QStringLiteral("state"), optionalString(n.health));
            // A replica's lag behind its master, in replication bytes.
            qint64 lag = -1;
            for (const NodeStatus &m : server.nodes) {
                if (!n.masterAddress.isEmpty() && m.address == n.masterAddress
                    && m.replicationOffset >= 0 && n.replicationOffset >= 0)
                    lag = std::max<qint64>(0, m.replicationOffset - n.replicationOffset);
            }
            node.insert(QStringLiteral("replicationLagBytes"), figure(lag));
            if (!n.readsFrom.isEmpty())
                node.insert(QStringLiteral("readsFrom"), n.readsFrom);
            if (!n.readsNote.isEmpty())
                node.insert(QStringLiteral("readsNote"), n.readsNote);
        } else {
            node.insert(QStringLiteral("state"), connectionStateId(n.connection.state));
        }
        // Masters: what a crash or a failover would lose now.
        if (n.durability.known || !n.durability.error.isEmpty())
            node.insert(QStringLiteral("durability"), n.durability.toJson(server.timeMs / 1000));
        nodes.append(node);
    }
    const NodeStatus &primary = server.primary();
    return QJsonObject{
        {QStringLiteral("schemaVersion"), SchemaVersion},
        {QStringLiteral("server"),
         QJsonObject{
             {QStringLiteral("mode"), server.mode},
             {QStringLiteral("readFrom"), server.readFrom},
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
             {QStringLiteral("refresh"), refreshJson(server)},
             {QStringLiteral("world"), worldJson(server.world)},
             {QStringLiteral("notes"), notes},
             {QStringLiteral("complete"), server.complete},
             {QStringLiteral("permissions"), QJsonArray::fromStringList(server.permissions)}}},
        {QStringLiteral("profile"), profile},
        {QStringLiteral("sequence"), double(sequence)},
    };
}

QJsonObject Snapshot::toJson() const
{
    const PatternRegistry &registry = PatternRegistry::instance();
    QHash<QString, QJsonArray> sections;
    for (const ObjectState &s : objects)
        sections[PatternUnit::of(s.object->kind).section().jsonKey].append(objectJson(s));
    QJsonObject root = headerJson();
    // Every section's array, empty ones too: a script can rely on them.
    for (const Section &section : registry.sections())
        root.insert(section.jsonKey, sections.value(section.jsonKey));
    QJsonArray candidateArray;
    for (const Candidate &c : candidates ? *candidates : QList<Candidate>())
        candidateArray.append(candidateJson(c));
    root.insert(QStringLiteral("candidates"), candidateArray);
    QJsonArray otherArray;
    for (const OtherFamily &o : other ? *other : QList<OtherFamily>())
        otherArray.append(otherJson(o));
    root.insert(QStringLiteral("other"), otherArray);
    return root;
}

bool Snapshot::writeJson(QIODevice *out, qsizetype limit) const
{
    // One piece at a time (an object, a family): the document is never whole
    // in memory; each element is a line of its own.
    bool ok = true;
    const auto write = [&](const QByteArray &bytes) {
        ok = ok && out->write(bytes) == bytes.size();
    };
    const auto compact = [](const QJsonObject &o) {
        return QJsonDocument(o).toJson(QJsonDocument::Compact);
    };
    const auto limited = [limit](qsizetype n) {
        return limit < 0 ? n : std::min(n, limit);
    };
    QByteArray header = compact(headerJson());
    header.chop(1); // the closing brace: sections follow
    write(header);
    QJsonObject totals;
    const PatternRegistry &registry = PatternRegistry::instance();
    for (const Section &section : registry.sections()) {
        write(",\n\"" + section.jsonKey.toUtf8() + "\":[");
        qsizetype n = 0;
        for (const ObjectState &s : objects) {
            if (PatternUnit::of(s.object->kind).section().jsonKey != section.jsonKey)
                continue;
            if (limit < 0 || n < limit)
                write((n == 0 ? "\n" : ",\n") + compact(objectJson(s)));
            ++n;
        }
        write("]");
        totals.insert(section.jsonKey, double(n));
    }
    const QList<Candidate> &cs = candidates ? *candidates : QList<Candidate>();
    write(",\n\"candidates\":[");
    for (qsizetype i = 0; i < limited(cs.size()); ++i)
        write((i == 0 ? "\n" : ",\n") + compact(candidateJson(cs.at(i))));
    write("]");
    totals.insert(QStringLiteral("candidates"), double(cs.size()));
    const QList<OtherFamily> &os = other ? *other : QList<OtherFamily>();
    write(",\n\"other\":[");
    qint64 otherKeys = 0;
    for (const OtherFamily &o : os)
        otherKeys += o.keys;
    for (qsizetype i = 0; i < limited(os.size()); ++i)
        write((i == 0 ? "\n" : ",\n") + compact(otherJson(os.at(i))));
    write("]");
    totals.insert(QStringLiteral("other"), double(os.size()));
    totals.insert(QStringLiteral("otherKeys"), double(otherKeys));
    write(",\n\"limit\":" + (limit < 0 ? QByteArray("null") : QByteArray::number(limit)));
    write(",\n\"totals\":" + compact(totals) + "}\n");
    return ok;
}

} // namespace gatehouse
