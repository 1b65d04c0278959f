// SPDX-License-Identifier: MIT
// The history store's capacity and retention: a day of ten thousand objects,
// a snapshot's figures, downsampling, the cap, and constant figures over a
// day. Its ticks are in tst_historyticks, its file in tst_historyfiles.
#include <history/historystore.h>
#include <monitor/snapshot.h>
#include <patterns/limiterdata.h>
#include <patterns/patternregistry.h>

#include "historytestdata.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <sys/resource.h>

using namespace gatehouse;
using namespace gatehouse::historytest;

namespace {

const PatternKind &s_limiter = historytest::limiter;

qint64 cpuMs()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return qint64(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000
           + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000;
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
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    // The hour of 10,000 objects is one test function: on a loaded machine
    // it takes longer than QtTest's default 5 minutes per function.
    qputenv("QTEST_FUNCTION_TIMEOUT", "900000");
    tst_HistoryStore tc;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tc, argc, argv);
}

#include "tst_historystore.moc"
