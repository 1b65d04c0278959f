// SPDX-License-Identifier: MIT
#include "historywriter.h"

#include "historychanges.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>

#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <utility>

namespace gatehouse::Internal {

namespace {

constexpr qint64 MinuteMs = 60 * 1000;
constexpr qint64 HourMs = 3600 * 1000;
// A bucket's unknown figure (Bucket holds floats).
constexpr float NaN = std::numeric_limits<float>::quiet_NaN();

// The WAL's share of the cap: checkpointed (and truncated) at this size, so
// file plus WAL stay under the cap.
qint64 walLimitBytes(qint64 capBytes)
{
    return std::clamp<qint64>(capBytes / 16, 256 * 1024, 16 * 1024 * 1024);
}

qint64 floorDiv(qint64 a, qint64 b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// SQLite's result codes as Qt SQL reports them (QSqlError::nativeErrorCode).
bool isBusy(const QSqlError &e)
{
    const QString code = e.nativeErrorCode();
    return code == QLatin1String("5") || code == QLatin1String("6")
           || e.text().contains(QLatin1String("locked"), Qt::CaseInsensitive);
}

} // namespace

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

HistoryWriter::Verdict HistoryWriter::tryOpen(QString *detail)
{
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE"))) {
        *detail = QStringLiteral("Qt's SQLite driver is missing: install the Debian package "
                                 "libqt6sql6-sqlite, or run .ci/install-deps");
        return Verdict::Failed;
    }
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(m_path);
    // A lock held by another process is waited for this long, then the
    // file counts as locked.
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=1500"));
    if (!db.open()) {
        *detail = db.lastError().text();
        return Verdict::Failed;
    }
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("PRAGMA quick_check"))) {
        *detail = q.lastError().text();
        return isBusy(q.lastError()) ? Verdict::Locked : Verdict::Corrupt;
    }
    if (!q.next() || q.value(0).toString() != QLatin1String("ok")) {
        *detail = QStringLiteral("quick_check: ") + q.value(0).toString();
        return Verdict::Corrupt;
    }
    q.finish();
    // auto_vacuum only takes on a new file: the size cap's deletes then give
    // pages back to the file system (incremental_vacuum).
    const QStringList pragmas = {
        QStringLiteral("PRAGMA auto_vacuum=INCREMENTAL"),
        QStringLiteral("PRAGMA journal_mode=WAL"),
        QStringLiteral("PRAGMA synchronous=NORMAL"),
        QStringLiteral("PRAGMA journal_size_limit=%1").arg(walLimitBytes(m_options.capBytes)),
        QStringLiteral("PRAGMA wal_autocheckpoint=%1")
            .arg(std::max<qint64>(16, walLimitBytes(m_options.capBytes) / 4096 / 2)),
    };
    for (const QString &p : pragmas) {
        if (!q.exec(p)) {
            *detail = q.lastError().text();
            return isBusy(q.lastError()) ? Verdict::Locked : Verdict::Corrupt;
        }
        q.finish();
    }
    // A write lock proves no other process holds the file.
    if (!q.exec(QStringLiteral("BEGIN IMMEDIATE"))) {
        *detail = q.lastError().text();
        return isBusy(q.lastError()) ? Verdict::Locked : Verdict::Corrupt;
    }
    const QStringList schema = {
        QStringLiteral("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS objects (id INTEGER PRIMARY KEY, key BLOB NOT "
                       "NULL, pattern TEXT NOT NULL, figures TEXT NOT NULL, UNIQUE (key, "
                       "pattern))"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS recent (t INTEGER PRIMARY KEY, data BLOB NOT "
                       "NULL)"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS samples (minute INTEGER NOT NULL, object "
                       "INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (minute, object)) "
                       "WITHOUT ROWID"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS buckets (hour INTEGER NOT NULL, object "
                       "INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (hour, object)) "
                       "WITHOUT ROWID"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, at INTEGER "
                       "NOT NULL, key BLOB, kind TEXT NOT NULL, text TEXT NOT NULL)"),
        QStringLiteral("CREATE INDEX IF NOT EXISTS events_at ON events (at)"),
        // Format 2 (historychanges.h): an object's few rows of a range are
        // found by this index, not by a lookup per minute.
        QStringLiteral("CREATE INDEX IF NOT EXISTS samples_object ON samples (object, minute)"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS keyframes (t INTEGER PRIMARY KEY, data BLOB "
                       "NOT NULL)"),
        QStringLiteral("INSERT OR IGNORE INTO meta VALUES ('format', '2')"),
    };
    for (const QString &s : schema) {
        if (!q.exec(s)) {
            *detail = q.lastError().text();
            exec(QStringLiteral("ROLLBACK"));
            return isBusy(q.lastError()) ? Verdict::Locked : Verdict::Corrupt;
        }
    }
    if (!q.exec(QStringLiteral("SELECT value FROM meta WHERE name = 'format'")) || !q.next()
        || q.value(0).toString() != QLatin1String("2")) {
        const bool old = q.isValid() && q.value(0).toString() == QLatin1String("1");
        *detail = old ? QStringLiteral("format 1") : QStringLiteral("an unknown format");
        q.finish();
        exec(QStringLiteral("ROLLBACK"));
        return old ? Verdict::OldFormat : Verdict::Corrupt;
    }
    if (!q.exec(QStringLiteral("COMMIT"))) {
        *detail = q.lastError().text();
        return isBusy(q.lastError()) ? Verdict::Locked : Verdict::Corrupt;
    }
    return Verdict::Ok;
}

void HistoryWriter::setAside(Verdict verdict, const QString &detail)
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
    const QString aside
        = m_path
          + (verdict == Verdict::OldFormat ? QStringLiteral(".format1-")
                                           : QStringLiteral(".corrupt-"))
          + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'"));
    const bool moved = QFile::rename(m_path, aside);
    for (const char *suffix : {"-wal", "-shm"}) {
        const QString side = m_path + QLatin1String(suffix);
        if (QFileInfo::exists(side))
            QFile::rename(side, aside + QLatin1String(suffix));
    }
    const QString why = verdict == Verdict::Locked
                            ? QStringLiteral("is locked by another process (%1)").arg(detail)
                            : QStringLiteral("is not a readable history database (%1)").arg(detail);
    if (moved && verdict == Verdict::OldFormat)
        Q_EMIT problem(QStringLiteral("The history file %1 was written by an older Gatehouse "
                                      "(format 1, every figure every tick); it was renamed to %2 "
                                      "and a new file (format 2, only what changed) was started. "
                                      "The old file stays readable: copy it into a directory "
                                      "under the name %3 and pass that directory to "
                                      "`gatehouse-cli history --history-dir`.")
                           .arg(m_path, aside, QFileInfo(m_path).fileName()));
    else if (moved)
        Q_EMIT problem(QStringLiteral("The history file %1 %2; it was renamed to %3 and a new "
                                      "file was started.")
                           .arg(m_path, why, aside));
    else
        Q_EMIT problem(QStringLiteral("The history file %1 %2 and could not be renamed aside; "
                                      "history is not kept this session. Move the file away "
                                      "and start again.")
                           .arg(m_path, why));
}

void HistoryWriter::open()
{
    if (m_ok)
        return;
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QString detail;
    Verdict verdict = tryOpen(&detail);
    if (verdict == Verdict::Corrupt || verdict == Verdict::Locked
        || verdict == Verdict::OldFormat) {
        setAside(verdict, detail);
        if (QFileInfo::exists(m_path))
            return; // could not move it: nothing written this session
        verdict = tryOpen(&detail);
    }
    if (verdict != Verdict::Ok) {
        Q_EMIT problem(QStringLiteral("The history file %1 could not be opened (%2); history is "
                                      "not kept this session. Check the directory's permissions "
                                      "or pass --history-dir.")
                           .arg(m_path, detail));
        {
            QSqlDatabase db = QSqlDatabase::database(m_connection, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_connection);
        return;
    }
    m_ok = true;
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    q.setForwardOnly(true);
    if (q.exec(QStringLiteral("SELECT id, key, pattern FROM objects"))) {
        while (q.next()) {
            const quint32 id = q.value(0).toUInt();
            m_nextId = std::max(m_nextId, id + 1);
            // Patterns no unit registers any more are left out: a new id if one returns.
            const PatternUnit *unit = PatternRegistry::instance().find(q.value(2).toString());
            if (unit)
                m_ids.insert({q.value(1).toByteArray(), unit->kind()}, id);
        }
    }
    if (q.exec(QStringLiteral("SELECT MIN(t) FROM recent")) && q.next() && !q.value(0).isNull())
        m_oldestRecentMinute = floorDiv(q.value(0).toLongLong(), MinuteMs);
    if (q.exec(QStringLiteral("SELECT MAX(t) FROM recent")) && q.next() && !q.value(0).isNull())
        m_latestMs = q.value(0).toLongLong();
    q.finish();
    // The first tick of this session lists every object (format 2's state
    // starts from a full tick): the store's first append() is one; ask
    // again only when ticks came before the file was open (left out).
    m_awaitFull = true;
    if (m_tickBeforeOpen)
        requestFull();
    m_timer = new QTimer(this);
    m_timer->setInterval(m_options.commitIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &HistoryWriter::writePending);
    m_timer->start();
    Q_EMIT opened(m_path);
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
        idFor(key, kind, int(std::min<qsizetype>(8, declaredFigures(kind).size())));
}

quint8 HistoryWriter::durationsOf(PatternKind kind)
{
    // Entries come in runs of one kind: hash a kind only when it changes.
    if (m_durationsKind == kind)
        return m_durations;
    auto it = m_durationMasks.constFind(kind);
    if (it == m_durationMasks.cend()) {
        quint8 mask = 0;
        const QList<Figure> figures = PatternUnit::of(kind).figures();
        for (qsizetype f = 0; f < figures.size() && f < 8; ++f)
            mask |= figures.at(f).isDuration ? quint8(1u << f) : quint8(0);
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
        const int figures = std::clamp(e.figures, 0, 8);
        bool changed;
        if (e.absent) {
            changed = s.present;
        } else {
            changed = !s.present || s.figures != figures;
            const quint8 durations = changed ? 0 : durationsOf(e.kind);
            for (int f = 0; f < figures && !changed; ++f)
                changed = !sameMotion(projectMotion(s.values[f], s.slopes[f], t - s.atMs),
                                      s.slopes[f], e.values[f], e.slopes[f], (durations >> f) & 1);
        }
        if (!changed && !(fullRecord && s.present))
            continue; // an idle object: nothing written
        r.head = id;
        r.absent = e.absent;
        r.figures = e.absent ? 0 : figures;
        for (int f = 0; f < 8; ++f) {
            r.values[f] = f < figures ? e.values[f] : 0.0;
            r.slopes[f] = f < figures ? e.slopes[f] : 0;
        }
        if (fullRecord) {
            if (!e.absent) // a full tick's reader starts with nothing present
                keyframe.append(r);
        } else {
            putRecord(blob, r);
        }
        s.apply(r, t);
    }
    if (m_newWritten < m_newObjects.size() && !insertNewObjects()) {
        requestFull();
        return false;
    }
    if (tick.full || fullRecord) {
        // A full tick's objects not listed are gone (tick.full), or, in a
        // full record of a partial tick, carried on as they move.
        for (quint32 id = 0; id < m_series.size(); ++id) {
            Series &series = m_series[id];
            SeriesState &s = series.state;
            if (!s.present || series.seen == m_tickNumber)
                continue;
            r.head = id;
            if (tick.full) {
                r.absent = true;
                r.figures = 0;
                if (!fullRecord)
                    putRecord(blob, r);
            } else {
                r.absent = false;
                r.figures = s.figures;
                for (int f = 0; f < 8; ++f) {
                    r.values[f]
                        = f < s.figures ? projectMotion(s.values[f], s.slopes[f], t - s.atMs) : 0.0;
                    r.slopes[f] = s.slopes[f];
                }
                keyframe.append(r); // (fullRecord: a partial tick's hour begins)
            }
            s.apply(r, t);
        }
    }
    if (fullRecord) {
        std::sort(keyframe.begin(), keyframe.end(),
                  [](const ChangeRecord &a, const ChangeRecord &b) { return a.head < b.head; });
        QSqlQuery q(QSqlDatabase::database(m_connection, false));
        q.prepare(QStringLiteral("INSERT OR REPLACE INTO keyframes (t, data) VALUES (?, ?)"));
        q.addBindValue(t);
        q.addBindValue(encodeKeyframe(keyframe));
        if (!q.exec()) {
            fail(QStringLiteral("INSERT INTO keyframes"), q.lastError().text());
            requestFull();
            return false;
        }
    }
    // Once a tick, every tick: prepared once per connection, not parsed each time.
    if (!m_insertRecent) {
        m_insertRecent = std::make_unique<QSqlQuery>(QSqlDatabase::database(m_connection, false));
        if (!m_insertRecent->prepare(
                QStringLiteral("INSERT OR REPLACE INTO recent (t, data) VALUES (?, ?)"))) {
            fail(QStringLiteral("INSERT INTO recent"), m_insertRecent->lastError().text());
            m_insertRecent.reset();
            requestFull();
            return false;
        }
    }
    QSqlQuery &insert = *m_insertRecent;
    insert.bindValue(0, t);
    insert.bindValue(1, blob);
    if (!insert.exec()) {
        fail(QStringLiteral("INSERT INTO recent"), insert.lastError().text());
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

void HistoryWriter::fold(qint64 beforeMs)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT t, data FROM recent WHERE t < ? ORDER BY t"));
    q.addBindValue(beforeMs);
    if (!q.exec()) {
        fail(QStringLiteral("SELECT FROM recent"), q.lastError().text());
        return;
    }
    // (minute, object) -> its records, in the table's key order; object 0
    // holds the minute's tick times.
    std::map<qint64, MinuteTicks> ticks;
    std::map<std::pair<qint64, quint32>, QList<ChangeRecord>> records;
    ChangeRecord r;
    while (q.next()) {
        const qint64 t = q.value(0).toLongLong();
        const qint64 minute = floorDiv(t, MinuteMs);
        const QByteArray blob = q.value(1).toByteArray();
        if (blob.isEmpty())
            continue;
        MinuteTicks &m = ticks[minute];
        m.times.append(t);
        m.flags.append(uchar(blob.at(0)));
        const uchar *p = reinterpret_cast<const uchar *>(blob.constData()) + 1;
        const uchar *end = reinterpret_cast<const uchar *>(blob.constData()) + blob.size();
        while (p < end && getRecord(&p, end, &r)) {
            const quint32 id = quint32(r.head);
            r.head = quint64(t - minute * MinuteMs);
            records[{minute, id}].append(r);
        }
    }
    q.finish();
    if (!db.transaction()) {
        fail(QStringLiteral("BEGIN"), db.lastError().text());
        return;
    }
    QSqlQuery insert(db);
    insert.prepare(QStringLiteral("INSERT OR REPLACE INTO samples (minute, object, data) VALUES "
                                  "(?, ?, ?)"));
    const auto insertRow = [&](qint64 minute, quint32 object, const QByteArray &data) {
        insert.bindValue(0, minute);
        insert.bindValue(1, object);
        insert.bindValue(2, data);
        if (insert.exec())
            return true;
        fail(QStringLiteral("INSERT INTO samples"), insert.lastError().text());
        db.rollback();
        return false;
    };
    for (const auto &[minute, m] : ticks) {
        if (!insertRow(minute, 0, encodeTicks(m, minute * MinuteMs)))
            return;
    }
    for (const auto &[at, list] : records) {
        if (!insertRow(at.first, at.second, encodeRecords(list)))
            return;
    }
    QSqlQuery del(db);
    del.prepare(QStringLiteral("DELETE FROM recent WHERE t < ?"));
    del.addBindValue(beforeMs);
    if (!del.exec() || !db.commit()) {
        fail(QStringLiteral("DELETE FROM recent"), del.lastError().text());
        db.rollback();
        return;
    }
    m_oldestRecentMinute = -1;
    if (q.exec(QStringLiteral("SELECT MIN(t) FROM recent")) && q.next() && !q.value(0).isNull())
        m_oldestRecentMinute = floorDiv(q.value(0).toLongLong(), MinuteMs);
}

void HistoryWriter::maintain()
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    // Whole hours whose end is fullResolutionMs old move to buckets.
    const qint64 bucketBefore = floorDiv(m_latestMs - m_options.fullResolutionMs, HourMs);
    qint64 done = std::numeric_limits<qint64>::min();
    for (;;) {
        if (!q.exec(QStringLiteral("SELECT MIN(minute) FROM samples")) || !q.next()
            || q.value(0).isNull())
            break;
        const qint64 hour = floorDiv(q.value(0).toLongLong() * MinuteMs, HourMs);
        q.finish();
        if (hour >= bucketBefore || hour <= done)
            break; // up to date, or the hour could not be moved (said so)
        downsampleHour(hour);
        done = hour;
    }
    // Buckets of hours whose end is bucketRetentionMs old go, and events.
    const qint64 dropBefore = floorDiv(m_latestMs - m_options.bucketRetentionMs, HourMs);
    q.prepare(QStringLiteral("DELETE FROM buckets WHERE hour < ?"));
    q.addBindValue(dropBefore);
    q.exec();
    q.prepare(QStringLiteral("DELETE FROM events WHERE at < ?"));
    q.addBindValue(dropBefore * HourMs);
    q.exec();
    q.finish();
    enforceCap();
    // The WAL back to nothing once a minute: what the cap counts stays put.
    exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
}

void HistoryWriter::downsampleHour(qint64 hour)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT minute, object, data FROM samples WHERE minute >= ? AND "
                             "minute < ?"));
    q.addBindValue(hour * 60);
    q.addBindValue((hour + 1) * 60);
    if (!q.exec()) {
        fail(QStringLiteral("SELECT FROM samples"), q.lastError().text());
        return;
    }
    // The hour's ticks, and each object's records (absolute times), both
    // in time order (the key leads with the minute).
    MinuteTicks hourTicks;
    std::map<quint32, std::vector<std::pair<qint64, ChangeRecord>>> recordsOf;
    MinuteTicks m;
    QList<ChangeRecord> list;
    // The hour's full ticks first: each starts its objects' states.
    {
        QSqlQuery k(db);
        k.setForwardOnly(true);
        k.prepare(
            QStringLiteral("SELECT t, data FROM keyframes WHERE t >= ? AND t < ? ORDER BY t"));
        k.addBindValue(hour * HourMs);
        k.addBindValue((hour + 1) * HourMs);
        if (k.exec()) {
            while (k.next()) {
                const qint64 t = k.value(0).toLongLong();
                if (!decodeKeyframe(k.value(1).toByteArray(), &list))
                    continue;
                for (const ChangeRecord &r : std::as_const(list))
                    recordsOf[quint32(r.head)].emplace_back(t, r);
            }
        }
    }
    while (q.next()) {
        const qint64 minuteStart = q.value(0).toLongLong() * MinuteMs;
        const quint32 object = q.value(1).toUInt();
        if (object == 0) {
            if (decodeTicks(q.value(2).toByteArray(), minuteStart, &m)) {
                hourTicks.times.append(m.times);
                hourTicks.flags.append(m.flags);
            }
            continue;
        }
        if (!decodeRecords(q.value(2).toByteArray(), &list))
            continue;
        auto &out = recordsOf[object];
        for (const ChangeRecord &r : std::as_const(list))
            out.emplace_back(minuteStart + qint64(r.head), r);
    }
    q.finish();
    for (auto &[object, records] : recordsOf) // keyframes and minutes, in time order
        std::stable_sort(records.begin(), records.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
    // The ticks by minute: [first, end) in hourTicks, and whether one of
    // them is full (the state starts again there).
    struct MinuteSpan
    {
        qint64 start;
        qsizetype first;
        qsizetype end;
        bool hasFull;
    };
    std::vector<MinuteSpan> spans;
    for (qsizetype i = 0; i < hourTicks.times.size(); ++i) {
        const qint64 start = floorDiv(hourTicks.times.at(i), MinuteMs) * MinuteMs;
        if (spans.empty() || spans.back().start != start)
            spans.push_back({start, i, i, false});
        spans.back().end = i + 1;
        spans.back().hasFull |= (hourTicks.flags.at(i) & FullTick) != 0;
    }
    std::map<quint32, HourBuckets> objects;
    for (const auto &[object, records] : recordsOf) {
        HourBuckets &h = objects[object];
        SeriesState state;
        size_t next = 0;
        for (const MinuteSpan &span : spans) {
            const qint64 minuteEnd = span.start + MinuteMs;
            const bool idle = !span.hasFull && state.present
                              && (next >= records.size() || records[next].first >= minuteEnd)
                              && std::all_of(state.slopes, state.slopes + state.figures,
                                             [](qint8 s) { return s == 0; });
            // Per figure: min, max, sum of the known (non-NaN), last.
            double sums[8] = {};
            int known[8] = {};
            Bucket acc[8];
            int samples = 0;
            if (idle) {
                // A flat object over the minute: its value, every sample.
                samples = int(span.end - span.first);
                for (int f = 0; f < state.figures; ++f) {
                    const float v = float(state.values[f]);
                    acc[f] = {v, v, v, v};
                    known[f] = std::isnan(v) ? 0 : samples;
                    sums[f] = double(v) * samples;
                }
            } else {
                for (qsizetype i = span.first; i < span.end; ++i) {
                    const qint64 t = hourTicks.times.at(i);
                    if (hourTicks.flags.at(i) & FullTick)
                        state.present = false;
                    while (next < records.size() && records[next].first <= t) {
                        state.apply(records[next].second, records[next].first);
                        ++next;
                    }
                    if (!state.present)
                        continue;
                    ++samples;
                    for (int f = 0; f < state.figures; ++f) {
                        const float x = state.valueAt(f, t);
                        acc[f].last = x;
                        if (std::isnan(x))
                            continue;
                        acc[f].min = known[f] == 0 ? x : std::min(acc[f].min, x);
                        acc[f].max = known[f] == 0 ? x : std::max(acc[f].max, x);
                        sums[f] += x;
                        ++known[f];
                    }
                }
            }
            if (samples == 0)
                continue; // not present in this minute: no bucket, as format 1
            while (h.buckets.size() < state.figures) // a figure more: unknown before
                h.buckets.append(QList<Bucket>(h.minutes.size(), Bucket{NaN, NaN, NaN, NaN}));
            h.minutes.append(span.start);
            for (qsizetype f = 0; f < h.buckets.size(); ++f) {
                // NaN (an unknown figure, e.g. occupancy without a limit) is
                // left out; a minute of only NaN stays NaN.
                Bucket b{NaN, NaN, NaN, NaN};
                if (f < state.figures) {
                    if (known[f] > 0) {
                        b.min = acc[f].min;
                        b.max = acc[f].max;
                        b.mean = float(sums[f] / double(known[f]));
                    }
                    b.last = acc[f].last;
                }
                h.buckets[f].append(b);
            }
        }
    }
    q.finish();
    if (!db.transaction())
        return;
    QSqlQuery insert(db);
    insert.prepare(QStringLiteral("INSERT OR REPLACE INTO buckets (hour, object, data) VALUES "
                                  "(?, ?, ?)"));
    for (const auto &[object, h] : objects) {
        if (h.minutes.isEmpty())
            continue;
        insert.bindValue(0, hour);
        insert.bindValue(1, object);
        insert.bindValue(2, encodeHour(h));
        if (!insert.exec()) {
            fail(QStringLiteral("INSERT INTO buckets"), insert.lastError().text());
            db.rollback();
            return;
        }
    }
    QSqlQuery del(db);
    del.prepare(QStringLiteral("DELETE FROM keyframes WHERE t < ?"));
    del.addBindValue((hour + 1) * HourMs);
    if (!del.exec()) {
        fail(QStringLiteral("DELETE FROM keyframes"), del.lastError().text());
        db.rollback();
        return;
    }
    del.prepare(QStringLiteral("DELETE FROM samples WHERE minute >= ? AND minute < ?"));
    del.addBindValue(hour * 60);
    del.addBindValue((hour + 1) * 60);
    if (!del.exec() || !db.commit()) {
        fail(QStringLiteral("DELETE FROM samples"), del.lastError().text());
        db.rollback();
    }
}

void HistoryWriter::enforceCap()
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    // The file's free pages go back first (deleted `recent` rows and
    // downsampled hours leave them): the file is then what it holds.
    const auto freePages = [&]() -> qint64 {
        qint64 n = 0;
        if (q.exec(QStringLiteral("PRAGMA freelist_count")) && q.next())
            n = q.value(0).toLongLong();
        q.finish();
        return n;
    };
    // incremental_vacuum frees a page per step, and Qt steps a statement
    // without rows once: run again while pages are free.
    const auto vacuum = [&] {
        for (int guard = 0; guard < 1000000 && freePages() > 0; ++guard) {
            if (!q.exec(QStringLiteral("PRAGMA incremental_vacuum")))
                break;
            while (q.next()) {
            }
            q.finish();
        }
    };
    const auto fileBytes = [&]() -> qint64 {
        qint64 pages = 0, size = 0;
        if (q.exec(QStringLiteral("PRAGMA page_count")) && q.next())
            pages = q.value(0).toLongLong();
        if (q.exec(QStringLiteral("PRAGMA page_size")) && q.next())
            size = q.value(0).toLongLong();
        q.finish();
        return pages * size;
    };
    // Headroom for the WAL (twice its limit: a fold may pass it) and the
    // minute being written.
    const qint64 target
        = m_options.capBytes - 2 * walLimitBytes(m_options.capBytes) - m_options.capBytes / 16;
    if (fileBytes() <= target)
        return; // free pages stay for the next minute's `recent` rows
    vacuum();
    for (int guard = 0; guard < 100000 && fileBytes() > target; ++guard) {
        // Oldest first: buckets are older than any sample.
        qint64 bucketHour = -1, sampleMinute = -1;
        if (q.exec(QStringLiteral("SELECT MIN(hour) FROM buckets")) && q.next()
            && !q.value(0).isNull())
            bucketHour = q.value(0).toLongLong();
        q.finish();
        if (bucketHour >= 0) {
            q.prepare(QStringLiteral("DELETE FROM buckets WHERE hour <= ?"));
            q.addBindValue(bucketHour);
        } else {
            if (q.exec(QStringLiteral("SELECT MIN(minute) FROM samples")) && q.next()
                && !q.value(0).isNull())
                sampleMinute = q.value(0).toLongLong();
            q.finish();
            if (sampleMinute < 0)
                break; // only the current minute is left
            // Five minutes at a time: small steps stay close to the cap.
            // (The full ticks of those minutes go with them.)
            q.prepare(QStringLiteral("DELETE FROM keyframes WHERE t < ?"));
            q.addBindValue((sampleMinute + 5) * MinuteMs);
            if (!q.exec())
                break;
            q.prepare(QStringLiteral("DELETE FROM samples WHERE minute < ?"));
            q.addBindValue(sampleMinute + 5);
        }
        if (!q.exec())
            break;
        q.finish();
        vacuum();
    }
}

} // namespace gatehouse::Internal
