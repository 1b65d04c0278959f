// SPDX-License-Identifier: MIT
// Budgeted polling's cost model: a fixed part per round trip and a part per
// object, told apart by round trips of different sizes, so the objects a
// tick can afford do not depend on how the last ticks split theirs.
#include <monitor/probecost.h>

#include <QTest>

#include <cmath>

using namespace gatehouse;

namespace {

constexpr qsizetype Trip = 100; // Monitor::PacedBatchObjects

// A server where a round trip costs tripUs and each object objectUs more.
struct Server
{
    double tripUs;
    double objectUs;
    double cost(qsizetype n) const { return tripUs + objectUs * double(n); }
    // A tick of n objects, as the monitor splits it.
    QList<std::pair<qsizetype, double>> tick(qsizetype n) const
    {
        QList<std::pair<qsizetype, double>> trips;
        for (qsizetype at = 0; at < n; at += Trip) {
            const qsizetype size = std::min(Trip, n - at);
            trips.append({size, cost(size)});
        }
        return trips;
    }
    double tickCost(qsizetype n) const
    {
        double sum = 0;
        for (const auto &trip : tick(n))
            sum += trip.second;
        return sum;
    }
};

} // namespace

class tst_ProbeCost : public QObject
{
    Q_OBJECT

private slots:
    void unknownUntilMeasured()
    {
        ProbeCost cost;
        QVERIFY(!cost.known());
        QCOMPARE(cost.affordable(1500, Trip), 0);
        cost.addTick({});
        QVERIFY(!cost.known());
    }

    // The first paced tick (a full pass's seed read hundreds of objects)
    // holds round trips of two sizes: the line is read from them.
    void lineToldFromTwoSizes()
    {
        const Server server{400, 10};
        ProbeCost cost;
        cost.addTick(server.tick(424));
        QVERIFY(cost.paced());
        QCOMPARE(std::lround(cost.perTripUs()), 400);
        QCOMPARE(std::lround(cost.perObjectUs()), 10);
        // 1.5 ms buys one round trip of 100 (1.4 ms); 110 objects would
        // take two (1.9 ms).
        QCOMPARE(cost.affordable(1500, Trip), 100);
        QCOMPARE(cost.affordable(1300, Trip), 90);
        // 5 ms: three full round trips (4.2 ms), then 40 in a fourth.
        QCOMPARE(cost.affordable(5000, Trip), 340);
        QVERIFY(server.tickCost(cost.affordable(5000, Trip)) <= 5000);
        QVERIFY(server.tickCost(cost.affordable(5000, Trip) + 1) > 5000);
    }

    // What the monitor does with it, tick after tick: each tick reads what
    // the last estimate affords. The count settles at once and stays, and
    // every tick spends no more than the budget. (A cost per object taken
    // as a round trip over its objects rose ~10 % a tick and fell whenever
    // a tick took one round trip more.)
    void countSettles_data()
    {
        QTest::addColumn<double>("tripUs");
        QTest::addColumn<double>("objectUs");
        QTest::addColumn<double>("budgetUs");
        QTest::newRow("loopback-bound, under one trip") << 600.0 << 12.0 << 1500.0;
        QTest::newRow("around one trip") << 450.0 << 10.0 << 1500.0;
        QTest::newRow("several trips") << 300.0 << 4.0 << 20000.0;
        QTest::newRow("server-bound") << 50.0 << 30.0 << 10000.0;
    }
    void countSettles()
    {
        QFETCH(double, tripUs);
        QFETCH(double, objectUs);
        QFETCH(double, budgetUs);
        const Server server{tripUs, objectUs};
        ProbeCost cost;
        cost.seed(0.8); // a pipelined pass: far cheaper per object than paced
        qsizetype n = cost.affordable(budgetUs, Trip);
        QVERIFY(n > 0);
        QList<qsizetype> counts;
        for (int tick = 0; tick < 30; ++tick) {
            cost.addTick(server.tick(n));
            n = cost.affordable(budgetUs, Trip);
            counts.append(n);
        }
        // Settled from the second tick on: every count the same.
        for (qsizetype i = 1; i < counts.size(); ++i)
            QVERIFY2(counts.at(i) == counts.at(1),
                     qPrintable(QStringLiteral("tick %1 read %2, tick 2 %3")
                                    .arg(i + 1)
                                    .arg(counts.at(i))
                                    .arg(counts.at(1))));
        QVERIFY(server.tickCost(n) <= budgetUs);
        QVERIFY2(server.tickCost(n + 1) > budgetUs * 0.97,
                 qPrintable(QStringLiteral("%1 objects spend %2 of %3 us")
                                .arg(n)
                                .arg(server.tickCost(n))
                                .arg(budgetUs)));
    }

    // A reply held up by this process (a page fault, a history write) does
    // not shrink the budget; a change in what the server costs moves it
    // within the ticks kept.
    void oneSlowReplyMovesNothing()
    {
        const Server server{400, 10};
        ProbeCost cost;
        cost.addTick(server.tick(424));
        for (int tick = 0; tick < 4; ++tick)
            cost.addTick(server.tick(100));
        const qsizetype settled = cost.affordable(1500, Trip);
        auto slow = server.tick(100);
        slow[0].second *= 10;
        cost.addTick(slow);
        QCOMPARE(cost.affordable(1500, Trip), settled);
        const Server busier{400, 20};
        for (int tick = 0; tick < ProbeCost::TicksKept; ++tick)
            cost.addTick(busier.tick(cost.affordable(1500, Trip)));
        QCOMPARE(cost.affordable(1500, Trip), 55);
    }

    // The full pass's seed is an estimate until the first paced tick, and
    // never after (a restart's pass drains a full pipe: much cheaper).
    void seedOnlyUntilPaced()
    {
        ProbeCost cost;
        cost.seed(2.0);
        QCOMPARE(cost.affordable(1000, Trip), 500);
        const Server server{400, 10};
        cost.addTick(server.tick(500));
        const qsizetype paced = cost.affordable(1500, Trip);
        cost.seed(0.5);
        QCOMPARE(cost.affordable(1500, Trip), paced);
    }

    // Noise that tilts the line never makes the fixed part negative or
    // larger than the quickest round trip.
    void fixedPartBounded()
    {
        ProbeCost cost;
        cost.addTick({{100, 500}, {20, 600}, {60, 550}});
        QVERIFY(cost.perTripUs() >= 0);
        QVERIFY(cost.perTripUs() <= 500);
        QVERIFY(cost.perObjectUs() > 0);
        QVERIFY(cost.affordable(1500, Trip) > 0);
    }
};

QTEST_GUILESS_MAIN(tst_ProbeCost)
#include "tst_probecost.moc"
