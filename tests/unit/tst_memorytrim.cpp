// SPDX-License-Identifier: MIT
// When the monitor gives memory back to the OS (MemoryTrim): once after a
// large pass or discovery, only when every object was read and the state it
// replaced is let go (or the checks run out), and not on every tick.
#include <monitor/memorytrim.h>

#include <QTest>

using namespace gatehouse;

namespace {

constexpr qsizetype Large = MemoryTrim::AfterObjects;

} // namespace

class tst_MemoryTrim : public QObject
{
    Q_OBJECT

private slots:
    // A pass replaced states the console still shows: no trim until it
    // lets them go, then one.
    void trimsOnceTheReplacedStateIsLetGo()
    {
        QObject context;
        MemoryTrim trim(&context);
        auto shown = std::make_shared<int>(1);
        trim.armForPass(Large, true, shown);
        QVERIFY(trim.pending());
        trim.check([] { return true; });
        QTest::qWait(3 * MemoryTrim::CheckMs);
        QCOMPARE(trim.trims(), 0);
        shown.reset();
        QTRY_COMPARE_WITH_TIMEOUT(trim.trims(), 1, 5 * MemoryTrim::CheckMs);
        QVERIFY(!trim.pending());
        // Once per arming: more checks trim nothing more.
        trim.check([] { return true; });
        QTest::qWait(2 * MemoryTrim::CheckMs);
        QCOMPARE(trim.trims(), 1);
    }

    // A view that keeps an old state for good: the trim comes once the
    // checks are over.
    void checksRunOut()
    {
        QObject context;
        MemoryTrim trim(&context);
        auto keptForGood = std::make_shared<int>(1);
        trim.armForPass(Large, true, keptForGood);
        trim.check([] { return true; });
        QTest::qWait(MemoryTrim::CheckMs * (MemoryTrim::Checks - 5));
        QCOMPARE(trim.trims(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(trim.trims(), 1, MemoryTrim::CheckMs * 15);
    }

    // Objects not read yet: their first readings replace states too; the
    // trim waits for a full tick that read them all.
    void waitsUntilEveryObjectWasRead()
    {
        QObject context;
        MemoryTrim trim(&context);
        trim.armAfterDiscovery(Large, {}, 0);
        trim.check([] { return false; });
        QTest::qWait(2 * MemoryTrim::CheckMs);
        QCOMPARE(trim.trims(), 0);
        QVERIFY(trim.pending());
        trim.check([] { return true; });
        QCOMPARE(trim.trims(), 1); // nothing to wait for: at once
    }

    // Small passes and discoveries, and polling every object every tick
    // (the next pass reuses the memory), arm nothing.
    void smallOrPollingArmsNothing()
    {
        QObject context;
        MemoryTrim trim(&context);
        trim.armForPass(Large - 1, true, {});
        QVERIFY(!trim.pending());
        trim.armForPass(Large, false, {});
        QVERIFY(!trim.pending());
        trim.armAfterDiscovery(Large - 1, {}, 5);
        QVERIFY(!trim.pending());
    }

    // A thousand objects hot for good would trim every tick: a large tick
    // arms at most once a minute, except the behaviour watch's ticks after
    // a discovery (each re-reads every object).
    void atMostOnceAMinuteExceptAfterDiscovery()
    {
        QObject context;
        MemoryTrim trim(&context);
        trim.armForPass(Large, true, {});
        trim.check([] { return true; });
        QCOMPARE(trim.trims(), 1);
        trim.armForPass(Large, true, {});
        QVERIFY(!trim.pending()); // within the minute

        trim.armAfterDiscovery(Large, {}, 2);
        trim.check([] { return true; });
        QCOMPARE(trim.trims(), 2);
        for (int tick = 0; tick < 2; ++tick) { // the two free ticks
            trim.armForPass(Large, true, {});
            QVERIFY(trim.pending());
            trim.check([] { return true; });
        }
        QCOMPARE(trim.trims(), 4);
        trim.armForPass(Large, true, {});
        QVERIFY(!trim.pending());
    }
};

QTEST_GUILESS_MAIN(tst_MemoryTrim)
#include "tst_memorytrim.moc"
