// SPDX-License-Identifier: MIT
#include "historystore.h"

#include "historychanges.h"
#include "historyreadconnection.h"
#include "historytime.h"
#include "historywriter.h"

#include <monitor/snapshot.h>
#include <patterns/patternunit.h>
#include <redis/redisendpoint.h>

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QMetaObject>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QThread>

#include <algorithm>
#include <cmath>

namespace gatehouse {

using namespace Internal;

namespace {

QString cannotRead(const QString &path, const QString &why)
{
    return QStringLiteral("The history file %1 cannot be read (%2).").arg(path, why);
}

} // namespace

namespace {

// "24h", "90m", "30d", "1d12h", "3600s": milliseconds; nullopt otherwise.
std::optional<qint64> parseSpan(const QString &text)
{
    static const QRegularExpression re(
        QStringLiteral("^(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?$"));
    const QString t = text.trimmed();
    const QRegularExpressionMatch m = re.match(t);
    if (t.isEmpty() || !m.hasMatch())
        return std::nullopt;
    const qint64 ms = m.captured(1).toLongLong() * 86400000LL
                      + m.captured(2).toLongLong() * 3600000LL
                      + m.captured(3).toLongLong() * 60000LL + m.captured(4).toLongLong() * 1000LL;
    return ms > 0 ? std::optional<qint64>(ms) : std::nullopt;
}

// "500MB", "2GiB", "1G", "750M", "1048576": bytes (K/M/G and KB/MB/GB are
// powers of 1000, KiB/MiB/GiB of 1024); nullopt otherwise.
std::optional<qint64> parseSize(const QString &text)
{
    static const QRegularExpression re(
        QStringLiteral("^(\\d+(?:\\.\\d+)?)\\s*(k|kb|kib|m|mb|mib|g|gb|gib)?$"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = re.match(text.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    const QString unit = m.captured(2).toLower();
    double factor = 1;
    if (!unit.isEmpty()) {
        const bool binary = unit.endsWith(QLatin1String("ib"));
        const double base = binary ? 1024.0 : 1000.0;
        const int power = unit.startsWith(QLatin1Char('k'))   ? 1
                          : unit.startsWith(QLatin1Char('m')) ? 2
                                                              : 3;
        factor = std::pow(base, power);
    }
    const double bytes = m.captured(1).toDouble() * factor;
    if (bytes < 1 || bytes > 9.0e15)
        return std::nullopt;
    return qint64(bytes);
}

} // namespace

std::optional<HistoryStore::Options> HistoryStore::Options::fromText(const QString &fullResolution,
                                                                     const QString &retention,
                                                                     const QString &cap,
                                                                     QString *error)
{
    Options o;
    if (!fullResolution.isEmpty()) {
        const auto ms = parseSpan(fullResolution);
        if (!ms) {
            *error = QStringLiteral("--history-full \"%1\" is not a duration: give how long to "
                                    "keep every sample, e.g. 24h, 90m or 2d.")
                         .arg(fullResolution);
            return std::nullopt;
        }
        o.fullResolutionMs = *ms;
    }
    if (!retention.isEmpty()) {
        const auto ms = parseSpan(retention);
        if (!ms) {
            *error = QStringLiteral("--history-keep \"%1\" is not a duration: give how long to "
                                    "keep the one-minute buckets, e.g. 30d or 7d.")
                         .arg(retention);
            return std::nullopt;
        }
        o.bucketRetentionMs = *ms;
    }
    if (o.bucketRetentionMs < o.fullResolutionMs) {
        *error = QStringLiteral("--history-keep (%1 h) is shorter than --history-full (%2 h): "
                                "the one-minute buckets are made from samples older than "
                                "--history-full, so keep them at least as long.")
                     .arg(o.bucketRetentionMs / 3600000.0, 0, 'g', 4)
                     .arg(o.fullResolutionMs / 3600000.0, 0, 'g', 4);
        return std::nullopt;
    }
    if (!cap.isEmpty()) {
        const auto bytes = parseSize(cap);
        if (!bytes || *bytes < 1024 * 1024) {
            *error = QStringLiteral("--history-cap \"%1\" is not a size of at least 1 MB: give "
                                    "the most the history file may take, e.g. 500MB or 2GiB.")
                         .arg(cap);
            return std::nullopt;
        }
        o.capBytes = *bytes;
    }
    return o;
}

namespace {

// A pattern's figures, looked up once per run of objects of one kind.
class FigureCache
{
public:
    const QList<Figure> &of(const PatternKind &kind)
    {
        // Objects come in runs of one kind: hash a kind's id only when it changes.
        if (!m_last || !(m_lastKind == kind)) {
            auto found = m_figures.find(kind);
            if (found == m_figures.end())
                found = m_figures.insert(kind,
                                         PatternUnit::of(kind).figures().mid(0, HistoryFigures));
            m_lastKind = kind;
            m_last = &*found;
        }
        return *m_last;
    }

private:
    QHash<PatternKind, QList<Figure>> m_figures;
    PatternKind m_lastKind;
    const QList<Figure> *m_last = nullptr;
};

void fillEntry(const ObjectState &s, const QList<Figure> &figures, qint64 atMs,
               HistoryTick::Entry *e, bool *moves)
{
    e->key = s.object->key;
    e->kind = s.object->kind;
    e->figures = int(figures.size());
    e->absent = s.stale || s.gone; // history holds readings, not gaps
    if (e->absent)
        return;
    // As the snapshot shows it: projected to the tick's time (a reading
    // kept from an earlier tick counts down, its window slides).
    // (A reading of this very tick, or a later one, is used as it is, not
    // copied.)
    std::optional<Reading> projected;
    if (s.reading.atMs < atMs)
        projected = s.reading.at(atMs);
    const Reading &r = projected ? *projected : s.reading;
    // A reading taken after the tick's time: a paced tick sends its batches
    // over the interval, each stamped with its own send time, and the
    // snapshot carries the tick's first. Its motion is judged from its own
    // time (judged from the tick's, a countdown would seem to stand still
    // for `ahead` ms and then fall: no motion, re-sent every tick) and
    // carried back to the tick along it, so that later ticks project to
    // exactly what the reading says.
    const qint64 from = std::max(atMs, r.atMs);
    const double ahead = double(from - atMs);
    // And how each figure moves while the object is not read again: its
    // value a second and an hour on. Figures take the time and project
    // their fields themselves (Reading::countdownAt, ageAt), so the
    // projected reading serves for both: no copy per time.
    constexpr qint64 Second = 1000, Hour = 3600 * 1000;
    for (int f = 0; f < e->figures; ++f) {
        const Figure &figure = figures.at(f);
        const double v = figure.value(r, from);
        qint8 &slope = e->slopes[f];
        if (!Internal::slopeOf(v, figure.value(r, from + Second), figure.value(r, from + Hour),
                               &slope)) {
            slope = 0;
            e->values[f] = from == atMs ? v : figure.value(r, atMs);
            *moves = true;
        } else if (slope < 0 && v > 0) {
            e->values[f] = v + ahead; // it counted down from there
        } else if (slope > 0 && v >= ahead) {
            e->values[f] = v - ahead; // it grew to here
        } else {
            e->values[f] = v; // flat (or an age younger than `ahead`: its value now)
        }
    }
}

} // namespace

void HistoryTick::entryOf(const ObjectState &state, qint64 atMs, Entry *entry, bool *moves)
{
    FigureCache cache;
    fillEntry(state, cache.of(state.object->kind), atMs, entry, moves);
}

HistoryTick HistoryTick::fromSnapshot(const Snapshot &snapshot)
{
    HistoryTick tick;
    tick.atMs = snapshot.server.timeMs;
    tick.entries.reserve(snapshot.objects.size());
    FigureCache cache;
    for (const ObjectState &s : snapshot.objects) {
        if (s.stale || s.gone)
            continue; // history holds readings, not gaps
        Entry e;
        bool moves = false;
        fillEntry(s, cache.of(s.object->kind), tick.atMs, &e, &moves);
        tick.entries.append(std::move(e));
    }
    return tick;
}

QList<QPointF> HistoryRange::points(const QString &figure) const
{
    const qsizetype f = figures.indexOf(figure);
    QList<QPointF> out;
    if (f < 0)
        return out;
    if (f < buckets.size()) {
        const QList<Bucket> &b = buckets.at(f);
        for (qsizetype i = 0; i < bucketTimes.size() && i < b.size(); ++i)
            out.append(QPointF(double(bucketTimes.at(i) + MinuteMs / 2), double(b.at(i).mean)));
    }
    if (f < values.size()) {
        const QList<float> &v = values.at(f);
        for (qsizetype i = 0; i < times.size() && i < v.size(); ++i)
            out.append(QPointF(double(times.at(i)), double(v.at(i))));
    }
    return out;
}

HistoryStore::HistoryStore(QString path, Options options, QObject *parent)
    : QObject(parent)
    , m_path(std::move(path))
    , m_thread(new QThread)
    , m_writer(new HistoryWriter(m_path, options, &m_needFull))
{
    m_thread->setObjectName(QStringLiteral("history"));
    m_writer->moveToThread(m_thread);
    connect(m_writer, &HistoryWriter::problem, this, &HistoryStore::problem);
    connect(m_writer, &HistoryWriter::opened, this, &HistoryStore::opened);
    m_thread->start(QThread::LowPriority);
}

HistoryStore::~HistoryStore()
{
    // The writer is closed on its own thread (its connection lives there).
    HistoryWriter *writer = m_writer;
    QMetaObject::invokeMethod(
        writer, [writer] { delete writer; }, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
}

QString HistoryStore::defaultDirectory()
{
    const QString env = qEnvironmentVariable("GATEHOUSE_HISTORY_DIR");
    if (!env.isEmpty())
        return env;
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
           + QStringLiteral("/history");
}

QString HistoryStore::fileFor(const RedisEndpoint &endpoint, const QString &dir)
{
    // No password; the user name stays (another user may see other keys).
    // Everything but letters, digits, '.' and '-' becomes '_'.
    QString name;
    switch (endpoint.transport) {
    case RedisEndpoint::Transport::Unix:
        name = QStringLiteral("unix_") + endpoint.socketPath;
        break;
    case RedisEndpoint::Transport::Tls:
    case RedisEndpoint::Transport::Tcp:
        name = (endpoint.transport == RedisEndpoint::Transport::Tls ? QStringLiteral("rediss_")
                                                                    : QStringLiteral("redis_"))
               + (endpoint.user.isEmpty() ? QString() : endpoint.user + QLatin1Char('_'))
               + endpoint.address();
        break;
    }
    name += QStringLiteral("_db%1").arg(endpoint.db);
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9.-]+")), QStringLiteral("_"));
    return QDir(dir).filePath(name.right(180) + QStringLiteral(".sqlite"));
}

void HistoryStore::open()
{
    QMetaObject::invokeMethod(m_writer, &HistoryWriter::open, Qt::QueuedConnection);
}

void HistoryStore::append(const Snapshot &snapshot)
{
    feed(snapshot, nullptr);
}

void HistoryStore::append(const Snapshot &snapshot, const Replaced &replaced)
{
    feed(snapshot, &replaced);
}

void HistoryStore::feed(const Snapshot &snapshot, const Replaced *replaced)
{
    HistoryTick tick;
    tick.atMs = snapshot.server.timeMs;
    {
        std::lock_guard<std::mutex> lock(m_feedMutex);
        const ObjectList &current = snapshot.objects;
        const qint64 at = tick.atMs;
        FigureCache cache;
        QList<qint32> moving; // ascending
        qsizetype compared = 0;
        bool full
            = m_needFull.exchange(false) || !m_previous || m_previous->size() != current.size();
        // The places to compare: every one, or what the monitor says it
        // replaced since the last append and the states re-sent every tick.
        QList<int> places;
        const bool listed = !full && replaced && replaced->source != 0 && !replaced->all
                            && replaced->source == m_previousSource
                            && replaced->sinceSequence == m_previousSequence
                            && replaced->sequence == snapshot.sequence;
        if (listed) {
            places.reserve(replaced->indices.size() + m_moving.size());
            places += replaced->indices;
            places += m_moving;
            std::sort(places.begin(), places.end());
            places.erase(std::unique(places.begin(), places.end()), places.end());
            if (!places.isEmpty() && (places.first() < 0 || places.last() >= current.size()))
                full = true; // not this snapshot's places
        }
        if (!full) {
            // The monitor replaces an object's state when it reads it again
            // (or marks it stale or gone) and shares the rest with the last
            // snapshot: an unchanged pointer is an object whose figures
            // moved only as their motions say. One comparison per object,
            // or per object listed.
            const ObjectList &previous = *m_previous;
            if (!m_lastFeed.full) // about as many as last time
                tick.entries.reserve(m_lastFeed.entries);
            // Walking every place, the places re-sent every tick (ascending,
            // as the loops made them) are walked along with it.
            qsizetype nextMoving = 0;
            const qsizetype n = listed ? places.size() : current.size();
            for (qsizetype k = 0; k < n; ++k) {
                const qsizetype i = listed ? places.at(k) : k;
                ++compared;
                const ObjectList::Ptr &state = current.ptr(i);
                // A listed place was replaced or is re-sent: an entry either
                // way, and the same object's (the monitor lists every place
                // when objects move), so its last state is not read. Walking
                // every place, a replaced state may be another object's
                // (objects came or went).
                if (!listed) {
                    while (nextMoving < m_moving.size() && m_moving.at(nextMoving) < i)
                        ++nextMoving;
                    const bool wasMoving
                        = nextMoving < m_moving.size() && m_moving.at(nextMoving) == i;
                    const ObjectState &was = previous.at(i);
                    if (state.get() == &was && !wasMoving)
                        continue;
                    // A state read again shares its key's bytes with the last one.
                    if ((was.object->key.constData() != state->object->key.constData()
                         && was.object->key != state->object->key)
                        || !(was.object->kind == state->object->kind)) {
                        full = true; // a full tick: the writer compares
                        break;
                    }
                }
                HistoryTick::Entry e;
                bool moves = false;
                fillEntry(*state, cache.of(state->object->kind), at, &e, &moves);
                e.at = qint32(i);
                if (moves)
                    moving.append(qint32(i));
                tick.entries.append(std::move(e));
            }
        }
        if (full) {
            tick.entries.clear();
            moving.clear();
            compared = current.size();
            tick.entries.reserve(current.size());
            for (qsizetype i = 0; i < current.size(); ++i) {
                const ObjectState &state = current.at(i);
                if (state.stale || state.gone)
                    continue;
                HistoryTick::Entry e;
                bool moves = false;
                fillEntry(state, cache.of(state.object->kind), at, &e, &moves);
                e.at = qint32(i);
                if (moves)
                    moving.append(qint32(i));
                tick.entries.append(std::move(e));
            }
        }
        tick.full = full;
        m_previous = std::make_unique<ObjectList>(current);
        m_previousSource = replaced ? replaced->source : 0;
        m_previousSequence = snapshot.sequence;
        m_moving = std::move(moving);
        m_lastFeed = {tick.entries.size(), full, compared};
    }
    append(std::move(tick));
}

HistoryStore::FeedStats HistoryStore::lastFeed() const
{
    std::lock_guard<std::mutex> lock(m_feedMutex);
    return m_lastFeed;
}

void HistoryStore::append(HistoryTick tick)
{
    HistoryWriter *writer = m_writer;
    QMetaObject::invokeMethod(
        writer, [writer, tick = std::move(tick)]() mutable { writer->enqueue(std::move(tick)); },
        Qt::QueuedConnection);
}

void HistoryStore::registerObjects(const QList<PatternObject> &objects)
{
    QList<std::pair<QByteArray, PatternKind>> keys;
    keys.reserve(objects.size());
    for (const PatternObject &o : objects)
        keys.append({o.key, o.kind});
    HistoryWriter *writer = m_writer;
    QMetaObject::invokeMethod(
        writer, [writer, keys = std::move(keys)] { writer->registerObjects(keys); },
        Qt::QueuedConnection);
}

void HistoryStore::recordEvent(qint64 atMs, const QByteArray &key, const QString &kind,
                               const QString &text)
{
    HistoryWriter *writer = m_writer;
    HistoryEvent e{atMs, key, kind, text};
    QMetaObject::invokeMethod(
        writer, [writer, e]() { writer->enqueueEvent(e); }, Qt::QueuedConnection);
}

void HistoryStore::flush()
{
    QMetaObject::invokeMethod(m_writer, &HistoryWriter::flushAll, Qt::BlockingQueuedConnection);
}

namespace {

// The ticks' times and flags, over which format 2 replays an object's
// records (TimedRecords).
using TickTimes = std::vector<std::pair<qint64, uchar>>; // time, flags

// The lowest and highest value of a table's column; false when it has none.
// MIN and MAX in separate statements: each alone is one seek to an end
// of the key; together SQLite scans the table.
bool bounds(QSqlQuery &q, const QString &column, const QString &table, qint64 *lo, qint64 *hi)
{
    for (const auto &[fn, out] :
         {std::pair{QStringLiteral("MIN"), lo}, std::pair{QStringLiteral("MAX"), hi}}) {
        if (!q.exec(QStringLiteral("SELECT %1(%2) FROM %3").arg(fn, column, table)) || !q.next()
            || q.value(0).isNull())
            return false;
        *out = q.value(0).toLongLong();
        q.finish();
    }
    return true;
}

// One sample of every figure at t: valueAt(figure).
template<typename ValueAt>
void addSample(HistoryRange *range, qint64 t, const ValueAt &valueAt)
{
    const qsizetype figureCount = range->figures.size();
    range->times.append(t);
    for (qsizetype f = 0; f < figureCount; ++f)
        range->values[f].append(valueAt(f));
}

// Point lookups over the populated part of the range: the keys lead
// with time, so one object's rows are one seek each.
void readBuckets(QSqlQuery &q, const ReadConnection &connection, quint32 id, qint64 sinceMs,
                 qint64 untilMs, HistoryRange *range)
{
    qint64 lo = 0, hi = 0;
    if (!bounds(q, QStringLiteral("hour"), QStringLiteral("buckets"), &lo, &hi))
        return;
    const qsizetype figureCount = range->figures.size();
    const qint64 first = std::max(lo, floorDiv(sinceMs, HourMs));
    const qint64 last = std::min(hi, floorDiv(untilMs, HourMs));
    QSqlQuery b(connection.db());
    b.setForwardOnly(true);
    b.prepare(QStringLiteral("SELECT data FROM buckets WHERE hour = ? AND object = ?"));
    HourBuckets h;
    for (qint64 hour = first; hour <= last; ++hour) {
        b.bindValue(0, hour);
        b.bindValue(1, id);
        if (!b.exec() || !b.next())
            continue;
        if (!decodeHour(b.value(0).toByteArray(), &h))
            continue;
        for (qsizetype i = 0; i < h.minutes.size(); ++i) {
            const qint64 t = h.minutes.at(i);
            if (t + MinuteMs <= sinceMs || t > untilMs)
                continue;
            range->bucketTimes.append(t);
            for (qsizetype f = 0; f < figureCount; ++f)
                range->buckets[f].append(f < h.buckets.size() ? h.buckets.at(f).value(i)
                                                              : Bucket());
        }
    }
}

// Format 1: every figure every tick, by minute and then from `recent`.
void readFormat1(QSqlQuery &q, const ReadConnection &connection, quint32 id, qint64 sinceMs,
                 qint64 untilMs, HistoryRange *range)
{
    qint64 lo = 0, hi = 0;
    if (bounds(q, QStringLiteral("minute"), QStringLiteral("samples"), &lo, &hi)) {
        const qint64 first = std::max(lo, floorDiv(sinceMs, MinuteMs));
        const qint64 last = std::min(hi, floorDiv(untilMs, MinuteMs));
        QSqlQuery s(connection.db());
        s.setForwardOnly(true);
        s.prepare(QStringLiteral("SELECT data FROM samples WHERE minute = ? AND object = ?"));
        MinuteSamples m;
        for (qint64 minute = first; minute <= last; ++minute) {
            s.bindValue(0, minute);
            s.bindValue(1, id);
            if (!s.exec() || !s.next())
                continue;
            if (!decodeMinute(s.value(0).toByteArray(), &m))
                continue;
            for (qsizetype i = 0; i < m.times.size(); ++i) {
                const qint64 t = m.times.at(i);
                if (t < sinceMs || t > untilMs)
                    continue;
                addSample(range, t, [&](qsizetype f) {
                    return f < m.values.size() ? m.values.at(f).value(i) : 0.0f;
                });
            }
        }
    }
    q.prepare(QStringLiteral("SELECT t, data FROM recent WHERE t >= ? AND t <= ? ORDER BY t"));
    q.addBindValue(sinceMs);
    q.addBindValue(untilMs);
    if (q.exec()) {
        QList<float> v;
        while (q.next()) {
            if (!tickValues(q.value(1).toByteArray(), id, &v))
                continue;
            addSample(range, q.value(0).toLongLong(), [&](qsizetype f) { return v.value(f); });
        }
    }
}

// Format 2, the minutes folded: the ticks' times and flags (object 0's rows)
// and the object's records.
void readFoldedChanges(QSqlQuery &q, const ReadConnection &connection, quint32 id, qint64 fromMs,
                       qint64 untilMs, TickTimes *ticks, TimedRecords *records)
{
    qint64 lo = 0, hi = 0;
    if (!bounds(q, QStringLiteral("minute"), QStringLiteral("samples"), &lo, &hi))
        return;
    const qint64 first = std::max(lo, floorDiv(fromMs, MinuteMs));
    const qint64 last = std::min(hi, floorDiv(untilMs, MinuteMs));
    QSqlQuery s(connection.db());
    s.setForwardOnly(true);
    // One range scan each on the index (object, minute): the table's
    // own key leads with the minute and would visit every object's row.
    s.prepare(QStringLiteral("SELECT minute, data FROM samples INDEXED BY samples_object "
                             "WHERE object = ? AND minute >= ? AND minute <= ? ORDER BY "
                             "minute"));
    MinuteTicks m;
    QList<ChangeRecord> list;
    for (const quint32 object : {quint32(0), id}) {
        s.bindValue(0, object);
        s.bindValue(1, first);
        s.bindValue(2, last);
        if (!s.exec())
            continue;
        while (s.next()) {
            const qint64 minuteStart = s.value(0).toLongLong() * MinuteMs;
            if (object == 0) {
                if (!decodeTicks(s.value(1).toByteArray(), minuteStart, &m))
                    continue;
                for (qsizetype i = 0; i < m.times.size(); ++i)
                    ticks->emplace_back(m.times.at(i), m.flags.at(i));
            } else if (decodeRecords(s.value(1).toByteArray(), &list)) {
                for (const ChangeRecord &r : std::as_const(list))
                    records->emplace_back(minuteStart + qint64(r.head), r);
            }
        }
    }
}

// Format 2, the ticks in `recent` and the object's records from them and
// from the full ticks (`keyframes`).
void readRecentChanges(QSqlQuery &q, quint32 id, qint64 fromMs, qint64 untilMs, TickTimes *ticks,
                       TimedRecords *records)
{
    // The minutes not folded yet: a row per tick with every change of it.
    q.prepare(QStringLiteral("SELECT t, data FROM recent WHERE t >= ? AND t <= ? ORDER BY t"));
    q.addBindValue(fromMs);
    q.addBindValue(untilMs);
    if (q.exec()) {
        ChangeRecord r;
        while (q.next()) {
            const qint64 t = q.value(0).toLongLong();
            const QByteArray blob = q.value(1).toByteArray();
            if (blob.isEmpty())
                continue;
            ticks->emplace_back(t, uchar(blob.at(0)));
            const uchar *p = reinterpret_cast<const uchar *>(blob.constData()) + 1;
            const uchar *end = reinterpret_cast<const uchar *>(blob.constData()) + blob.size();
            while (p < end && getRecord(&p, end, &r)) {
                if (r.head == id)
                    records->emplace_back(t, r);
            }
        }
    }
    // The full ticks' records of the object (one binary search each).
    q.prepare(QStringLiteral("SELECT t, data FROM keyframes WHERE t >= ? AND t <= ? ORDER BY t"));
    q.addBindValue(fromMs);
    q.addBindValue(untilMs);
    if (q.exec()) {
        ChangeRecord r;
        while (q.next()) {
            if (keyframeRecord(q.value(1).toByteArray(), id, &r))
                records->emplace_back(q.value(0).toLongLong(), r);
        }
    }
}

// Format 2: the object's records from the full tick that starts its
// hour (every hour's first tick lists every present object), replayed
// over the tick times of the range.
void readFormat2(QSqlQuery &q, const ReadConnection &connection, quint32 id, qint64 sinceMs,
                 qint64 untilMs, HistoryRange *range)
{
    const qint64 fromMs = floorDiv(sinceMs, HourMs) * HourMs;
    TickTimes ticks;
    TimedRecords records;
    readFoldedChanges(q, connection, id, fromMs, untilMs, &ticks, &records);
    readRecentChanges(q, id, fromMs, untilMs, &ticks, &records);
    std::stable_sort(records.begin(), records.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    SeriesState state;
    size_t next = 0;
    for (const auto &[t, flags] : ticks) {
        if (flags & FullTick)
            state.present = false;
        while (next < records.size() && records[next].first <= t) {
            state.apply(records[next].second, records[next].first);
            ++next;
        }
        if (!state.present || t < sinceMs || t > untilMs)
            continue;
        const qint64 at = t; // a structured binding is not captured before C++20
        addSample(range, at, [&state, at](qsizetype f) { return state.valueAt(int(f), at); });
    }
}

} // namespace

std::optional<HistoryRange> HistoryStore::read(const QString &path, const QByteArray &key,
                                               qint64 sinceMs, qint64 untilMs, QString *error)
{
    if (!QFileInfo::exists(path)) {
        *error = QStringLiteral("There is no history file %1.").arg(path);
        return std::nullopt;
    }
    ReadConnection connection(path);
    if (!connection.isOpen()) {
        *error = cannotRead(path, connection.error());
        return std::nullopt;
    }
    QSqlQuery q(connection.db());
    q.setForwardOnly(true);
    HistoryRange range;
    range.key = key;
    // A statement that cannot be prepared says why here, not at exec()
    // ("Parameter count mismatch").
    if (!q.prepare(QStringLiteral("SELECT id, pattern, figures FROM objects WHERE key = ? ORDER "
                                  "BY id DESC LIMIT 1"))) {
        *error = cannotRead(path, q.lastError().text());
        return std::nullopt;
    }
    q.addBindValue(key);
    if (!q.exec()) {
        *error = cannotRead(path, q.lastError().text());
        return std::nullopt;
    }
    if (!q.next())
        return range; // no history for the key
    const quint32 id = q.value(0).toUInt();
    range.pattern = q.value(1).toString();
    range.figures = q.value(2).toString().split(QLatin1Char(','), Qt::SkipEmptyParts);
    q.finish();
    // Format 1 (every figure every tick) is still read: a file set aside
    // by the writer stays readable.
    bool format1 = false;
    {
        QSqlQuery f(connection.db());
        if (f.exec(QStringLiteral("SELECT value FROM meta WHERE name = 'format'")) && f.next())
            format1 = f.value(0).toString() == QLatin1String("1");
    }
    const qsizetype figureCount = range.figures.size();
    range.values.resize(figureCount);
    range.buckets.resize(figureCount);
    q.finish();

    readBuckets(q, connection, id, sinceMs, untilMs, &range);
    if (format1)
        readFormat1(q, connection, id, sinceMs, untilMs, &range);
    else
        readFormat2(q, connection, id, sinceMs, untilMs, &range);
    return range;
}

std::optional<QList<HistoryEvent>> HistoryStore::readEvents(const QString &path, qint64 sinceMs,
                                                            qint64 untilMs, const QByteArray &key,
                                                            int limit, QString *error)
{
    if (!QFileInfo::exists(path)) {
        *error = QStringLiteral("There is no history file %1.").arg(path);
        return std::nullopt;
    }
    ReadConnection connection(path);
    if (!connection.isOpen()) {
        *error = cannotRead(path, connection.error());
        return std::nullopt;
    }
    QSqlQuery q(connection.db());
    q.setForwardOnly(true);
    if (!q.prepare(QStringLiteral("SELECT at, key, kind, text FROM events WHERE at >= ? AND at <= "
                                  "? AND (? OR key = ?) ORDER BY at, id LIMIT ?"))) {
        *error = cannotRead(path, q.lastError().text());
        return std::nullopt;
    }
    q.addBindValue(sinceMs);
    q.addBindValue(untilMs);
    q.addBindValue(key.isEmpty());
    q.addBindValue(key);
    q.addBindValue(limit);
    if (!q.exec()) {
        *error = cannotRead(path, q.lastError().text());
        return std::nullopt;
    }
    QList<HistoryEvent> events;
    while (q.next())
        events.append({q.value(0).toLongLong(), q.value(1).toByteArray(), q.value(2).toString(),
                       q.value(3).toString()});
    return events;
}

} // namespace gatehouse
