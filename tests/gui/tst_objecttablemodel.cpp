// SPDX-License-Identifier: MIT
// The table models update incrementally: inserted rows for new instances,
// dataChanged for changed ones, never a reset while connected.
#include <objecttablemodel.h>

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;

namespace {

ObjectState lock(const QByteArray &key, const QByteArray &token, qint64 pttl)
{
    ObjectState s;
    s.object.kind = PatternKind("lock");
    s.object.key = key;
    s.reading.token = token;
    s.reading.pttlMs = pttl;
    s.reading.atMs = 1000;
    return s;
}

ObjectState window(const QByteArray &key, qint64 inWindow)
{
    ObjectState s;
    s.object.kind = PatternKind("sliding-window");
    s.object.key = key;
    s.reading.inWindow = inWindow;
    s.reading.limit = 10;
    return s;
}

} // namespace

class tst_ObjectTableModel : public QObject
{
    Q_OBJECT

private slots:
    void incrementalUpdates()
    {
        ObjectTableModel model(QStringLiteral("lock"));
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);

        Snapshot s;
        s.server.timeMs = 1000; // the readings were taken now (atMs 1000)
        s.objects = {lock("lock:a", "t1", 900), window("rl:x", 3), lock("lock:b", "t2", 800)};
        model.applySnapshot(s);
        QCOMPARE(model.rowCount(), 2); // only this section's instances
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(changed.size(), 0);
        QCOMPARE(model.index(0, 1).data().toString(), QStringLiteral("t1"));

        // Same instances, new readings: dataChanged, no insert, no reset.
        s.objects = {lock("lock:a", "t9", 500), lock("lock:b", "t2", 700)};
        model.applySnapshot(s);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(model.index(0, 1).data().toString(), QStringLiteral("t9"));
        QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("500 ms"));

        // A new instance appears: inserted at the end, the others keep their rows.
        s.objects.append(lock("lock:c", "t3", 100));
        model.applySnapshot(s);
        QCOMPARE(inserted.size(), 2);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.rowOf("lock:a"), 0);
        QCOMPARE(model.rowOf("lock:c"), 2);
        QCOMPARE(reset.size(), 0);

        // A new connection is the one reset.
        model.clear();
        QCOMPARE(reset.size(), 1);
        QCOMPARE(model.rowCount(), 0);
    }

    // Lock TTLs count down between readings.
    void ttlCountsDown()
    {
        ObjectTableModel model(QStringLiteral("lock"));
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        Snapshot s;
        s.server.timeMs = 1000;
        s.objects = {lock("lock:a", "t1", 9000)}; // read at 1000 with 9 s left
        model.applySnapshot(s);
        QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("9.0 s"));
        model.advanceTo(4000);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("6.0 s"));
        model.advanceTo(20000);
        QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("0 ms"));
    }

    // A state not re-read by the last tick (the adaptive refresh shares it
    // between snapshots) still shows its ages as of the new snapshot, and the
    // view is told to repaint that column.
    void agesMoveWithoutANewState()
    {
        ObjectTableModel model(QStringLiteral("queue"));
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        ObjectState q;
        q.object.kind = PatternKind("reliable-queue");
        q.object.key = "jobs:mail";
        q.reading.atMs = 1000;
        q.reading.inFlight = 1;
        q.reading.oldestInFlightAgeMs = 500;
        Snapshot s;
        s.server.timeMs = 1000;
        s.objects = {q};
        model.applySnapshot(s);
        QCOMPARE(model.index(0, 3).data().toString(), QStringLiteral("500 ms"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        Snapshot later = s; // the very same state object
        later.server.timeMs = 3000;
        model.applySnapshot(later);
        QCOMPARE(model.index(0, 3).data().toString(), QStringLiteral("2.5 s"));
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex().column(), 3);
    }

    void limiterColumns()
    {
        ObjectTableModel model(QStringLiteral("limiter"));
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        Snapshot s;
        s.objects = {window("rl:x", 8)};
        model.applySnapshot(s);
        QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("8 / 10"));
        QCOMPARE(model.index(0, 3).data().toString(), QStringLiteral("80 %"));
        QCOMPARE(model.index(0, 3).data(ObjectTableModel::SortRole).toDouble(), 0.8);
        QCOMPARE(model.index(0, 0).data(ObjectTableModel::KeyRole).toByteArray(),
                 QByteArray("rl:x"));
    }
};

QTEST_MAIN(tst_ObjectTableModel)
#include "tst_objecttablemodel.moc"
