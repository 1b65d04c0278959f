// SPDX-License-Identifier: MIT
// Which tracked objects' states the snapshots replaced (ReplacedLog, behind
// Monitor::takeReplaced, which the history writer relies on to compare only
// what changed): exact while the list is short, "all" whenever an index may
// name another object or the list would outgrow the objects.
#include <monitor/replacedlog.h>

#include <QTest>

using namespace gatehouse;

class tst_ReplacedLog : public QObject
{
    Q_OBJECT

private slots:
    // Before anything was taken the consumer has nothing to compare with.
    void firstTakeIsAll()
    {
        ReplacedLog log;
        log.made(10);
        const ReplacedLog::Taken t = log.take(7, 1);
        QCOMPARE(t.monitor, quint64(7));
        QCOMPARE(t.sinceSequence, quint64(0));
        QCOMPARE(t.sequence, quint64(1));
        QVERIFY(t.all);
    }

    // Replaced states are listed by the snapshot that carried them; one
    // replaced after the latest snapshot waits for the next.
    void listsWhatTheSnapshotsCarried()
    {
        ReplacedLog log;
        log.made(10);
        log.take(1, 1);
        log.replaced(3, 10);
        log.made(10); // snapshot 2
        log.replaced(5, 10);
        log.made(10);        // snapshot 3
        log.replaced(8, 10); // not in a snapshot yet
        ReplacedLog::Taken t = log.take(1, 3);
        QVERIFY(!t.all);
        QCOMPARE(t.sinceSequence, quint64(1));
        QCOMPARE(t.sequence, quint64(3));
        QCOMPARE(t.indices, (QList<int>{3, 5}));
        log.made(10); // snapshot 4
        t = log.take(1, 4);
        QVERIFY(!t.all);
        QCOMPARE(t.sinceSequence, quint64(3));
        QCOMPARE(t.indices, QList<int>{8});
        // Nothing replaced since: nothing to compare.
        log.made(10);
        t = log.take(1, 5);
        QVERIFY(!t.all);
        QVERIFY(t.indices.isEmpty());
    }

    // Objects came, went or moved: every index may name another object.
    void movedIsAll()
    {
        ReplacedLog log;
        log.made(10);
        log.take(1, 1);
        log.replaced(2, 10);
        log.moved();
        log.made(9);
        const ReplacedLog::Taken t = log.take(1, 2);
        QVERIFY(t.all);
        QVERIFY(t.indices.isEmpty());
        // And back to exact lists after it was taken.
        log.replaced(4, 9);
        log.made(9);
        QCOMPARE(log.take(1, 3).indices, QList<int>{4});
    }

    // Bounded whether or not anyone takes it: more replacements than
    // objects become "all", in one snapshot or across several.
    void bounded()
    {
        ReplacedLog log;
        log.made(3);
        log.take(1, 1);
        for (int i = 0; i < 4; ++i)
            log.replaced(i % 3, 3);
        log.made(3);
        QVERIFY(log.take(1, 2).all);
        for (int round = 0; round < 3; ++round) {
            log.replaced(0, 3);
            log.replaced(1, 3);
            log.made(3);
        }
        const ReplacedLog::Taken t = log.take(1, 5);
        QVERIFY(t.all);
        QVERIFY(t.indices.isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_ReplacedLog)
#include "tst_replacedlog.moc"
