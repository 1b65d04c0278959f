// SPDX-License-Identifier: MIT
// Opening the history file (HistoryWriter, on the store's thread): its
// checks and schema, and a file that cannot be used (corrupt, locked by
// another process, an older format) renamed aside for a new one. A file this
// user cannot write is left as it is: nothing is wrong with it.
#include "historywriter.h"

#include "historytime.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStorageInfo>

#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

#include <algorithm>

namespace gatehouse::Internal {

namespace {

// "owner root, mode 644": what to change, or whom to ask.
QString ownerAndMode(const QFileInfo &info)
{
    const QFile::Permissions p = info.permissions();
    const QString owner = info.owner().isEmpty() ? QString::number(info.ownerId()) : info.owner();
    return QStringLiteral("owner %1, mode %2%3%4")
        .arg(owner)
        .arg((p.toInt() >> 12) & 7)
        .arg((p.toInt() >> 4) & 7)
        .arg(p.toInt() & 7);
}

} // namespace

HistoryWriter::Verdict HistoryWriter::verdictOf(const QSqlError &error)
{
    bool coded = false;
    // Qt's driver turns on SQLite's extended codes: the primary code is the
    // low byte (SQLITE_READONLY_DIRECTORY is 1544, SQLITE_READONLY 8).
    const int code = error.nativeErrorCode().toInt(&coded) & 0xff;
    if (!coded)
        return error.text().contains(QLatin1String("locked"), Qt::CaseInsensitive)
                   ? Verdict::Locked
                   : Verdict::Failed;
    switch (code) {
    case 11: // SQLITE_CORRUPT, "database disk image is malformed"
    case 26: // SQLITE_NOTADB, "file is not a database"
        return Verdict::Corrupt;
    case 5: // SQLITE_BUSY
    case 6: // SQLITE_LOCKED
        return Verdict::Locked;
    case 3:  // SQLITE_PERM
    case 8:  // SQLITE_READONLY, "attempt to write a readonly database"
    case 23: // SQLITE_AUTH
        return Verdict::NotWritable;
    default: // a full disk, an I/O error, ...: nothing says the file is bad
        return Verdict::Failed;
    }
}

QString HistoryWriter::unwritable(const QString &path)
{
    const QFileInfo file(path);
    const QFileInfo dir(file.absolutePath());
    if (!dir.exists())
        return {}; // could not be made: opening says why
    if (QStorageInfo(dir.absoluteFilePath()).isReadOnly())
        return QStringLiteral("it is on a read-only file system");
    // SQLite opens a file it may not write read-only without a word: the
    // first write would fail as if the file were bad.
    if (file.exists() && !file.isWritable())
        return ownerAndMode(file);
    // A writer in WAL mode writes the -wal and -shm files beside the file
    // too, and makes them (in the directory) when they are not there.
    bool sidesThere = true;
    for (const char *suffix : {"-wal", "-shm"}) {
        const QFileInfo side(path + QLatin1String(suffix));
        if (!side.exists())
            sidesThere = false;
        else if (!side.isWritable())
            return QStringLiteral("%1 beside it: %2").arg(side.fileName(), ownerAndMode(side));
    }
    if ((!file.exists() || !sidesThere) && !dir.isWritable())
        return QStringLiteral("its directory %1, where %2: %3")
            .arg(dir.absoluteFilePath(),
                 file.exists() ? QStringLiteral("SQLite makes its -wal and -shm files")
                               : QStringLiteral("it would be made"),
                 ownerAndMode(dir));
    return {};
}

qint64 HistoryWriter::walLimitBytes(qint64 capBytes)
{
    return std::clamp<qint64>(capBytes / 16, 256 * 1024, 16 * 1024 * 1024);
}

HistoryWriter::Verdict HistoryWriter::tryOpen(QString *detail)
{
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE"))) {
        *detail = QStringLiteral("Qt's SQLite driver is missing: install the Debian package "
                                 "libqt6sql6-sqlite, or run .ci/install-deps");
        return Verdict::Failed;
    }
    if (const QString why = unwritable(m_path); !why.isEmpty()) {
        *detail = why;
        return Verdict::NotWritable;
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
        return verdictOf(q.lastError());
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
            return verdictOf(q.lastError());
        }
        q.finish();
    }
    // A write lock proves no other process holds the file.
    if (!q.exec(QStringLiteral("BEGIN IMMEDIATE"))) {
        *detail = q.lastError().text();
        return verdictOf(q.lastError());
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
            const Verdict verdict = verdictOf(q.lastError());
            exec(QStringLiteral("ROLLBACK"));
            return verdict;
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
        return verdictOf(q.lastError());
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
        if (verdict == Verdict::NotWritable)
            Q_EMIT problem(QStringLiteral("The history file %1 is not writable by this user (%2); "
                                          "%3history is not kept this session. Pass "
                                          "--history-dir with a directory this user can write, "
                                          "or fix the permissions.")
                               .arg(m_path, detail,
                                    QFileInfo::exists(m_path)
                                        ? QStringLiteral("it is left as it is and ")
                                        : QString()));
        else
            Q_EMIT problem(QStringLiteral("The history file %1 could not be opened (%2); history "
                                          "is not kept this session. Check the directory's "
                                          "permissions or pass --history-dir.")
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

} // namespace gatehouse::Internal
