// SPDX-License-Identifier: MIT
// The history file's writing side (HistoryWriter, on the store's thread):
// ticks queued and committed every interval, each tick's changed motions
// (format 2, historychanges.h), and the objects' ids. Opening the file is in
// historywriteropen.cpp, its upkeep (folding, downsampling, the size cap) in
// historywritermaintenance.cpp.
#include "historywriter.h"

#include "historychanges.h"
#include "historytime.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>

#include <patterns/patternunit.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace gatehouse::Internal {

HistoryWriter::HistoryWriter(QString path, HistoryStore::Options options,
                             std::atomic<bool> *needFull)
    : m_path(std::move(path))
    , m_options(options)
    , m_connection(QStringLiteral("gatehouse-history-") + QUuid::createUuid().toString())
    , m_needFull(needFull)
{}

HistoryWriter::~HistoryWriter()
{
    close();
}

bool HistoryWriter::exec(const QString &sql)
{
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    if (q.exec(sql))
        return true;
    fail(sql, q.lastError().text());
    return false;
}

void HistoryWriter::fail(const QString &what, const QString &error)
{
    Q_EMIT problem(QStringLiteral("Writing the history file %1 failed (%2: %3); the charts keep "
                                  "working from memory.")
                       .arg(m_path, what.left(60), error));
}

void HistoryWriter::enqueue(HistoryTick tick)
{
    if (!m_ok) {
        m_tickBeforeOpen = true;
        return;
    }
    m_pending.append(std::move(tick));
    while (m_pending.size() > m_options.maxPendingTicks) {
        m_pending.removeFirst();
        ++m_dropped;
        requestFull(); // what the dropped tick changed is not known now
    }
}

void HistoryWriter::enqueueEvent(HistoryEvent event)
{
    if (m_ok)
        m_events.append(std::move(event));
}

void HistoryWriter::flushAll()
{
    writePending();
    if (m_ok && m_oldestRecentMinute >= 0
        && m_oldestRecentMinute < floorDiv(m_latestMs, MinuteMs)) {
        fold(floorDiv(m_latestMs, MinuteMs) * MinuteMs);
        maintain();
    }
}

void HistoryWriter::close()
{
    if (!m_ok)
        return;
    writePending(); // the current minute stays in `recent`: a restart adds to it
    exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
    m_ok = false;
    m_insertRecent.reset(); // before its connection closes
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

quint32 HistoryWriter::idFor(const QByteArray &key, PatternKind kind, int figures)
{
    const auto found = m_ids.constFind({key, kind});
    if (found != m_ids.cend())
        return *found;
    // The registered unit's id outlives the cache (PatternKind's contract).
    const PatternKind registered = PatternUnit::of(kind).kind();
    const quint32 id = m_nextId++;
    m_ids.insert({key, registered}, id);
    m_newObjects.push_back({id, key, registered, figures});
    return id;
}

quint32 HistoryWriter::idOf(const HistoryTick::Entry &e)
{
    // A snapshot has its objects in the same places tick after tick, and an
    // object's key is the same shared bytes in every state of it.
    constexpr qint32 MaxPlaces = 1 << 24;
    if (e.at < 0 || e.at >= MaxPlaces)
        return idFor(e.key, e.kind, e.figures);
    const size_t at = size_t(e.at);
    if (at < m_placed.size()) {
        const Placed &p = m_placed[at];
        if (p.id != 0 && p.key.constData() == e.key.constData() && p.key.size() == e.key.size()
            && p.kind == e.kind)
            return p.id;
    }
    const quint32 id = idFor(e.key, e.kind, e.figures);
    if (at >= m_placed.size())
        m_placed.resize(at + 1);
    m_placed[at] = {e.key, e.kind, id};
    return id;
}

bool HistoryWriter::insertNewObjects()
{
    // A new file meets every object at once (21,000 in a discovery): 500
    // rows a statement, as literals (no value bound through Qt SQL per row),
    // in key order (the index on (key, pattern) takes them in its order), the
    // ids given by idFor().
    constexpr qsizetype RowsPerStatement = 500;
    std::vector<qsizetype> order;
    order.reserve(m_newObjects.size() - m_newWritten);
    for (size_t i = m_newWritten; i < m_newObjects.size(); ++i)
        order.push_back(qsizetype(i));
    std::sort(order.begin(), order.end(), [this](qsizetype a, qsizetype b) {
        return m_newObjects[size_t(a)].key < m_newObjects[size_t(b)].key;
    });
    const auto quoted = [](QString text) -> QString {
        return QLatin1Char('\'') + text.replace(QLatin1Char('\''), QStringLiteral("''"))
               + QLatin1Char('\'');
    };
    QHash<std::pair<PatternKind, int>, QString> texts; // (pattern, figures) -> 'id','f1,f2'
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    for (qsizetype from = 0; from < qsizetype(order.size()); from += RowsPerStatement) {
        const qsizetype to = std::min(qsizetype(order.size()), from + RowsPerStatement);
        QString sql = QStringLiteral("INSERT INTO objects (id, key, pattern, figures) VALUES ");
        sql.reserve(sql.size() + (to - from) * 96);
        for (qsizetype i = from; i < to; ++i) {
            const NewObject &o = m_newObjects[size_t(order[size_t(i)])];
            QString &text = texts[{o.kind, o.figures}];
            if (text.isEmpty())
                text = quoted(o.kind.id()) + QLatin1Char(',')
                       + quoted(declaredFigures(o.kind).mid(0, o.figures).join(QLatin1Char(',')));
            if (i > from)
                sql += QLatin1Char(',');
            sql += QLatin1Char('(') + QString::number(o.id) + QStringLiteral(",X'")
                   + QLatin1String(o.key.toHex()) + QStringLiteral("',") + text + QLatin1Char(')');
        }
        if (!q.exec(sql)) {
            fail(QStringLiteral("INSERT INTO objects"), q.lastError().text());
            forgetNewObjects(m_newWritten); // those not written: new ids at their next tick
            return false;
        }
    }
    m_newWritten = m_newObjects.size();
    return true;
}

void HistoryWriter::forgetNewObjects(size_t from)
{
    if (from < m_newObjects.size())
        m_placed.clear(); // some ids found there are no more
    for (size_t i = from; i < m_newObjects.size(); ++i) {
        const NewObject &o = m_newObjects[i];
        m_ids.remove({o.key, o.kind});
        if (o.id < m_series.size())
            m_series[o.id] = Series();
    }
    m_newObjects.resize(from);
    m_newWritten = std::min(m_newWritten, from);
}

void HistoryWriter::committed(bool ok)
{
    if (!ok)
        forgetNewObjects(0); // rolled back: the next full tick registers them again
    m_newObjects.clear();
    m_newWritten = 0;
}

const QStringList &HistoryWriter::declaredFigures(PatternKind kind)
{
    auto declared = m_declared.find(kind);
    if (declared == m_declared.end()) {
        QStringList figures;
        for (const Figure &f : PatternUnit::of(kind).figures())
            figures << f.id;
        declared = m_declared.insert(kind, figures);
    }
    return *declared;
}

void HistoryWriter::registerObjects(const QList<std::pair<QByteArray, PatternKind>> &objects)
{
    if (!m_ok)
        return; // not open: their first tick gives them ids
    // Ids now; the rows go with the next commit (writePending), so a
    // discovery's batches make a few transactions, not one each.
    for (const auto &[key, kind] : objects)
        idFor(key, kind, int(std::min<qsizetype>(HistoryFigures, declaredFigures(kind).size())));
}

quint16 HistoryWriter::durationsOf(PatternKind kind)
{
    // Entries come in runs of one kind: hash a kind only when it changes.
    if (m_durationsKind == kind)
        return m_durations;
    auto it = m_durationMasks.constFind(kind);
    if (it == m_durationMasks.cend()) {
        quint16 mask = 0;
        const QList<Figure> figures = PatternUnit::of(kind).figures();
        for (qsizetype f = 0; f < figures.size() && f < HistoryFigures; ++f)
            mask |= figures.at(f).isDuration ? quint16(1u << f) : quint16(0);
        it = m_durationMasks.insert(kind, mask);
    }
    m_durationsKind = kind;
    m_durations = *it;
    return m_durations;
}

void HistoryWriter::requestFull()
{
    m_awaitFull = true;
    if (m_needFull)
        m_needFull->store(true);
}

bool HistoryWriter::writeTick(const HistoryTick &tick)
{
    const qint64 t = tick.atMs;
    if (t <= m_lastTickMs) {
        // The server's clock went back, or a tick came twice: the motions
        // are written in time order, so this one is left out and the next
        // lists every object again.
        requestFull();
        return true;
    }
    if (m_awaitFull && !tick.full)
        return true; // changes to a state this writer lost; a full tick is asked for
    // A full tick in the file: every present object has a record (the
    // first tick after opening or after a lost one, and the first of each
    // hour, so a reader needs at most the hour before its range).
    const qint64 hour = floorDiv(t, HourMs);
    const bool fullRecord = m_awaitFull || hour != m_tickHour;
    ++m_tickNumber;
    // A partial tick's records go into its `recent` row (folded into the
    // objects' minute rows later); a full one's into a `keyframes` row.
    QByteArray blob;
    blob.reserve(fullRecord ? 1 : 1 + 40 * int(tick.entries.size()));
    blob.append(char(fullRecord ? FullTick : 0));
    QList<ChangeRecord> keyframe;
    if (fullRecord)
        keyframe.reserve(qsizetype(m_series.size()));
    if (tick.full && m_ids.size() < tick.entries.size()) {
        m_ids.reserve(tick.entries.size());
        m_series.reserve(size_t(m_nextId) + size_t(tick.entries.size()));
    }
    recordEntries(tick, fullRecord, blob, keyframe);
    if (m_newWritten < m_newObjects.size() && !insertNewObjects()) {
        requestFull();
        return false;
    }
    if (tick.full || fullRecord)
        recordUnlisted(t, tick.full, fullRecord, blob, keyframe);
    if ((fullRecord && !insertKeyframe(t, keyframe)) || !insertRecent(t, blob)) {
        requestFull();
        return false;
    }
    m_awaitFull = false;
    m_lastTickMs = t;
    m_tickHour = hour;
    const qint64 minute = floorDiv(t, MinuteMs);
    if (m_oldestRecentMinute < 0 || minute < m_oldestRecentMinute)
        m_oldestRecentMinute = minute;
    m_latestMs = std::max(m_latestMs, t);
    return true;
}

namespace {

// The record of a present series' motions carried on to time t.
void carryOn(const SeriesState &s, qint64 t, ChangeRecord *r)
{
    r->absent = false;
    r->figures = s.figures;
    for (int f = 0; f < HistoryFigures; ++f) {
        r->values[f] = f < s.figures ? projectMotion(s.values[f], s.slopes[f], t - s.atMs) : 0.0;
        r->slopes[f] = s.slopes[f];
    }
}

} // namespace

void HistoryWriter::recordEntries(const HistoryTick &tick, bool fullRecord, QByteArray &blob,
                                  QList<ChangeRecord> &keyframe)
{
    const qint64 t = tick.atMs;
    ChangeRecord r;
    for (const HistoryTick::Entry &e : tick.entries) {
        const quint32 id = idOf(e);
        if (id >= m_series.size())
            m_series.resize(id + 1);
        Series &series = m_series[id];
        if (series.seen == m_tickNumber)
            continue; // one key listed twice in a tick: the first counts
        series.seen = m_tickNumber;
        SeriesState &s = series.state;
        const int figures = std::clamp(e.figures, 0, HistoryFigures);
        bool changed;
        if (e.absent) {
            changed = s.present;
        } else {
            changed = !s.present || s.figures != figures;
            const quint16 durations = changed ? 0 : durationsOf(e.kind);
            for (int f = 0; f < figures && !changed; ++f)
                changed = !sameMotion(projectMotion(s.values[f], s.slopes[f], t - s.atMs),
                                      s.slopes[f], e.values[f], e.slopes[f], (durations >> f) & 1);
        }
        if (!changed && !(fullRecord && s.present))
            continue; // an idle object: nothing written
        r.head = id;
        if (!changed) {
            // A full record of an object read again within the slack of its
            // motions: the motions carried on, as for one not listed (the
            // monitor lists no such re-read), not the reading's few ms off.
            carryOn(s, t, &r);
        } else {
            r.absent = e.absent;
            r.figures = e.absent ? 0 : figures;
            for (int f = 0; f < HistoryFigures; ++f) {
                r.values[f] = f < figures ? e.values[f] : 0.0;
                r.slopes[f] = f < figures ? e.slopes[f] : 0;
            }
        }
        if (fullRecord) {
            if (!e.absent) // a full tick's reader starts with nothing present
                keyframe.append(r);
        } else {
            putRecord(blob, r);
        }
        s.apply(r, t);
    }
}

void HistoryWriter::recordUnlisted(qint64 t, bool tickFull, bool fullRecord, QByteArray &blob,
                                   QList<ChangeRecord> &keyframe)
{
    // A full tick's objects not listed are gone (tickFull), or, in a
    // full record of a partial tick, carried on as they move.
    ChangeRecord r;
    for (quint32 id = 0; id < m_series.size(); ++id) {
        Series &series = m_series[id];
        SeriesState &s = series.state;
        if (!s.present || series.seen == m_tickNumber)
            continue;
        r.head = id;
        if (tickFull) {
            r.absent = true;
            r.figures = 0;
            if (!fullRecord)
                putRecord(blob, r);
        } else {
            carryOn(s, t, &r);
            keyframe.append(r); // (fullRecord: a partial tick's hour begins)
        }
        s.apply(r, t);
    }
}

bool HistoryWriter::insertKeyframe(qint64 t, QList<ChangeRecord> &keyframe)
{
    std::sort(keyframe.begin(), keyframe.end(),
              [](const ChangeRecord &a, const ChangeRecord &b) { return a.head < b.head; });
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    q.prepare(QStringLiteral("INSERT OR REPLACE INTO keyframes (t, data) VALUES (?, ?)"));
    q.addBindValue(t);
    q.addBindValue(encodeKeyframe(keyframe));
    if (!q.exec()) {
        fail(QStringLiteral("INSERT INTO keyframes"), q.lastError().text());
        return false;
    }
    return true;
}

bool HistoryWriter::insertRecent(qint64 t, const QByteArray &blob)
{
    // Once a tick, every tick: prepared once per connection, not parsed each time.
    if (!m_insertRecent) {
        m_insertRecent = std::make_unique<QSqlQuery>(QSqlDatabase::database(m_connection, false));
        if (!m_insertRecent->prepare(
                QStringLiteral("INSERT OR REPLACE INTO recent (t, data) VALUES (?, ?)"))) {
            fail(QStringLiteral("INSERT INTO recent"), m_insertRecent->lastError().text());
            m_insertRecent.reset();
            return false;
        }
    }
    QSqlQuery &insert = *m_insertRecent;
    insert.bindValue(0, t);
    insert.bindValue(1, blob);
    if (!insert.exec()) {
        fail(QStringLiteral("INSERT INTO recent"), insert.lastError().text());
        return false;
    }
    return true;
}

void HistoryWriter::writePending()
{
    if (!m_ok || (m_pending.isEmpty() && m_events.isEmpty() && m_newObjects.empty()))
        return;
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    if (!db.transaction()) {
        fail(QStringLiteral("BEGIN"), db.lastError().text());
        return; // kept pending: the next interval tries again
    }
    const QList<HistoryTick> ticks = std::exchange(m_pending, {});
    const QList<HistoryEvent> events = std::exchange(m_events, {});
    if (m_newWritten < m_newObjects.size() && !insertNewObjects())
        requestFull(); // the ticks below register the objects they list again
    for (const HistoryTick &tick : ticks)
        writeTick(tick);
    // Most commits carry no alert event: no statement to prepare then.
    std::optional<QSqlQuery> q;
    if (!events.isEmpty()) {
        q.emplace(db);
        q->prepare(QStringLiteral("INSERT INTO events (at, key, kind, text) VALUES (?, ?, ?, ?)"));
    }
    for (const HistoryEvent &e : events) {
        q->addBindValue(e.atMs);
        q->addBindValue(e.key);
        q->addBindValue(e.kind);
        q->addBindValue(e.text);
        if (!q->exec())
            fail(QStringLiteral("INSERT INTO events"), q->lastError().text());
    }
    if (!db.commit()) {
        fail(QStringLiteral("COMMIT"), db.lastError().text());
        db.rollback();
        committed(false);
        requestFull(); // the motions in memory are ahead of the file's
        return;
    }
    committed(true);
    if (m_dropped > 0) {
        Q_EMIT problem(QStringLiteral("The history file %1 could not keep up; %2 ticks were not "
                                      "written.")
                           .arg(m_path)
                           .arg(m_dropped));
        m_dropped = 0;
    }
    // A minute is over when a tick of a later minute is written.
    const qint64 current = floorDiv(m_latestMs, MinuteMs);
    if (m_oldestRecentMinute >= 0 && m_oldestRecentMinute < current) {
        fold(current * MinuteMs);
        maintain();
    }
}

} // namespace gatehouse::Internal
