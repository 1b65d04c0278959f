// SPDX-License-Identifier: MIT
// When the monitor's snapshots go out (SnapshotPacer): a change after a quiet
// period at once, changes in a burst at most once per interval and never
// lost, a routine state with the next emission or alone after the routine
// interval, and a routine emission never delaying a change's.
#include <monitor/snapshotpacer.h>

#include <QElapsedTimer>
#include <QTest>

using namespace gatehouse;

namespace {

constexpr int ChangeMs = 100;
constexpr int RoutineMs = 400;
// QTimer's default (coarse) timers may fire up to 5% early.
constexpr int Early = ChangeMs / 20 + 1;

struct Paced
{
    Paced()
        : pacer(&context, ChangeMs, RoutineMs, [this] {
            at.append(clock.elapsed());
            state = latest; // what the monitor makes when it emits
        })
    {
        clock.start();
    }

    QObject context;
    QElapsedTimer clock;
    QList<qint64> at; // ms since construction of each emission
    int latest = 0;   // the state now
    int state = -1;   // the state the last emission carried
    SnapshotPacer pacer;
};

} // namespace

class tst_SnapshotPacer : public QObject
{
    Q_OBJECT

private slots:
    // The first change goes out at once, not after an interval.
    void firstChangeAtOnce()
    {
        Paced p;
        p.latest = 1;
        p.pacer.changed();
        QCOMPARE(p.at.size(), 1);
        QCOMPARE(p.state, 1);
        QVERIFY(!p.pacer.pending());
    }

    // A burst of changes: one emission per interval at most, and the last
    // one carries the latest state (nothing is lost by coalescing).
    void burstCoalesced()
    {
        Paced p;
        QElapsedTimer burst;
        burst.start();
        while (burst.elapsed() < 1000) {
            ++p.latest;
            p.pacer.changed();
            QTest::qWait(5);
        }
        QTRY_VERIFY_WITH_TIMEOUT(!p.pacer.pending(), 5 * ChangeMs);
        QCOMPARE(p.state, p.latest);
        // About ten in a second: never two within an interval.
        QVERIFY2(p.at.size() >= 5 && p.at.size() <= 12,
                 qPrintable(QStringLiteral("%1 emissions").arg(p.at.size())));
        for (qsizetype i = 1; i < p.at.size(); ++i)
            QVERIFY2(p.at.at(i) - p.at.at(i - 1) >= ChangeMs - Early,
                     qPrintable(QStringLiteral("emissions %1 and %2 are %3 ms apart")
                                    .arg(i - 1)
                                    .arg(i)
                                    .arg(p.at.at(i) - p.at.at(i - 1))));
    }

    // Routine states go out with the routine interval, not faster, when
    // nothing changes.
    void routineAtItsOwnPace()
    {
        Paced p;
        p.pacer.routine(); // nothing emitted yet: at once
        QCOMPARE(p.at.size(), 1);
        QElapsedTimer run;
        run.start();
        while (run.elapsed() < 3 * RoutineMs - RoutineMs / 2) {
            p.pacer.routine();
            QTest::qWait(10);
        }
        // At 0, about RoutineMs and about 2 * RoutineMs (the last one late
        // on a busy machine), never sooner.
        QVERIFY2(p.at.size() == 2 || p.at.size() == 3,
                 qPrintable(QStringLiteral("%1 emissions").arg(p.at.size())));
        for (qsizetype i = 1; i < p.at.size(); ++i)
            QVERIFY(p.at.at(i) - p.at.at(i - 1) >= RoutineMs - RoutineMs / 20 - 1);
    }

    // A routine emission just before a change does not delay it; a change
    // carries a routine state due.
    void routineNeverDelaysAChange()
    {
        Paced p;
        p.pacer.routine();
        QCOMPARE(p.at.size(), 1);
        QTest::qWait(10);
        p.pacer.routine(); // due in about RoutineMs
        QVERIFY(p.pacer.pending());
        ++p.latest;
        p.pacer.changed(); // no change emitted yet: at once
        QCOMPARE(p.at.size(), 2);
        QCOMPARE(p.state, p.latest);
        QVERIFY(!p.pacer.pending());
        // The routine state went with it: nothing more when its time comes.
        QTest::qWait(RoutineMs + 100);
        QCOMPARE(p.at.size(), 2);
    }

    // A change soon after another waits for the rest of the interval, and
    // a routine state asked for meanwhile does not add an emission.
    void changeWaitsForTheInterval()
    {
        Paced p;
        p.pacer.changed();
        QCOMPARE(p.at.size(), 1);
        ++p.latest;
        p.pacer.changed();
        p.pacer.routine();
        QCOMPARE(p.at.size(), 1);
        QVERIFY(p.pacer.pending());
        QTRY_COMPARE_WITH_TIMEOUT(p.at.size(), 2, 5 * ChangeMs);
        QVERIFY(p.at.at(1) - p.at.at(0) >= ChangeMs - Early);
        QCOMPARE(p.state, p.latest);
        QTest::qWait(RoutineMs + 100);
        QCOMPARE(p.at.size(), 2);
    }
};

QTEST_GUILESS_MAIN(tst_SnapshotPacer)
#include "tst_snapshotpacer.moc"
