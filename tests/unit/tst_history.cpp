// SPDX-License-Identifier: MIT
// History rings: bounded, oldest first; motions for idle objects, 4 bytes per
// sample per figure for busy ones; every sample reads back as appended.
#include <monitor/history.h>
#include <monitor/snapshot.h>
#include <redis/redisvalue.h>

#include <QJsonObject>
#include <QTest>

#include <array>
#include <vector>

using namespace gatehouse;

class tst_History : public QObject
{
    Q_OBJECT

private slots:
    // A busy object: every sample differs, so the ring is dense at once at
    // this size, and keeps the last `capacity` samples.
    void ringKeepsTheLastSamples()
    {
        HistoryRing ring(2, 3);
        for (int i = 1; i <= 5; ++i) {
            const double v[2] = {double(i), double(10 * i)};
            ring.append(v, 1000 * i);
        }
        QCOMPARE(ring.size(), 3);
        QCOMPARE(ring.at(0, 0, 3000), 3.0f); // the oldest kept
        QCOMPARE(ring.at(0, 2, 5000), 5.0f);
        QCOMPARE(ring.at(1, 1, 4000), 40.0f);
        QCOMPARE(ring.bytes(), qsizetype(2 * 3 * sizeof(float)));
    }

    // Once its figures change every tick, a ring takes its full size at once
    // (4 bytes per sample per figure) and keeps it: memory does not grow
    // while it fills. Its motions answer for the samples before that until
    // they leave the ring.
    void busyRingTakesFullSizeAtOnce()
    {
        HistoryRing ring(3, 100);
        constexpr qsizetype Dense = 3 * 100 * sizeof(float);
        QCOMPARE(ring.bytes(), qsizetype(0)); // nothing before the first sample
        int i = 0;
        for (; i < 20 && !ring.isDense(); ++i) {
            const double v[3] = {double(i), double(i % 3), 7.5 * i};
            ring.append(v, 1000 * i);
        }
        QVERIFY2(ring.isDense(), "a figure that changes every tick makes the ring dense");
        const int denseFrom = i - 1;
        QVERIFY(ring.bytes() > Dense && ring.bytes() <= Dense + Dense / 4);
        for (; i < 250; ++i) {
            const double v[3] = {double(i), double(i % 3), 7.5 * i};
            ring.append(v, 1000 * i);
            if (i - denseFrom >= 99)
                QCOMPARE(ring.bytes(), Dense);
        }
        QCOMPARE(ring.size(), 100);
        for (int k = 0; k < 100; ++k) {
            const int n = 150 + k;
            QCOMPARE(ring.at(0, k, 1000 * n), float(n));
            QCOMPARE(ring.at(2, k, 1000 * n), float(7.5 * n));
        }
    }

    // An idle object: its figures stay put or move as a reading projects
    // (a TTL counts down to 0, an age grows), ticks about a second apart.
    // Every sample reads back as appended, and the ring holds a motion, not
    // 15 minutes of floats.
    void idleSeriesReadsBackFromOneMotion()
    {
        HistoryRing ring(4, 900);
        QList<qint64> times;
        qint64 t = 1'700'000'000'000;
        for (int i = 0; i < 2000; ++i) {
            t += 990 + (i * 37) % 25; // a tick's jitter
            times.append(t);
            const double dt = double(t - times.first());
            const double v[4] = {3, std::max(0.0, 600'000 - dt), 1'000 + dt, qQNaN()};
            ring.append(v, t);
        }
        QCOMPARE(ring.size(), 900);
        QVERIFY(!ring.isDense());
        for (int i = 0; i < 900; ++i) {
            const qint64 at = times.at(1100 + i);
            const double dt = double(at - times.first());
            QCOMPARE(ring.at(0, i, at), 3.0f);
            QCOMPARE(ring.at(1, i, at), float(std::max(0.0, 600'000 - dt)));
            QCOMPARE(ring.at(2, i, at), float(1'000 + dt));
            QVERIFY(qIsNaN(ring.at(3, i, at)));
        }
        // One motion: its time, its first sample and slopes, four values.
        QCOMPARE(ring.bytes(), qsizetype(6 * sizeof(quint64)));
    }

    // Any series reads back exactly, sample by sample, through motions,
    // new motions (a re-read that moved a TTL by a millisecond, a step) and
    // the switch to the dense ring, whose first samples the motions still
    // answer for until they leave the ring.
    void everySampleReadsBack_data()
    {
        QTest::addColumn<int>("capacity");
        QTest::addColumn<int>("changeEvery"); // ticks between readings that differ
        QTest::addColumn<int>("idleFor");     // ticks before the first change
        QTest::newRow("idle, then a change every tick") << 900 << 1 << 1000;
        QTest::newRow("idle, then busy early") << 900 << 1 << 30;
        QTest::newRow("re-read every 2 minutes") << 900 << 120 << 0;
        QTest::newRow("a change every 10 s") << 900 << 10 << 50;
        QTest::newRow("a small ring") << 10 << 3 << 5;
        QTest::newRow("one sample") << 1 << 2 << 0;
    }
    void everySampleReadsBack()
    {
        QFETCH(int, capacity);
        QFETCH(int, changeEvery);
        QFETCH(int, idleFor);
        HistoryRing ring(3, capacity);
        QList<qint64> times;
        QList<std::array<float, 3>> appended;
        double level = 5, ttl = 90'000, age = 0;
        qint64 t = 10'000'000;
        for (int i = 0; i < 3 * capacity + 400; ++i) {
            const qint64 dt = 995 + (i * 13) % 11;
            t += dt;
            ttl = std::max(0.0, ttl - double(dt));
            age += double(dt);
            if (i >= idleFor && (i - idleFor) % changeEvery == 0) {
                level += 1 + i % 4;       // a count that steps
                ttl = 90'000 + (i % 3);   // a TTL re-read a millisecond off
                age = double(i % 2) * 50; // an age that restarts
            }
            const double v[3] = {level, ttl, age};
            ring.append(v, t);
            times.append(t);
            appended.append({float(level), float(ttl), float(age)});
            const int n = ring.size();
            QCOMPARE(n, std::min<int>(i + 1, capacity));
            for (int k = 0; k < n; ++k) {
                const qsizetype j = appended.size() - n + k;
                for (int f = 0; f < 3; ++f) {
                    if (ring.at(f, k, times.at(j)) != appended.at(j)[f])
                        QFAIL(qPrintable(QStringLiteral("tick %1: sample %2 of figure %3 reads "
                                                        "%4, appended %5")
                                             .arg(i)
                                             .arg(k)
                                             .arg(f)
                                             .arg(ring.at(f, k, times.at(j)))
                                             .arg(appended.at(j)[f])));
                }
            }
            // Never more than the dense ring (4 B per sample per figure)
            // and a quarter of it more while it takes over from the motions.
            QVERIFY(ring.bytes() <= qsizetype(capacity) * 3 * 4 * 5 / 4);
        }
        if (changeEvery == 1)
            QVERIFY(ring.isDense());
    }

    // A library queue's 14 figures (counts, ages, wait and run quantiles):
    // the slopes of figures past the 8th are kept too, so a countdown or an
    // age there reads back exactly between readings.
    void manyFiguresReadBack()
    {
        constexpr int Figures = 14;
        HistoryRing ring(Figures, 200);
        QList<qint64> times;
        QList<std::array<float, Figures>> appended;
        std::array<double, Figures> v{};
        qint64 t = 10'000'000;
        for (int i = 0; i < 200; ++i) {
            const qint64 dt = 1000 + i % 7;
            t += dt;
            for (int f = 0; f < Figures; ++f) {
                if (i % 20 == 0)
                    v[f] = 1000.0 * (f + 1) + i; // a reading: every figure anew
                else if (f % 3 == 1)
                    v[f] = std::max(0.0, v[f] - double(dt)); // counting down
                else if (f % 3 == 2)
                    v[f] += double(dt); // an age growing
            }
            ring.append(v.data(), t);
            times.append(t);
            std::array<float, Figures> asFloat;
            for (int f = 0; f < Figures; ++f)
                asFloat[f] = float(v[f]);
            appended.append(asFloat);
        }
        QVERIFY(!ring.isDense()); // motions: one per reading
        for (int k = 0; k < ring.size(); ++k) {
            const qsizetype j = appended.size() - ring.size() + k;
            for (int f = 0; f < Figures; ++f)
                QCOMPARE(ring.at(f, k, times.at(j)), appended.at(j)[f]);
        }
    }

    // 10,000 idle objects (a third of the million-key bench's planted structures): a
    // lock's TTL counting down, re-read every 2 minutes a millisecond off.
    // Their 15 minutes of history take a few hundred bytes each, not the
    // 3.6 KB of a dense ring.
    void idleRingsAreSmall()
    {
        constexpr int Objects = 10000, Capacity = 900;
        std::vector<HistoryRing> rings(Objects, HistoryRing(1, Capacity));
        qint64 t = 0;
        for (int tick = 0; tick < 1200; ++tick) {
            t += 1000 + tick % 3;
            for (int o = 0; o < Objects; ++o) {
                const double pttl = 3'600'000 - double(t) + ((tick + o) / 120) % 2;
                rings[size_t(o)].append(&pttl, t);
            }
        }
        qsizetype bytes = 0;
        for (const HistoryRing &r : rings) {
            QVERIFY(!r.isDense());
            bytes += r.bytes();
        }
        QVERIFY2(bytes / Objects <= 256, qPrintable(QString::number(bytes / Objects)));
    }

    void noCapacityNoMemory()
    {
        HistoryRing ring(3, 0);
        const double v[3] = {1, 2, 3};
        ring.append(v, 1000);
        QCOMPARE(ring.size(), 0);
        QCOMPARE(ring.bytes(), qsizetype(0));
    }

    void keysInJson()
    {
        QCOMPARE(keyToJson("rl:api:1").toString(), QStringLiteral("rl:api:1"));
        QCOMPARE(
            keyToJson(QByteArray("a\0b", 3)).toObject().value(QLatin1String("base64")).toString(),
            QStringLiteral("YQBi"));
        QCOMPARE(keyToJson("\xff\xfe").toObject().value(QLatin1String("base64")).toString(),
                 QStringLiteral("//4="));
        QCOMPARE(keyToJson("caf\xc3\xa9").toString(), QString::fromUtf8("caf\xc3\xa9"));
    }
};

QTEST_GUILESS_MAIN(tst_History)
#include "tst_history.moc"
