// SPDX-License-Identifier: MIT
// Budgeted polling's plan: which objects a tick reads, and the age a reading
// can have at most, from a measured cost (RefreshBudget, ProbeCost).
#include <monitor/refreshbudget.h>

#include <QSet>
#include <QTest>

using namespace gatehouse;

namespace {

QList<int> range(int from, int to) // [from, to)
{
    QList<int> out;
    for (int i = from; i < to; ++i)
        out.append(i);
    return out;
}

// A cost of 400 us a round trip and 10 us an object: 1.5 ms buys 100.
RefreshBudget measured()
{
    RefreshBudget budget;
    QList<std::pair<qsizetype, double>> trips;
    for (int i = 0; i < 4; ++i)
        trips.append({100, 1400});
    trips.append({24, 640});
    budget.cost().addTick(trips);
    return budget;
}

RefreshBudget::Settings settings(double percent)
{
    RefreshBudget::Settings s;
    s.intervalMs = 500;
    s.budgetPercent = percent; // of 500 ms
    s.sweepMs = 120000;
    s.tripObjects = 100;
    return s;
}

} // namespace

class tst_RefreshBudget : public QObject
{
    Q_OBJECT

private slots:
    // Idle objects take turns with what the budget buys after the objects
    // read every tick; every one is read within the bound stated.
    void idleTakeTurns()
    {
        RefreshBudget budget = measured();
        QVERIFY(budget.known());
        const QList<int> always{0, 1};
        const QList<int> idle = range(2, 1002);
        qsizetype sweep = 0;
        QHash<int, int> lastRead; // object -> tick
        qint64 bound = 0;
        for (int tick = 0; tick < 30; ++tick) {
            const auto plan = budget.plan(settings(0.3), always, {}, idle, sweep, tick * 500);
            QCOMPARE(plan.read.size(), 100); // 1.5 ms: one round trip of 100
            QVERIFY(plan.read.contains(0) && plan.read.contains(1));
            QVERIFY(std::is_sorted(plan.read.cbegin(), plan.read.cend()));
            for (int i : plan.read)
                lastRead.insert(i, tick);
            bound = plan.ageBoundMs;
        }
        // 1,000 idle objects, 98 a tick: 11 ticks a rotation.
        QCOMPARE(bound, qint64(11 * 500 + 500));
        for (int i : idle)
            QVERIFY2(lastRead.value(i, -100) >= 30 - 11, qPrintable(QString::number(i)));
    }

    // More hot objects than the budget buys: they take turns too, all of
    // them, and the bound says how long a turn takes.
    void hotTakeTurnsWhenTooMany()
    {
        RefreshBudget budget = measured();
        const QList<int> hot = range(0, 250);
        const QList<int> idle = range(250, 300);
        qsizetype sweep = 0;
        QSet<int> seen;
        RefreshBudget::Plan plan;
        for (int tick = 0; tick < 3; ++tick) {
            plan = budget.plan(settings(0.3), {}, hot, idle, sweep, tick * 500);
            for (int i : plan.read) {
                if (i < 250)
                    seen.insert(i);
            }
        }
        QCOMPARE(seen.size(), 250); // three ticks of 100
        QVERIFY2(plan.ageBoundMs >= 3 * 500 + 500, qPrintable(QString::number(plan.ageBoundMs)));
    }

    // A budget too small for the sweep still reads every idle object within
    // sweepMs.
    void sweepFloor()
    {
        RefreshBudget budget = measured();
        const QList<int> idle = range(0, 24000);
        qsizetype sweep = 0;
        QSet<int> seen;
        const int ticks = 120000 / 500;
        for (int tick = 0; tick < ticks; ++tick) {
            const auto plan = budget.plan(settings(0.01), {}, {}, idle, sweep, tick * 500);
            for (int i : plan.read)
                seen.insert(i);
        }
        QCOMPARE(seen.size(), idle.size());
    }

    // The bound stated is the largest of one rotation's: a share that grew
    // does not shorten it until the objects read under the smaller one are
    // read again.
    void boundOutlivesAShareThatGrew()
    {
        RefreshBudget budget = measured();
        const QList<int> idle = range(0, 1000);
        qsizetype sweep = 0;
        const auto small = budget.plan(settings(0.3), {}, {}, idle, sweep, 0);
        const auto large = budget.plan(settings(3.0), {}, {}, idle, sweep, 500);
        QVERIFY(large.read.size() > small.read.size());
        QCOMPARE(large.ageBoundMs, small.ageBoundMs);
        const auto later
            = budget.plan(settings(3.0), {}, {}, idle, sweep, 500 + small.ageBoundMs + 1);
        QVERIFY(later.ageBoundMs < small.ageBoundMs);
    }
};

QTEST_GUILESS_MAIN(tst_RefreshBudget)
#include "tst_refreshbudget.moc"
