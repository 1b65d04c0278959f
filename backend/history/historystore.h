// SPDX-License-Identifier: MIT
#pragma once

#include "historycodec.h"

#include <patterns/patternkind.h>

#include <QList>
#include <QObject>
#include <QPointF>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

class QThread;

namespace gatehouse {

class ObjectList;
struct ObjectState;
struct PatternObject;
struct RedisEndpoint;
struct Snapshot;

namespace Internal {
class HistoryWriter;
}

// One tick's figures (PatternUnit::figures()), the input of
// HistoryStore::append. Made on the caller's thread from a Snapshot.
struct HistoryTick
{
    struct Entry
    {
        QByteArray key;
        PatternKind kind;
        int figures = 0;
        double values[HistoryFigures] = {}; // at the tick's time
        // How each value moves from there while the object is not re-read
        // (historychanges.h): 0 flat, -1 counting down to 0, +1 growing.
        qint8 slopes[HistoryFigures] = {};
        bool absent = false; // stale, gone or removed: no samples from here
        // Its place in the snapshot's objects, -1 unknown: the writer finds
        // its id there while the same key is (a hint, checked).
        qint32 at = -1;
    };
    qint64 atMs = 0; // server time of the tick
    QList<Entry> entries;
    // True: every present object is listed, the ones not listed are absent.
    // False: only the objects whose reading changed are (HistoryStore's
    // append(Snapshot) makes these: an idle object costs nothing).
    bool full = true;

    // Every object of the snapshot that was read (not stale, not gone), its
    // figures projected to the snapshot's time as the monitor's history does.
    static HistoryTick fromSnapshot(const Snapshot &snapshot);
    // The entry of one object state at time atMs: false when it is stale or
    // gone (entry->absent), or when a figure does not move as a motion can
    // (*moves set: it is sent again every tick).
    static void entryOf(const ObjectState &state, qint64 atMs, Entry *entry, bool *moves);
};

// What the history holds of one object over a range.
struct HistoryRange
{
    QByteArray key;
    QString pattern;
    QStringList figures;
    // Full resolution: one sample per tick (server ms), ascending.
    QList<qint64> times;
    QList<QList<float>> values; // [figure][sample]
    // Older than the full-resolution horizon: one-minute buckets (minute
    // start, server ms), ascending, all before `times`.
    QList<qint64> bucketTimes;
    QList<QList<Internal::Bucket>> buckets; // [figure][bucket]

    bool isEmpty() const { return times.isEmpty() && bucketTimes.isEmpty(); }
    // A chart's points of one figure: buckets' means (at the middle of their
    // minute), then the samples.
    QList<QPointF> points(const QString &figure) const;
};

struct HistoryEvent
{
    qint64 atMs = 0;
    QByteArray key;
    QString kind; // "fired", "resolved", ...
    QString text;
};

// Every history figure of every object, in one SQLite file per connection
// (Qt SQL, QSQLITE). append() is cheap and thread-safe; the writes are
// batched on the store's own thread and committed at least every
// commitIntervalMs (WAL, synchronous=NORMAL: a killed process loses at most
// the last interval). Layout, for 10,000 objects at one sample a second:
//   recent(t, data)              one row per tick: every object's values
//   samples(minute, object, data) one row per object per minute, a compact
//                                blob (HistoryCodec); made from `recent`
//                                when the minute is over
//   buckets(hour, object, data)  one-minute min/max/mean/last, one row per
//                                object per hour, once an hour is older than
//                                the full-resolution horizon
// Keys lead with time, so writes append, expiry and the size cap delete a
// range; an object's range is read by point lookups (minute, object).
class HistoryStore : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        qint64 fullResolutionMs = 24LL * 3600 * 1000;
        qint64 bucketRetentionMs = 30LL * 24 * 3600 * 1000;
        qint64 capBytes = 1024LL * 1024 * 1024; // the file, WAL included
        int commitIntervalMs = 2000;
        int maxPendingTicks = 120; // a slow disk drops the oldest beyond this

        // The options an operator sets (--history-full, --history-keep,
        // --history-cap): durations such as "24h", "90m", "30d", a size such
        // as "500MB" or "2GiB"; an empty text keeps the default. nullopt with
        // a sentence in *error naming the option and what to give.
        static std::optional<Options> fromText(const QString &fullResolution,
                                               const QString &retention, const QString &cap,
                                               QString *error);
    };

    explicit HistoryStore(QString path, Options options, QObject *parent = nullptr);
    explicit HistoryStore(QString path, QObject *parent = nullptr)
        : HistoryStore(std::move(path), Options(), parent)
    {}
    ~HistoryStore() override; // writes what is pending, then closes

    // The directory history files go to: $GATEHOUSE_HISTORY_DIR when set,
    // else the user's data directory + "/history".
    static QString defaultDirectory();
    // The file of a connection in dir: its URL without secrets, made a
    // file name ("redis_127.0.0.1_6379_db0.sqlite").
    static QString fileFor(const RedisEndpoint &endpoint, const QString &dir);

    QString path() const { return m_path; }
    // Opens (or makes) the file on the store's thread; a corrupt or locked
    // file is renamed aside (problem() says so) and a fresh one used. A file
    // this user cannot write is left as it is: problem() says so, and
    // nothing is kept this session.
    void open();
    // A snapshot's tick: only the objects whose state the monitor replaced
    // since the last snapshot appended (a pointer comparison for the rest),
    // or every object when the writer asks for it or objects came or went.
    void append(const Snapshot &snapshot);
    // What the monitor replaced since the snapshot of the last append
    // (Monitor::takeReplaced): the objects not listed are not even compared
    // (their states are the same, or read again with the same figures
    // moving the same way: the file would not change).
    // Used when it follows on from that append (the same source, its
    // sinceSequence the last snapshot's sequence, its sequence this one's,
    // not `all`); otherwise every object is compared, as append(snapshot).
    struct Replaced
    {
        quint64 source = 0; // 0: none
        quint64 sinceSequence = 0;
        quint64 sequence = 0;
        bool all = true;
        QList<int> indices; // in snapshot.objects, any order, repeats allowed
    };
    void append(const Snapshot &snapshot, const Replaced &replaced);
    void append(HistoryTick tick);
    // Gives the objects their ids in the file ahead of their first tick, as
    // discovery finds them: registering 21,000 objects in a new file costs
    // the writer about 0.1 s of CPU, spent here while discovery runs rather
    // than in the first tick's write. Objects the file has are skipped; not
    // needed for correctness (a tick registers what it lists).
    void registerObjects(const QList<PatternObject> &objects);
    void recordEvent(qint64 atMs, const QByteArray &key, const QString &kind, const QString &text);
    // Blocks until everything appended so far is committed, the minutes over
    // folded and the horizons applied (tests, shutdown). Not on the GUI
    // thread in normal running.
    void flush();

    // Reads (any thread; each call opens its own read-only connection, which
    // needs no write access to the file or its directory).
    // nullopt with *error set when the file cannot be read; an empty range
    // when the key has no history there.
    static std::optional<HistoryRange> read(const QString &path, const QByteArray &key,
                                            qint64 sinceMs, qint64 untilMs, QString *error);
    static std::optional<QList<HistoryEvent>> readEvents(const QString &path, qint64 sinceMs,
                                                         qint64 untilMs, const QByteArray &key,
                                                         int limit, QString *error);

    // How the last append(Snapshot) went (tests, the benchmark).
    struct FeedStats
    {
        qsizetype entries = 0;
        bool full = false;
        // Objects whose state was compared with the last snapshot's (or
        // made into an entry, full): every object without Replaced, the
        // ones it lists (and those re-sent every tick) with it.
        qsizetype compared = 0;
    };
    FeedStats lastFeed() const;

Q_SIGNALS:
    // A sentence for the operator (a file set aside, a write that failed).
    void problem(const QString &message);
    void opened(const QString &path);

private:
    QString m_path;
    std::atomic<bool> m_needFull{true};
    mutable std::mutex m_feedMutex;
    void feed(const Snapshot &snapshot, const Replaced *replaced);

    std::unique_ptr<ObjectList> m_previous; // the last snapshot's objects (shared states)
    quint64 m_previousSource = 0;           // Replaced::source of the last append; 0: none
    quint64 m_previousSequence = 0;         // its snapshot's sequence
    // The places of states whose figures do not move as motions (sent every
    // tick) in the last snapshot, ascending.
    QList<qint32> m_moving;
    FeedStats m_lastFeed;
    QThread *m_thread = nullptr;
    Internal::HistoryWriter *m_writer = nullptr; // lives on m_thread
};

} // namespace gatehouse
