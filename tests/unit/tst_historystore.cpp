// SPDX-License-Identifier: MIT
// The history database (backend/history): scale, downsampling, the size cap,
// a killed writer, corrupt and locked files.
#include <history/historystore.h>
#include <monitor/snapshot.h>
#include <patterns/limiterdata.h>
#include <patterns/lock/lockdata.h>
#include <patterns/patternregistry.h>

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <QUuid>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <limits>

#include <sys/resource.h>

using namespace gatehouse;

namespace {

const PatternKind s_limiter{"sliding-window"};
constexpr qint64 MinuteMs = 60 * 1000;
constexpr qint64 HourMs = 3600 * 1000;
// A Monday 00:00:00 UTC, server ms: hours and minutes start on it.
constexpr qint64 T0 = 1763942400000LL;

QByteArray keyOf(int i)
{
    return "rl:api:" + QByteArray::number(i);
}

qint64 cpuMs()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return qint64(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000
           + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000;
}

qint64 fileBytes(const QString &path)
{
    return QFileInfo(path).size() + QFileInfo(path + QStringLiteral("-wal")).size();
}

// A limiter's three figures (in window, occupancy, retry horizon) for
// object i at tick t: a random walk, as a busy limiter's counts move.
struct Walk
{
    QList<int> inWindow;
    QRandomGenerator rng{42};
    explicit Walk(int n)
        : inWindow(n, 50)
    {}
    HistoryTick tick(qint64 atMs, int objects)
    {
        HistoryTick t;
        t.atMs = atMs;
        t.entries.resize(objects);
        for (int i = 0; i < objects; ++i) {
            int &w = inWindow[i];
            const quint32 r = rng.generate();
            if (r % 3 == 0)
                w = std::clamp(w + (r & 8 ? 1 : -1), 0, 100);
            HistoryTick::Entry &e = t.entries[i];
            e.key = keyOf(i);
            e.kind = s_limiter;
            e.figures = 3;
            e.values[0] = float(w);
            e.values[1] = float(w) / 100.0f;
            e.values[2] = w >= 95 ? float(1000 * (w - 94)) : 0.0f;
        }
        return t;
    }
};

// Deterministic values for the downsampling test: figure f of object i at t.
float valueAt(int i, int f, qint64 t)
{
    return float((t / 1000) % 97 + i * 10 + f);
}

// The `samples` rows of the object keyed key (-1: the query failed).
int sampleRows(QSqlQuery &q, const QByteArray &key)
{
    q.prepare(QStringLiteral("SELECT COUNT(*) FROM samples WHERE object = (SELECT "
                             "id FROM objects WHERE key = ?)"));
    q.addBindValue(key);
    return q.exec() && q.next() ? q.value(0).toInt() : -1;
}

} // namespace

class tst_HistoryStore : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")),
                 "Qt's SQLite driver is missing: run .ci/install-deps (Debian libqt6sql6-sqlite).");
        QVERIFY(PatternRegistry::instance().find(s_limiter) != nullptr);
    }

    // --history-full, --history-keep, --history-cap as an operator writes them.
    void optionsFromText()
    {
        QString error;
        const auto defaults = HistoryStore::Options::fromText({}, {}, {}, &error);
        QVERIFY(defaults);
        QCOMPARE(defaults->fullResolutionMs, 24LL * 3600 * 1000);
        QCOMPARE(defaults->bucketRetentionMs, 30LL * 24 * 3600 * 1000);
        QCOMPARE(defaults->capBytes, 1024LL * 1024 * 1024);
        const auto set = HistoryStore::Options::fromText(QStringLiteral("2h"), QStringLiteral("7d"),
                                                         QStringLiteral("500MB"), &error);
        QVERIFY2(set, qPrintable(error));
        QCOMPARE(set->fullResolutionMs, 2LL * 3600 * 1000);
        QCOMPARE(set->bucketRetentionMs, 7LL * 24 * 3600 * 1000);
        QCOMPARE(set->capBytes, 500LL * 1000 * 1000);
        const auto binary = HistoryStore::Options::fromText(QStringLiteral("1d12h"), {},
                                                            QStringLiteral("2GiB"), &error);
        QVERIFY2(binary, qPrintable(error));
        QCOMPARE(binary->fullResolutionMs, 36LL * 3600 * 1000);
        QCOMPARE(binary->capBytes, 2LL * 1024 * 1024 * 1024);
        const struct
        {
            const char *full, *keep, *cap, *says;
        } bad[] = {{"yesterday", "", "", "--history-full \"yesterday\" is not a duration"},
                   {"0h", "", "", "--history-full \"0h\" is not a duration"},
                   {"", "forever", "", "--history-keep \"forever\" is not a duration"},
                   {"48h", "1d", "", "is shorter than --history-full"},
                   {"", "", "lots", "--history-cap \"lots\" is not a size"},
                   {"", "", "10KB", "of at least 1 MB"}};
        for (const auto &b : bad) {
            error.clear();
            QVERIFY(!HistoryStore::Options::fromText(QLatin1String(b.full), QLatin1String(b.keep),
                                                     QLatin1String(b.cap), &error));
            QVERIFY2(error.contains(QLatin1String(b.says)), qPrintable(error));
        }
    }

    void fileNameHasNoSecrets()
    {
        QString error;
        const auto e = RedisEndpoint::fromUrl(
            QStringLiteral("redis://ops:s3cret@cache.internal:6380/2"), &error);
        QVERIFY(e);
        const QString path = HistoryStore::fileFor(*e, QStringLiteral("/tmp/h"));
        QCOMPARE(path, QStringLiteral("/tmp/h/redis_ops_cache.internal_6380_db2.sqlite"));
        QVERIFY(!path.contains(QStringLiteral("s3cret")));
        const auto plain = RedisEndpoint::fromUrl(QStringLiteral("redis://127.0.0.1:6379"), &error);
        QCOMPARE(HistoryStore::fileFor(*plain, QStringLiteral("/d")),
                 QStringLiteral("/d/redis_127.0.0.1_6379_db0.sqlite"));
    }

    // 10,000 limiters, one sample each per second, for an hour of simulated
    // time; then 23 more hours of 100 of them: 24 h of one object read.
    void tenThousandObjectsForAnHour()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("scale.sqlite"));
        HistoryStore::Options options;
        options.maxPendingTicks = 100000; // the test feeds faster than real time
        const qint64 cap = options.capBytes;
        HistoryStore store(path, options);
        QSignalSpy problems(&store, &HistoryStore::problem);
        store.open();
        const int n = 10000;
        Walk walk(n);
        const qint64 cpuBefore = cpuMs();
        QElapsedTimer wall;
        wall.start();
        qint64 makeMs = 0;
        for (int s = 0; s < 3600; ++s) {
            const qint64 before = cpuMs();
            HistoryTick t = walk.tick(T0 + s * 1000LL, n);
            makeMs += cpuMs() - before;
            store.append(std::move(t));
            if (s % 30 == 29)
                store.flush(); // keep the queue short, as real time would
        }
        store.flush();
        const qint64 writeCpu = cpuMs() - cpuBefore - makeMs;
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).value(0).toString()));
        const qint64 bytes = fileBytes(path);
        std::printf("history: 10000 objects x 3600 ticks (3 figures): write CPU %.2f ms per tick "
                    "(wall %lld ms total), file %lld bytes = %.0f bytes per object-hour\n",
                    double(writeCpu) / 3600.0, wall.elapsed(), bytes, double(bytes) / n);
        QVERIFY2(bytes < cap, qPrintable(QString::number(bytes)));

        // One object's hour: every sample, the values written.
        QString error;
        QElapsedTimer timer;
        timer.start();
        auto r = HistoryStore::read(path, keyOf(1234), T0, T0 + HourMs, &error);
        const qint64 hourMs = timer.elapsed();
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->times.size(), 3600);
        QCOMPARE(r->figures, (QStringList{"inWindow", "occupancy", "retryHorizonMs"}));
        QCOMPARE(r->times.first(), T0);
        QCOMPARE(r->times.last(), T0 + 3599 * 1000);
        for (qsizetype i = 0; i < r->times.size(); ++i)
            QCOMPARE(r->values.at(1).at(i), r->values.at(0).at(i) / 100.0f);

        // 23 more hours of 100 of them (the object read among them).
        Walk small(100);
        for (int s = 3600; s < 24 * 3600; ++s) {
            store.append(small.tick(T0 + s * 1000LL, 100));
            if (s % 600 == 599)
                store.flush();
        }
        store.flush();
        // The best of three reads: what the chart waits for, without the
        // moments a loaded machine gives the CPU to something else.
        qint64 dayMs = std::numeric_limits<qint64>::max();
        for (int attempt = 0; attempt < 3; ++attempt) {
            timer.restart();
            r = HistoryStore::read(path, keyOf(42), T0, T0 + 24 * HourMs, &error);
            dayMs = std::min(dayMs, timer.elapsed());
            QVERIFY2(r, qPrintable(error));
        }
        QCOMPARE(r->times.size(), 24 * 3600);
        QVERIFY(r->bucketTimes.isEmpty()); // all within the full-resolution 24 h
        std::printf("history: read 1 h of one object in %lld ms, 24 h (86400 samples x 3) in "
                    "%lld ms; file %lld bytes\n",
                    hourMs, dayMs, fileBytes(path));
        QVERIFY2(dayMs < 100, qPrintable(QString::number(dayMs)));
    }

    // The part of a tick on the monitor's thread: the figures of 10,000
    // objects taken from a snapshot.
    void ticksFromASnapshot()
    {
        Snapshot snapshot;
        snapshot.server.timeMs = T0;
        for (int i = 0; i < 10000; ++i) {
            ObjectState s;
            s.object.edit().kind = s_limiter;
            s.object.edit().key = keyOf(i);
            s.reading.atMs = i % 2 ? T0 : T0 - 500; // half kept from an earlier tick
            s.reading.inWindow = i % 100;
            s.reading.limit = 100;
            LimiterData::in(s.reading).windowMs = 10000;
            snapshot.objects.append(s);
        }
        HistoryTick tick = HistoryTick::fromSnapshot(snapshot);
        QCOMPARE(tick.entries.size(), 10000);
        QCOMPARE(tick.entries.at(43).figures, 3);
        QCOMPARE(float(tick.entries.at(43).values[0]), 43.0f);
        QCOMPARE(float(tick.entries.at(43).values[1]), 0.43f);
        QElapsedTimer timer;
        timer.start();
        const qint64 cpu = cpuMs();
        for (int r = 0; r < 20; ++r)
            tick = HistoryTick::fromSnapshot(snapshot);
        std::printf("history: figures of 10000 objects from a snapshot: %.2f ms per tick (CPU "
                    "%.2f ms)\n",
                    double(timer.elapsed()) / 20.0, double(cpuMs() - cpu) / 20.0);
    }

    // An entry's place in the snapshot (Entry::at) finds the id the writer
    // gave the key there last time, the same bytes; another key in that
    // place (objects moved), or equal bytes elsewhere, is looked up by key:
    // every figure lands on its own object.
    void placesHintTheIdsOnly()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("places.sqlite"));
        const QByteArray a = keyOf(1), b = keyOf(2), c = keyOf(3);
        const auto entry = [](const QByteArray &key, qint32 at, double value) {
            HistoryTick::Entry e;
            e.key = key;
            e.kind = s_limiter;
            e.figures = 3;
            e.values[0] = value;
            e.at = at;
            return e;
        };
        {
            HistoryStore store(path, {});
            store.open();
            HistoryTick t1; // a, b, c in places 0, 1, 2
            t1.atMs = T0;
            t1.entries = {entry(a, 0, 10), entry(b, 1, 20), entry(c, 2, 30)};
            store.append(std::move(t1));
            HistoryTick t2; // the same bytes in the same places
            t2.atMs = T0 + 1000;
            t2.full = false;
            t2.entries = {entry(a, 0, 11), entry(b, 1, 21)};
            store.append(std::move(t2));
            HistoryTick t3; // a and b swapped places; c's key as bytes of its own
            t3.atMs = T0 + 2000;
            t3.entries
                = {entry(b, 0, 22), entry(a, 1, 12), entry(QByteArray(c.constData()), 2, 32)};
            store.append(std::move(t3));
            HistoryTick t4; // and back
            t4.atMs = T0 + 3000;
            t4.full = false;
            t4.entries = {entry(a, 0, 13), entry(b, 1, 23), entry(c, 2, 33)};
            store.append(std::move(t4));
            store.flush();
        }
        const QList<std::pair<QByteArray, QList<float>>> expected{
            {a, {10, 11, 12, 13}}, {b, {20, 21, 22, 23}}, {c, {30, 30, 32, 33}}};
        for (const auto &[key, values] : expected) {
            QString error;
            const auto r = HistoryStore::read(path, key, T0, T0 + 3000, &error);
            QVERIFY2(r, qPrintable(error));
            QCOMPARE(r->times, (QList<qint64>{T0, T0 + 1000, T0 + 2000, T0 + 3000}));
            QCOMPARE(r->values.at(0), values);
        }
    }

    // Full resolution while an hour's end is younger than fullResolutionMs,
    // then one-minute buckets until bucketRetentionMs, then nothing.
    void downsamplingBoundaries()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("down.sqlite"));
        HistoryStore::Options options;
        options.fullResolutionMs = HourMs;
        options.bucketRetentionMs = 3 * HourMs;
        options.maxPendingTicks = 100000;
        const int n = 5;
        const qint64 end = T0 + 5 * HourMs + 30 * MinuteMs; // the last tick: 05:30
        {
            HistoryStore store(path, options);
            store.open();
            for (qint64 t = T0; t <= end; t += 1000) {
                HistoryTick tick;
                tick.atMs = t;
                for (int i = 0; i < n; ++i) {
                    HistoryTick::Entry e;
                    e.key = keyOf(i);
                    e.kind = s_limiter;
                    e.figures = 3;
                    for (int f = 0; f < 3; ++f)
                        e.values[f] = valueAt(i, f, t);
                    tick.entries.append(e);
                }
                store.append(std::move(tick));
                if ((t / 1000) % 600 == 0)
                    store.flush();
            }
            store.flush();
        }
        // latest 05:30: hours ending by 04:30 are bucketed (00:00-03:59, as
        // whole hours: 03:00-04:00 ends at 04:00 <= 04:30), hours ending by
        // 02:30 are dropped (00:00-01:59).
        QString error;
        const auto r = HistoryStore::read(path, keyOf(3), T0, end, &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->bucketTimes.size(), 2 * 60);
        QCOMPARE(r->bucketTimes.first(), T0 + 2 * HourMs);
        QCOMPARE(r->bucketTimes.last(), T0 + 4 * HourMs - MinuteMs);
        QCOMPARE(r->times.first(), T0 + 4 * HourMs);
        QCOMPARE(r->times.last(), end);
        QCOMPARE(r->times.size(), qsizetype((end - (T0 + 4 * HourMs)) / 1000 + 1));
        // A bucket holds its minute's min, max, mean and last exactly.
        const qint64 minute = T0 + 3 * HourMs + 17 * MinuteMs;
        const qsizetype b = r->bucketTimes.indexOf(minute);
        QVERIFY(b >= 0);
        for (int f = 0; f < 3; ++f) {
            float mn = 1e9f, mx = -1e9f;
            double sum = 0;
            for (qint64 t = minute; t < minute + MinuteMs; t += 1000) {
                const float v = valueAt(3, f, t);
                mn = std::min(mn, v);
                mx = std::max(mx, v);
                sum += v;
            }
            const Internal::Bucket &got = r->buckets.at(f).at(b);
            QCOMPARE(got.min, mn);
            QCOMPARE(got.max, mx);
            QCOMPARE(got.mean, float(sum / 60));
            QCOMPARE(got.last, valueAt(3, f, minute + MinuteMs - 1000));
        }
        // Samples are exact, through the codec.
        QCOMPARE(r->values.at(2).last(), valueAt(3, 2, end));
        // A chart's points: the buckets' means, then the samples.
        const QList<QPointF> points = r->points(QStringLiteral("occupancy"));
        QCOMPARE(points.size(), r->bucketTimes.size() + r->times.size());
        QCOMPARE(points.last().x(), double(end));
    }

    // The cap holds: the oldest data goes first, the newest stays.
    void capEnforcedOldestFirst()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("cap.sqlite"));
        HistoryStore::Options options;
        options.capBytes = 6 * 1024 * 1024;
        options.fullResolutionMs = HourMs;
        options.maxPendingTicks = 100000;
        const int n = 300;
        const qint64 end = T0 + 4 * HourMs;
        {
            HistoryStore store(path, options);
            store.open();
            QRandomGenerator rng(7);
            for (qint64 t = T0; t <= end; t += 1000) {
                HistoryTick tick;
                tick.atMs = t;
                tick.entries.resize(n);
                for (int i = 0; i < n; ++i) {
                    HistoryTick::Entry &e = tick.entries[i];
                    e.key = keyOf(i);
                    e.kind = s_limiter;
                    e.figures = 3;
                    for (int f = 0; f < 3; ++f)
                        e.values[f] = float(rng.bounded(1000000)); // incompressible
                }
                store.append(std::move(tick));
                if ((t / 1000) % 300 == 0) {
                    store.flush();
                    QVERIFY2(fileBytes(path) <= options.capBytes,
                             qPrintable(QString::number(fileBytes(path))));
                }
            }
            store.flush();
        }
        const qint64 bytes = fileBytes(path);
        QVERIFY2(bytes <= options.capBytes, qPrintable(QString::number(bytes)));
        QString error;
        const auto r = HistoryStore::read(path, keyOf(7), T0, end, &error);
        QVERIFY2(r, qPrintable(error));
        QVERIFY(!r->times.isEmpty());
        QCOMPARE(r->times.last(), end); // the newest kept
        QVERIFY(r->bucketTimes.isEmpty() || r->bucketTimes.first() > T0);
        QVERIFY(r->times.first() > T0 + HourMs); // the oldest gone
        std::printf("history: cap %lld bytes held (%lld); kept from %+lld min\n", options.capBytes,
                    bytes,
                    ((r->bucketTimes.isEmpty() ? r->times.first() : r->bucketTimes.first()) - T0)
                        / MinuteMs);
    }

    // Format 2: an object the monitor did not read again costs nothing per
    // tick, on the caller's thread (no entry) and in the file (no row); the
    // reader gives what format 1 gave (HistoryTick::fromSnapshot's values,
    // every tick), a lock's TTL counting down included.
    void idleObjectsWriteNothing()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("idle.sqlite"));
        HistoryStore::Options options;
        options.maxPendingTicks = 100000;
        HistoryStore store(path, options);
        QSignalSpy problems(&store, &HistoryStore::problem);
        store.open();
        const PatternKind lock{"lock"};
        Snapshot snapshot;
        for (int i = 0; i < 100; ++i) {
            ObjectState s;
            s.object.edit().kind = s_limiter;
            s.object.edit().key = "rl:idle:" + QByteArray::number(i);
            s.reading.atMs = T0 - 300;
            s.reading.inWindow = i;
            s.reading.limit = 100;
            LimiterData::in(s.reading).windowMs = 60000;
            LimiterData::in(s.reading).retryHorizonMs
                = i == 5 ? 20000 : 0; // counts down to 0, then stays
            snapshot.objects.append(s);
            ObjectState l;
            l.object.edit().kind = lock;
            l.object.edit().key = "lock:idle:" + QByteArray::number(i);
            l.reading.atMs = T0 - 700;
            LockData::in(l.reading).token = "holder";
            l.reading.pttlMs = i == 4 ? 50000 : 600000 + i; // lock 4 expires mid-run
            snapshot.objects.append(l);
        }
        const auto indexOf = [&](const QByteArray &key) {
            for (qsizetype i = 0; i < snapshot.objects.size(); ++i) {
                if (snapshot.objects.at(i).object->key == key)
                    return i;
            }
            return qsizetype(-1);
        };
        const QList<QByteArray> watched
            = {"rl:idle:7", "rl:idle:8", "rl:idle:5", "lock:idle:3", "lock:idle:4"};
        QHash<QByteArray, QList<QList<float>>> expected; // key -> [figure][tick], format 1's
        for (int k = 0; k < 180; ++k) {
            const qint64 t = T0 + 1000LL * k + (k * 37) % 200; // ticks are not on the second
            snapshot.server.timeMs = t;
            QList<ObjectList::Ptr> states;
            if (k == 90 || k == 120) {
                // 01:30: limiter 7 read again with a new count; 02:00: lock 3
                // read again, its TTL where the countdown had it (no change).
                ObjectList replaced;
                for (qsizetype i = 0; i < snapshot.objects.size(); ++i) {
                    ObjectState s = snapshot.objects.at(i);
                    if (k == 90 && s.object->key == "rl:idle:7") {
                        s.reading.atMs = t;
                        s.reading.inWindow = 60;
                    } else if (k == 120 && s.object->key == "lock:idle:3") {
                        s.reading.pttlMs = s.reading.countdownAt(s.reading.pttlMs, t);
                        s.reading.atMs = t;
                    } else {
                        replaced.append(snapshot.objects.ptr(i));
                        continue;
                    }
                    replaced.append(s);
                }
                snapshot.objects = replaced;
            }
            store.append(snapshot);
            const HistoryStore::FeedStats feed = store.lastFeed();
            if (k == 0) {
                QVERIFY(feed.full);
            } else {
                QVERIFY2(!feed.full, qPrintable(QString::number(k)));
                QCOMPARE(feed.entries, qsizetype(k == 90 || k == 120 ? 1 : 0));
            }
            const HistoryTick old = HistoryTick::fromSnapshot(snapshot);
            for (const QByteArray &key : watched) {
                const HistoryTick::Entry &e = old.entries.at(indexOf(key));
                QList<QList<float>> &series = expected[key];
                series.resize(e.figures);
                for (int f = 0; f < e.figures; ++f)
                    series[f].append(float(e.values[f]));
            }
        }
        store.flush();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).value(0).toString()));
        // Rows: every object's record of the first (full) tick is in that
        // tick's one `keyframes` row; only limiter 7 has a row of its own,
        // in minute 1. Minute 2 is still in `recent`: a byte per tick (its
        // flags), nothing else.
        {
            const QString name = QUuid::createUuid().toString();
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(path);
                QVERIFY(db.open());
                QSqlQuery q(db);
                QCOMPARE(sampleRows(q, "rl:idle:8"), 0);
                QCOMPARE(sampleRows(q, "lock:idle:3"), 0); // read again, nothing new
                QCOMPARE(sampleRows(q, "rl:idle:5"), 0);   // a countdown reaching 0
                QCOMPARE(sampleRows(q, "lock:idle:4"), 0);
                QCOMPARE(sampleRows(q, "rl:idle:7"), 1);
                QVERIFY(q.exec(QStringLiteral("SELECT COUNT(*) FROM keyframes")));
                QVERIFY(q.next());
                QCOMPARE(q.value(0).toInt(), 1);
                QVERIFY(q.exec(QStringLiteral("SELECT COUNT(*), MAX(LENGTH(data)) FROM recent")));
                QVERIFY(q.next());
                QCOMPARE(q.value(0).toInt(), 60);
                QCOMPARE(q.value(1).toInt(), 1);
                QVERIFY(q.exec(QStringLiteral("SELECT COUNT(*) FROM samples WHERE minute = %1")
                                   .arg(T0 / MinuteMs + 1)));
                QVERIFY(q.next());
                QCOMPARE(q.value(0).toInt(), 2); // the minute's ticks, and limiter 7
            }
            QSqlDatabase::removeDatabase(name);
        }
        for (const QByteArray &key : watched) {
            QString error;
            const auto r = HistoryStore::read(path, key, T0, T0 + 180 * 1000, &error);
            QVERIFY2(r, qPrintable(error));
            QCOMPARE(r->times.size(), 180);
            const QList<QList<float>> &want = expected.value(key);
            for (qsizetype f = 0; f < want.size(); ++f) {
                for (qsizetype i = 0; i < 180; ++i) {
                    if (std::isnan(want[f][i]) && std::isnan(r->values.at(f).at(i)))
                        continue;
                    QVERIFY2(r->values.at(f).at(i) == want[f][i],
                             qPrintable(QStringLiteral("%1 figure %2 tick %3: %4, not %5")
                                            .arg(QString::fromLatin1(key))
                                            .arg(f)
                                            .arg(i)
                                            .arg(r->values.at(f).at(i))
                                            .arg(want[f][i])));
                }
            }
        }
        // The countdowns as an operator sees them: lock 4 reached 0 and
        // stayed; limiter 7 read 60 in window from 01:30 on.
        QString error;
        const auto lock4 = HistoryStore::read(path, "lock:idle:4", T0, T0 + 180 * 1000, &error);
        QCOMPARE(lock4->values.at(0).last(), 0.0f);
        QCOMPARE(lock4->values.at(0).at(10), float(50000 - 700 - 10000 - (10 * 37) % 200));
        const auto rl7 = HistoryStore::read(path, "rl:idle:7", T0, T0 + 180 * 1000, &error);
        QCOMPARE(rl7->values.at(0).at(89), 7.0f);
        QCOMPARE(rl7->values.at(0).at(90), 60.0f);
        QCOMPARE(rl7->times.at(90), T0 + 90000 + (90 * 37) % 200);
    }

    // Budgeted polling sends a tick's batches over its interval, each
    // reading stamped with its own send time, after the tick's (the
    // snapshot's) time. Such a reading is a motion like any other: not sent
    // again tick after tick, and read back exactly as its countdown goes. A
    // TTL read again a few ms off its countdown (the reply is as of the
    // server's clock) writes nothing; one that moved (extended) does.
    void readingsAfterTheirTick()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("paced.sqlite"));
        HistoryStore::Options options;
        options.maxPendingTicks = 100000;
        HistoryStore store(path, options);
        QSignalSpy problems(&store, &HistoryStore::problem);
        store.open();
        const PatternKind lock{"lock"};
        Snapshot snapshot;
        for (int i = 0; i < 50; ++i) {
            ObjectState l;
            l.object.edit().kind = lock;
            l.object.edit().key = "lock:paced:" + QByteArray::number(i);
            l.reading.atMs = T0 + 20 * i; // read 0-980 ms after the tick
            LockData::in(l.reading).token = "holder";
            l.reading.pttlMs = 600000;
            snapshot.objects.append(l);
        }
        const auto replace = [&](const QByteArray &key, qint64 atMs, qint64 pttlMs) {
            ObjectList replaced;
            for (qsizetype i = 0; i < snapshot.objects.size(); ++i) {
                if (snapshot.objects.at(i).object->key != key) {
                    replaced.append(snapshot.objects.ptr(i));
                    continue;
                }
                ObjectState s = snapshot.objects.at(i);
                s.reading.atMs = atMs;
                s.reading.pttlMs = pttlMs;
                replaced.append(s);
            }
            snapshot.objects = replaced;
        };
        for (int k = 0; k < 150; ++k) { // to minute 2: minute 1 is folded
            const qint64 t = T0 + 1000LL * k;
            snapshot.server.timeMs = t;
            if (k == 60) {
                // Lock 3 read again 300 ms after the tick: its countdown
                // says 600000 - (t + 300 - (T0 + 60)), the server 40 ms less.
                replace("lock:paced:3", t + 300, 600000 - (t + 300 - (T0 + 60)) - 40);
                // Lock 5 was extended: a full TTL again.
                replace("lock:paced:5", t + 300, 600000);
            }
            store.append(snapshot);
            const HistoryStore::FeedStats feed = store.lastFeed();
            if (k == 0)
                QVERIFY(feed.full);
            else
                QCOMPARE(feed.entries, qsizetype(k == 60 ? 2 : 0));
        }
        store.flush();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).value(0).toString()));
        {
            const QString name = QUuid::createUuid().toString();
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(path);
                QVERIFY(db.open());
                QSqlQuery q(db);
                QCOMPARE(sampleRows(q, "lock:paced:0"), 0);
                QCOMPARE(sampleRows(q, "lock:paced:49"), 0);
                QCOMPARE(sampleRows(q, "lock:paced:3"), 0); // within 100 ms of its countdown
                QCOMPARE(sampleRows(q, "lock:paced:5"), 1); // extended, in minute 1
            }
            QSqlDatabase::removeDatabase(name);
        }
        // Every tick reads what the countdown of its reading says at the
        // tick's time: the first tick too, 20 * i ms before the reading.
        for (int i : {0, 3, 5, 49}) {
            QString error;
            const QByteArray key = "lock:paced:" + QByteArray::number(i);
            const auto r = HistoryStore::read(path, key, T0, T0 + 150 * 1000, &error);
            QVERIFY2(r, qPrintable(error));
            QCOMPARE(r->times.size(), 150);
            for (int k = 0; k < 150; ++k) {
                const qint64 t = T0 + 1000LL * k;
                const qint64 readAt = i == 5 && k >= 60 ? T0 + 60300 : T0 + 20 * i;
                const float want = float(600000 - (t - readAt));
                QVERIFY2(r->values.at(0).at(k) == want,
                         qPrintable(QStringLiteral("%1 tick %2: %3, not %4")
                                        .arg(QString::fromLatin1(key))
                                        .arg(k)
                                        .arg(r->values.at(0).at(k))
                                        .arg(want)));
            }
        }
    }

    // Objects registered as discovery finds them are in the file before the
    // first tick, and that tick gives them no new rows.
    void registeredBeforeTheFirstTick()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("registered.sqlite"));
        HistoryStore store(path);
        QSignalSpy problems(&store, &HistoryStore::problem);
        store.open();
        QList<PatternObject> found;
        Snapshot snapshot;
        snapshot.server.timeMs = T0;
        for (int i = 0; i < 1200; ++i) {
            PatternObject o;
            o.kind = s_limiter;
            o.key = "rl:found:" + QByteArray::number(i);
            if (i == 7)
                o.key = QByteArray("rl:'quoted'\0\xff", 13); // any bytes
            found.append(o);
            ObjectState s;
            s.object = o;
            s.reading.atMs = T0;
            s.reading.inWindow = i % 100;
            s.reading.limit = 100;
            LimiterData::in(s.reading).windowMs = 10000;
            snapshot.objects.append(s);
        }
        store.registerObjects(found.mid(0, 700));
        store.registerObjects(found.mid(500)); // a rescan finds some again
        store.flush();
        const auto objectRows = [&](QList<QByteArray> *keys) {
            const QString name = QUuid::createUuid().toString();
            int n = -1;
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(path);
                if (db.open()) {
                    QSqlQuery q(db);
                    if (q.exec(QStringLiteral("SELECT key, pattern, figures FROM objects ORDER BY "
                                              "id"))) {
                        n = 0;
                        while (q.next()) {
                            ++n;
                            keys->append(q.value(0).toByteArray());
                            if (q.value(1).toString() != QLatin1String("sliding-window")
                                || q.value(2).toString()
                                       != QLatin1String("inWindow,occupancy,retryHorizonMs"))
                                n = -1000000;
                        }
                    }
                }
            }
            QSqlDatabase::removeDatabase(name);
            return n;
        };
        QList<QByteArray> before;
        QCOMPARE(objectRows(&before), 1200);
        QVERIFY(before.contains(found.at(7).key));
        store.append(snapshot);
        store.flush();
        QList<QByteArray> after;
        QCOMPARE(objectRows(&after), 1200);
        QCOMPARE(after, before);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).value(0).toString()));
        QString error;
        const auto r = HistoryStore::read(path, found.at(7).key, T0, T0 + 1000, &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->times.size(), 1);
        QCOMPARE(r->values.at(0).at(0), 7.0f);
    }

    // A constant figure reads as that constant over a whole day (24 h of
    // ticks, one row an hour), and a change mid-idle is read back at its
    // time; hours older than the full resolution become buckets of it.
    void constantSeriesOverADay()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("day.sqlite"));
        HistoryStore::Options options;
        options.maxPendingTicks = 100000;
        options.fullResolutionMs = 24 * HourMs;
        Snapshot snapshot;
        for (int i = 0; i < 3; ++i) {
            ObjectState s;
            s.object.edit().kind = s_limiter;
            s.object.edit().key = "rl:day:" + QByteArray::number(i);
            s.reading.atMs = T0;
            s.reading.inWindow = 10 + i;
            s.reading.limit = 100;
            LimiterData::in(s.reading).windowMs = 60000;
            snapshot.objects.append(s);
        }
        const qint64 change = T0 + 13 * HourMs + 37 * MinuteMs + 12000; // 13:37:12
        const qint64 end = T0 + 25 * HourMs;                            // 25:00:00
        QElapsedTimer wall;
        wall.start();
        const qint64 cpu = cpuMs();
        qsizetype entries = 0;
        {
            HistoryStore store(path, options);
            QSignalSpy problems(&store, &HistoryStore::problem);
            store.open();
            for (qint64 t = T0; t <= end; t += 1000) {
                snapshot.server.timeMs = t;
                if (t == change) {
                    ObjectList objects;
                    objects.append(snapshot.objects.ptr(0));
                    ObjectState s = snapshot.objects.at(1);
                    s.reading.atMs = t;
                    s.reading.inWindow = 99;
                    objects.append(s);
                    objects.append(snapshot.objects.ptr(2));
                    snapshot.objects = objects;
                }
                store.append(snapshot);
                entries += store.lastFeed().entries;
                if ((t / 1000) % 3600 == 0)
                    store.flush();
            }
            store.flush();
            QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).value(0).toString()));
        }
        std::printf("history: 3 objects x 25 h of ticks through append(Snapshot): %lld entries "
                    "handed over, %.3f ms CPU per tick (test and writer), file %lld bytes\n",
                    qint64(entries), double(cpuMs() - cpu) / 90000.0, fileBytes(path));
        QCOMPARE(entries, qsizetype(3 + 1)); // the first tick, and the change
        {
            const QString name = QUuid::createUuid().toString();
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(path);
                QVERIFY(db.open());
                QSqlQuery q(db);
                // Idle: no row of its own; one row an hour for every object
                // (the hour's full tick), for the hours still at full
                // resolution (hour 0 is buckets now) and 25:00:00.
                q.prepare(QStringLiteral("SELECT COUNT(*) FROM samples WHERE object = (SELECT "
                                         "id FROM objects WHERE key = ?)"));
                q.addBindValue(QByteArray("rl:day:0"));
                QVERIFY(q.exec());
                QVERIFY(q.next());
                QCOMPARE(q.value(0).toInt(), 0);
                QVERIFY(q.exec(QStringLiteral("SELECT COUNT(*) FROM keyframes")));
                QVERIFY(q.next());
                QCOMPARE(q.value(0).toInt(), 25);
            }
            QSqlDatabase::removeDatabase(name);
        }
        QString error;
        QElapsedTimer timer;
        timer.start();
        const auto day
            = HistoryStore::read(path, "rl:day:0", T0 + HourMs, T0 + 25 * HourMs - 1, &error);
        const qint64 readMs = timer.elapsed();
        QVERIFY2(day, qPrintable(error));
        QCOMPARE(day->times.size(), 24 * 3600);
        QVERIFY(std::all_of(day->values.at(0).cbegin(), day->values.at(0).cend(),
                            [](float v) { return v == 10.0f; }));
        QVERIFY(std::all_of(day->values.at(1).cbegin(), day->values.at(1).cend(),
                            [](float v) { return v == 0.1f; }));
        std::printf("history: read 24 h of an idle object in %lld ms\n", readMs);
        const auto changed
            = HistoryStore::read(path, "rl:day:1", change - 2000, change + 2000, &error);
        QVERIFY2(changed, qPrintable(error));
        QCOMPARE(changed->times, (QList<qint64>{change - 2000, change - 1000, change, change + 1000,
                                                change + 2000}));
        QCOMPARE(changed->values.at(0), (QList<float>{11.0f, 11.0f, 99.0f, 99.0f, 99.0f}));
        // Hour 0 is one-minute buckets now: flat, the constant.
        const auto first = HistoryStore::read(path, "rl:day:2", T0, T0 + HourMs - 1, &error);
        QVERIFY2(first, qPrintable(error));
        QCOMPARE(first->bucketTimes.size(), 60);
        for (const Internal::Bucket &b : first->buckets.at(0)) {
            QCOMPARE(b.min, 12.0f);
            QCOMPARE(b.max, 12.0f);
            QCOMPARE(b.mean, 12.0f);
            QCOMPARE(b.last, 12.0f);
        }
    }

    // A file of format 1 (every figure every tick) is renamed aside with a
    // sentence saying so; a new file is started; the old one stays readable.
    void oldFormatFileSetAside()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("old.sqlite"));
        {
            const QString name = QUuid::createUuid().toString();
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(path);
                QVERIFY(db.open());
                QSqlQuery q(db);
                for (const char *sql :
                     {"CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT)",
                      "CREATE TABLE objects (id INTEGER PRIMARY KEY, key BLOB NOT NULL, pattern "
                      "TEXT NOT NULL, figures TEXT NOT NULL, UNIQUE (key, pattern))",
                      "CREATE TABLE recent (t INTEGER PRIMARY KEY, data BLOB NOT NULL)",
                      "CREATE TABLE samples (minute INTEGER NOT NULL, object INTEGER NOT NULL, "
                      "data BLOB NOT NULL, PRIMARY KEY (minute, object)) WITHOUT ROWID",
                      "CREATE TABLE buckets (hour INTEGER NOT NULL, object INTEGER NOT NULL, data "
                      "BLOB NOT NULL, PRIMARY KEY (hour, object)) WITHOUT ROWID",
                      "CREATE TABLE events (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, key "
                      "BLOB, kind TEXT NOT NULL, text TEXT NOT NULL)",
                      "INSERT INTO meta VALUES ('format', '1')"})
                    QVERIFY2(q.exec(QString::fromLatin1(sql)), sql);
                q.prepare(QStringLiteral("INSERT INTO objects VALUES (1, ?, 'sliding-window', "
                                         "'inWindow,occupancy,retryHorizonMs')"));
                q.addBindValue(QByteArray("rl:old")); // keys are blobs
                QVERIFY(q.exec());
                for (int k = 0; k < 3; ++k) {
                    Internal::TickBlobWriter blob(1);
                    const float values[3] = {float(7 + k), float(7 + k) / 100.0f, 0};
                    blob.add(1, values, 3);
                    q.prepare(QStringLiteral("INSERT INTO recent VALUES (?, ?)"));
                    q.addBindValue(T0 + 1000 * k);
                    q.addBindValue(blob.finish());
                    QVERIFY(q.exec());
                }
            }
            QSqlDatabase::removeDatabase(name);
        }
        HistoryStore store(path);
        QSignalSpy problems(&store, &HistoryStore::problem);
        QSignalSpy opened(&store, &HistoryStore::opened);
        store.open();
        QVERIFY(opened.wait(20000));
        QCOMPARE(problems.size(), 1);
        const QString sentence = problems.at(0).at(0).toString();
        QVERIFY2(sentence.contains(path) && sentence.contains(QStringLiteral("older Gatehouse"))
                     && sentence.contains(QStringLiteral("a new file"))
                     && sentence.contains(QStringLiteral("--history-dir")),
                 qPrintable(sentence));
        const QString aside = sentence.section(QStringLiteral("renamed to "), 1)
                                  .section(QStringLiteral(" and a new file"), 0, 0);
        QVERIFY2(aside.startsWith(path + QStringLiteral(".format1-")), qPrintable(aside));
        QString error;
        const auto old = HistoryStore::read(aside, "rl:old", T0, T0 + 5000, &error);
        QVERIFY2(old, qPrintable(error));
        QCOMPARE(old->times, (QList<qint64>{T0, T0 + 1000, T0 + 2000}));
        QCOMPARE(old->values.at(0), (QList<float>{7, 8, 9}));
        // The new file takes history, in format 2.
        HistoryTick tick;
        tick.atMs = T0 + 10000;
        tick.entries.append({"rl:old", s_limiter, 3, {4, 0.04, 0}});
        store.append(tick);
        store.flush();
        const auto fresh = HistoryStore::read(path, "rl:old", T0, T0 + 20000, &error);
        QVERIFY2(fresh, qPrintable(error));
        QCOMPARE(fresh->times, QList<qint64>{T0 + 10000});
        QCOMPARE(fresh->values.at(0).first(), 4.0f);
    }

    void eventsRecordedAndRead()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("events.sqlite"));
        {
            HistoryStore store(path);
            store.open();
            store.recordEvent(T0 + 5000, "rl:api:1", QStringLiteral("fired"),
                              QStringLiteral("Limiter rl:api:1 at 93 % for 10 s"));
            store.recordEvent(T0 + 9000, "rl:api:1", QStringLiteral("resolved"),
                              QStringLiteral("Limiter rl:api:1 back under 80 %"));
            store.recordEvent(T0 + 7000, "lock:x", QStringLiteral("fired"),
                              QStringLiteral("Lock lock:x held for 31 s"));
            store.flush();
        }
        QString error;
        const auto all = HistoryStore::readEvents(path, T0, T0 + 10000, {}, 100, &error);
        QVERIFY2(all, qPrintable(error));
        QCOMPARE(all->size(), 3);
        QCOMPARE(all->at(1).key, QByteArray("lock:x")); // in time order
        const auto one = HistoryStore::readEvents(path, T0, T0 + 10000, "rl:api:1", 100, &error);
        QCOMPARE(one->size(), 2);
        QCOMPARE(one->at(1).kind, QStringLiteral("resolved"));
        QCOMPARE(one->at(1).atMs, T0 + 9000);
    }

    // A writer killed with SIGKILL loses at most about the last commit
    // interval (two seconds), and the file opens again.
    void killedWriterLosesAtMostTheLastInterval()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("crash.sqlite"));
        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(),
                    {QStringLiteral("--writer-child"), path});
        QVERIFY(child.waitForStarted());
        // Wait until it has appended for 3 s, reading the times it appended.
        qint64 lastAppended = -1;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 30000) {
            QTRY_VERIFY_WITH_TIMEOUT(child.canReadLine() || child.waitForReadyRead(100), 30000);
            while (child.canReadLine()) {
                const QByteArray line = child.readLine().trimmed();
                if (!line.isEmpty())
                    lastAppended = line.toLongLong();
            }
            if (lastAppended > 0 && timer.elapsed() > 5000)
                break;
        }
        QVERIFY(lastAppended > 0);
        ::kill(pid_t(child.processId()), SIGKILL);
        QVERIFY(child.waitForFinished(10000));
        while (child.canReadLine()) { // appended before the kill
            const QByteArray line = child.readLine().trimmed();
            if (!line.isEmpty())
                lastAppended = line.toLongLong();
        }
        QString error;
        const auto r = HistoryStore::read(path, "rl:crash", 0, lastAppended + 1, &error);
        QVERIFY2(r, qPrintable(error));
        QVERIFY(!r->times.isEmpty());
        const qint64 lost = lastAppended - r->times.last();
        std::printf("history: killed writer: last appended %lld, last on disk %lld: lost %lld ms\n",
                    lastAppended, r->times.last(), lost);
        const qint64 interval = HistoryStore::Options().commitIntervalMs;
        QVERIFY2(lost <= interval + 100, qPrintable(QString::number(lost)));
        // No gap before the end: every 100 ms tick up to the last kept.
        QCOMPARE(r->times.size(), qsizetype((r->times.last() - r->times.first()) / 100 + 1));
        // It opens again, without being set aside, and takes more.
        HistoryStore store(path);
        QSignalSpy problems(&store, &HistoryStore::problem);
        QSignalSpy opened(&store, &HistoryStore::opened);
        store.open();
        QVERIFY(opened.wait(10000));
        QVERIFY(problems.isEmpty());
        HistoryTick tick;
        tick.atMs = lastAppended + 1000;
        tick.entries.append({"rl:crash", s_limiter, 3, {1, 2, 3}});
        store.append(tick);
        store.flush();
        const auto again = HistoryStore::read(path, "rl:crash", 0, tick.atMs, &error);
        QVERIFY(again);
        QCOMPARE(again->times.last(), tick.atMs);
    }

    void corruptFileSetAside()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("garbage.sqlite"));
        QByteArray garbage;
        QRandomGenerator rng(3);
        for (int i = 0; i < 65536; ++i)
            garbage.append(char(rng.bounded(256)));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(garbage);
        }
        checkSetAside(path, garbage, QStringLiteral("is not a readable history database"));
    }

    // Another process holds the file's write lock (sqlite3 in Python).
    void lockedFileSetAside()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("locked.sqlite"));
        {
            HistoryStore store(path);
            store.open();
            HistoryTick tick;
            tick.atMs = T0;
            tick.entries.append({"rl:a", s_limiter, 3, {1, 2, 3}});
            store.append(tick);
            store.flush();
        }
        QProcess locker;
        locker.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        locker.start(QStringLiteral("/usr/bin/python3"),
                     {QStringLiteral("-c"),
                      QStringLiteral("import sqlite3, sys\n"
                                     "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                                     "c.execute('BEGIN EXCLUSIVE')\n"
                                     "print('locked', flush=True)\n"
                                     "sys.stdin.read()\n"),
                      path});
        QVERIFY2(locker.waitForStarted(), "python3 is missing: run .ci/install-deps.");
        QByteArray said;
        QTRY_VERIFY_WITH_TIMEOUT((said += locker.readAll()).contains("locked"), 20000);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray before = f.readAll();
        f.close();
        checkSetAside(path, before, QStringLiteral("is locked by another process"));
        locker.closeWriteChannel();
        QVERIFY(locker.waitForFinished(10000));
    }

private:
    void checkSetAside(const QString &path, const QByteArray &content, const QString &why)
    {
        HistoryStore store(path);
        QSignalSpy problems(&store, &HistoryStore::problem);
        QSignalSpy opened(&store, &HistoryStore::opened);
        store.open();
        QVERIFY(opened.wait(20000));
        QCOMPARE(problems.size(), 1);
        const QString sentence = problems.at(0).at(0).toString();
        QVERIFY2(sentence.contains(path) && sentence.contains(why)
                     && sentence.contains(QStringLiteral("renamed to"))
                     && sentence.contains(QStringLiteral("a new file was started")),
                 qPrintable(sentence));
        const QString aside = sentence.section(QStringLiteral("renamed to "), 1)
                                  .section(QStringLiteral(" and a new file"), 0, 0);
        QVERIFY2(aside.startsWith(path + QStringLiteral(".corrupt-")), qPrintable(aside));
        QFile moved(aside);
        QVERIFY2(moved.open(QIODevice::ReadOnly), qPrintable(aside));
        QCOMPARE(moved.readAll(), content);
        // The fresh file takes history.
        HistoryTick tick;
        tick.atMs = T0 + 1000;
        tick.entries.append({"rl:new", s_limiter, 3, {4, 5, 6}});
        store.append(tick);
        store.flush();
        QString error;
        const auto r = HistoryStore::read(path, "rl:new", 0, T0 + 2000, &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->times, QList<qint64>{T0 + 1000});
        QCOMPARE(r->values.at(2).first(), 6.0f);
    }
};

// --writer-child PATH: appends a tick every 100 ms (local ms as server
// time) and prints each tick's time once appended, until killed.
static int writerChild(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    HistoryStore store(QString::fromLocal8Bit(argv[2]));
    store.open();
    QTimer timer;
    timer.setInterval(100);
    const qint64 base = QDateTime::currentMSecsSinceEpoch() / 100 * 100;
    qint64 k = 0;
    QObject::connect(&timer, &QTimer::timeout, &store, [&store, base, &k] {
        HistoryTick tick;
        tick.atMs = base + 100 * k++; // a tick every 100 ms of server time
        tick.entries.append({"rl:crash", s_limiter, 3, {float(tick.atMs % 1000), 0.5f, 0}});
        for (int i = 0; i < 2000; ++i) // some weight, as a real tick has
            tick.entries.append({keyOf(i), s_limiter, 3, {float(i), 0.1f, 0}});
        store.append(tick);
        std::printf("%lld\n", tick.atMs);
        std::fflush(stdout);
    });
    timer.start();
    return app.exec();
}

int main(int argc, char **argv)
{
    if (argc >= 3 && qstrcmp(argv[1], "--writer-child") == 0)
        return writerChild(argc, argv);
    QCoreApplication app(argc, argv);
    // The hour of 10,000 objects is one test function: on a loaded machine
    // it takes longer than QtTest's default 5 minutes per function.
    qputenv("QTEST_FUNCTION_TIMEOUT", "900000");
    tst_HistoryStore tc;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tc, argc, argv);
}

#include "tst_historystore.moc"
