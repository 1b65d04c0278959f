// SPDX-License-Identifier: MIT
#pragma once

#include "historychanges.h"
#include "historydownsample.h"
#include "historystore.h"

#include <QHash>
#include <QObject>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QTimer>

#include <atomic>
#include <limits>
#include <map>
#include <memory>
#include <vector>

namespace gatehouse::Internal {

// The writing side of a HistoryStore, on the store's thread: owns the
// database connection (Qt SQL connections are bound to their thread).
class HistoryWriter : public QObject
{
    Q_OBJECT
public:
    // needFull: set when the writer needs a tick listing every object (after
    // opening, after a tick it could not write); the store's append() reads it.
    HistoryWriter(QString path, HistoryStore::Options options, std::atomic<bool> *needFull);
    ~HistoryWriter() override;

    void open();
    void enqueue(HistoryTick tick);
    void enqueueEvent(HistoryEvent event);
    // Gives objects ids ahead of their first tick, written to `objects` with
    // the next commit (HistoryStore::registerObjects).
    void registerObjects(const QList<std::pair<QByteArray, PatternKind>> &objects);
    // Writes what is pending and folds every minute that is over.
    void flushAll();
    void close();

    // What opening the file found. Only Corrupt, Locked and OldFormat files
    // are renamed aside for a new one; NotWritable and Failed leave the file
    // as it is and keep no history this session.
    enum class Verdict { Ok, Corrupt, Locked, NotWritable, Failed, OldFormat };
    // A statement that failed while opening, by SQLite's result code
    // (QSqlError::nativeErrorCode, extended codes included): Corrupt only
    // when SQLite says the file is damaged or not a database, so a good file
    // this user cannot write, or a full disk, is never set aside.
    static Verdict verdictOf(const QSqlError &error);
    // Why this user cannot write the history file at path (a read-only file
    // system, the file or its -wal/-shm files not writable, or a directory
    // where they cannot be made), or empty when nothing stands in the way.
    static QString unwritable(const QString &path);

Q_SIGNALS:
    void problem(const QString &message);
    void opened(const QString &path);

private:
    Verdict tryOpen(QString *detail);
    void setAside(Verdict verdict, const QString &detail);
    void writePending();
    bool writeTick(const HistoryTick &tick);
    // A tick's records: the listed objects that changed (every present one
    // when fullRecord) into blob, or keyframe when fullRecord.
    void recordEntries(const HistoryTick &tick, bool fullRecord, QByteArray &blob,
                       QList<ChangeRecord> &keyframe);
    // The present objects the tick did not list: absent (a full tick), or
    // carried on into keyframe (a full record of a partial tick).
    void recordUnlisted(qint64 t, bool tickFull, bool fullRecord, QByteArray &blob,
                        QList<ChangeRecord> &keyframe);
    bool insertKeyframe(qint64 t, QList<ChangeRecord> &keyframe); // sorts it by id
    bool insertRecent(qint64 t, const QByteArray &blob);
    // The object's id; a new one is given at once, written to `objects` by
    // insertNewObjects() and kept once its transaction is committed.
    quint32 idFor(const QByteArray &key, PatternKind kind, int figures);
    // The same for an entry, first by its place in the snapshot (Entry::at):
    // the id found there last time when the entry's key is the very same
    // bytes (shared, compared by address: no hashing), else idFor().
    quint32 idOf(const HistoryTick::Entry &e);
    // Writes the new objects not written yet; false: not written, their ids
    // forgotten (the next full tick gives new ones).
    bool insertNewObjects();
    void forgetNewObjects(size_t from);
    void committed(bool ok); // the transaction holding the new objects' rows
    const QStringList &declaredFigures(PatternKind kind);
    // Bit f set: figure f of the kind is a duration (ms), within
    // DurationSlackMs of its motion when read again.
    quint16 durationsOf(PatternKind kind);
    void requestFull();
    void fold(qint64 beforeMs);
    void maintain();
    void downsampleHour(qint64 hour);
    // The hour's ticks and each object's records (keyframes and minute
    // rows, in time order); false when they could not be read.
    bool readHour(qint64 hour, MinuteTicks *hourTicks, std::map<quint32, TimedRecords> *records);
    // The hour's buckets in, its keyframes and minute rows out, in one transaction.
    void writeHour(qint64 hour, const std::map<quint32, HourBuckets> &objects);
    void enforceCap();
    // The WAL's share of the cap: checkpointed (and truncated) at this size,
    // so file plus WAL stay under the cap.
    static qint64 walLimitBytes(qint64 capBytes);
    bool exec(const QString &sql);
    void fail(const QString &what, const QString &error);

    QString m_path;
    HistoryStore::Options m_options;
    QString m_connection;
    bool m_ok = false;
    QTimer *m_timer = nullptr;
    std::unique_ptr<QSqlQuery> m_insertRecent; // a tick's `recent` row (writeTick)
    QList<HistoryTick> m_pending;
    QList<HistoryEvent> m_events;
    qsizetype m_dropped = 0;
    // An object of the file: a key under one pattern (a key may have had several).
    struct ObjectKey
    {
        QByteArray key;
        PatternKind kind;
        friend bool operator==(const ObjectKey &a, const ObjectKey &b)
        {
            return a.kind == b.kind && a.key == b.key;
        }
        // The key alone: its patterns share a bucket, rare and few.
        friend size_t qHash(const ObjectKey &o, size_t seed = 0) { return qHash(o.key, seed); }
    };
    QHash<ObjectKey, quint32> m_ids; // every object's id
    quint32 m_nextId = 1;            // the file's largest id + 1
    struct NewObject
    {
        quint32 id;
        QByteArray key;
        PatternKind kind;
        int figures;
    };
    std::vector<NewObject> m_newObjects; // given ids since the last commit
    struct Placed
    {
        QByteArray key; // shares the snapshot's bytes
        PatternKind kind;
        quint32 id = 0; // 0: none
    };
    std::vector<Placed> m_placed;     // by place in the snapshot (idOf())
    size_t m_newWritten = 0;          // ... of which in `objects` (not committed)
    qint64 m_latestMs = 0;            // the latest tick written (server ms)
    qint64 m_oldestRecentMinute = -1; // of the rows in `recent`; -1: none
    // Format 2: every object's last motion as written, by id; ticks
    // written this session are numbered (seen: listed in the current one).
    struct Series
    {
        SeriesState state;
        quint32 seen = 0;
    };
    std::vector<Series> m_series;
    quint32 m_tickNumber = 0;
    qint64 m_lastTickMs = std::numeric_limits<qint64>::min(); // this session's
    qint64 m_tickHour = std::numeric_limits<qint64>::min();
    bool m_awaitFull = true; // partial ticks are dropped until a full one
    bool m_tickBeforeOpen = false;
    std::atomic<bool> *m_needFull = nullptr;
    QHash<PatternKind, QStringList> m_declared;  // a pattern's figure ids
    QHash<PatternKind, quint16> m_durationMasks; // durationsOf(), per kind
    PatternKind m_durationsKind;                 // the last kind asked for ...
    quint16 m_durations = 0;                     // ... and its mask
};

} // namespace gatehouse::Internal
