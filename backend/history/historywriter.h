// SPDX-License-Identifier: MIT
#pragma once

#include "historychanges.h"
#include "historystore.h"

#include <QHash>
#include <QObject>
#include <QSqlQuery>
#include <QStringList>
#include <QTimer>

#include <atomic>
#include <limits>
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
    // Writes what is pending and folds every minute that is over.
    void flushAll();
    void close();

Q_SIGNALS:
    void problem(const QString &message);
    void opened(const QString &path);

private:
    enum class Verdict { Ok, Corrupt, Locked, Failed, OldFormat };
    Verdict tryOpen(QString *detail);
    void setAside(Verdict verdict, const QString &detail);
    void writePending();
    bool writeTick(const HistoryTick &tick);
    quint32 idFor(const HistoryTick::Entry &entry, bool *ok);
    // Bit f set: figure f of the kind is a duration (ms), within
    // DurationSlackMs of its motion when read again.
    quint8 durationsOf(PatternKind kind);
    void requestFull();
    void fold(qint64 beforeMs);
    void maintain();
    void downsampleHour(qint64 hour);
    void enforceCap();
    bool exec(const QString &sql);
    void fail(const QString &what, const QString &error);

    QString m_path;
    HistoryStore::Options m_options;
    QString m_connection;
    bool m_ok = false;
    QTimer *m_timer = nullptr;
    QList<HistoryTick> m_pending;
    QList<HistoryEvent> m_events;
    qsizetype m_dropped = 0;
    // key -> (pattern, object id); one entry per pattern the key had
    QHash<QByteArray, QList<std::pair<PatternKind, quint32>>> m_ids;
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
    std::unique_ptr<QSqlQuery> m_insertObject;  // INSERT INTO objects, prepared once
    QHash<PatternKind, QStringList> m_declared; // a pattern's figure ids
    QHash<PatternKind, quint8> m_durationMasks; // durationsOf(), per kind
    PatternKind m_durationsKind;                // the last kind asked for ...
    quint8 m_durations = 0;                     // ... and its mask
};

} // namespace gatehouse::Internal
