// SPDX-License-Identifier: MIT
// The table models update incrementally: inserted rows for new instances,
// dataChanged for changed ones, never a reset while connected.
#include <objecttablemodel.h>
#include <patterns/limiterdata.h>
#include <patterns/lock/lockdata.h>
#include <patterns/token-family/tokendata.h>
#include <sidelist.h>

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QLocale>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;

Q_DECLARE_METATYPE(gatehouse::ObjectState)

namespace {

ObjectState lock(const QByteArray &key, const QByteArray &token, qint64 pttl)
{
    ObjectState s;
    s.object.edit().kind = PatternKind("lock");
    s.object.edit().key = key;
    LockData::in(s.reading).token = token;
    s.reading.pttlMs = pttl;
    s.reading.atMs = 1000;
    return s;
}

ObjectState window(const QByteArray &key, qint64 inWindow)
{
    ObjectState s;
    s.object.edit().kind = PatternKind("sliding-window");
    s.object.edit().key = key;
    s.reading.inWindow = inWindow;
    s.reading.limit = 10;
    return s;
}

} // namespace

namespace {

// The Status column, wherever the section's units put it.
int statusColumn(const ObjectTableModel &model)
{
    for (int c = 0; c < model.columnCount(); ++c) {
        if (model.headerData(c, Qt::Horizontal).toString() == QLatin1String("Status"))
            return c;
    }
    return -1;
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

    // A page not shown applies no snapshot; it must not keep the states of
    // the last one it applied alive beyond its own rows (30,000 objects'
    // worth of replaced states, bench M4), and finds its rows again after.
    void releasedPlacesHoldNoOtherSectionsStates()
    {
        ObjectTableModel model(QStringLiteral("lock"));
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::weak_ptr<const ObjectState> otherSection;
        {
            Snapshot s;
            s.server.timeMs = 1000;
            s.objects = {lock("lock:a", "t1", 900), window("rl:x", 3), lock("lock:b", "t2", 800)};
            otherSection = s.objects.ptr(1);
            model.applySnapshot(s);
        }
        QVERIFY(!otherSection.expired()); // the place index still has it

        model.releasePlaces();
        QVERIFY(otherSection.expired());
        QCOMPARE(model.rowCount(), 2); // its own rows stay as they were
        QCOMPARE(model.index(0, 1).data().toString(), QStringLiteral("t1"));

        // The next snapshot finds each row by key: same rows, new readings.
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        Snapshot next;
        next.server.timeMs = 2000;
        next.objects = {window("rl:x", 4), lock("lock:b", "t7", 700), lock("lock:a", "t1", 600)};
        model.applySnapshot(next);
        QCOMPARE(inserted.size(), 0);
        QCOMPARE(removed.size(), 0);
        QCOMPARE(model.rowOf("lock:a"), 0);
        QCOMPARE(model.rowOf("lock:b"), 1);
        QCOMPARE(model.index(1, 1).data().toString(), QStringLiteral("t7"));
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
        // Two runs of time columns: TTL and held-for, and the Status (its
        // words can move with time: "expired 9.3 min ago").
        QCOMPARE(changed.size(), 2);
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
        q.object.edit().kind = PatternKind("reliable-queue");
        q.object.edit().key = "jobs:mail";
        q.reading.atMs = 1000;
        q.reading.editQueue().inFlight = 1;
        q.reading.editQueue().oldestInFlightAgeMs = 500;
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
        // The queue table's columns that move with time: the age, and the
        // Redisson delayed queue's "Next due in" countdown (empty here).
        QCOMPARE(changed.size(), 2);
        QCOMPARE(changed.first().at(0).toModelIndex().column(), 3);
        QCOMPARE(model.headerData(changed.last().at(0).toModelIndex().column(), Qt::Horizontal)
                     .toString(),
                 QStringLiteral("Next due in"));
    }

    // Every section: each header has its own figure under it, nothing lies
    // past the last header, and the header count is the column count. (The
    // queue table once had 7 headers and 8 figures: throughput showed under
    // "Status" and the status never showed.)
    void everyHeaderShowsItsFigure_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<ObjectState>("state");
        QTest::addColumn<QStringList>("expected"); // header=figure, in header order

        ObjectState limiter = window("rl:x", 8);
        limiter.reading.atMs = 1000;
        LimiterData::in(limiter.reading).retryHorizonMs = 1500;
        limiter.reading.status = Reading::Status::Ok;
        QTest::newRow("limiter")
            << QStringLiteral("limiter") << limiter
            << QStringList{QStringLiteral("Key=rl:x"),
                           QStringLiteral("Pattern=") + patternId(PatternKind("sliding-window")),
                           QStringLiteral("In window / limit=8 / 10"),
                           QStringLiteral("Occupancy=80 %"), QStringLiteral("Retry horizon=1.5 s"),
                           // Python limits' columns: none for a
                           // hand-written limiter.
                           QStringLiteral("Library="), QStringLiteral("Resets in="),
                           QStringLiteral("Status=near limit")};

        ObjectState lk = lock("lock:a", "tok-1", 9000);
        lk.heldSinceMs = 400;
        lk.reading.status = Reading::Status::Ok;
        QTest::newRow("lock") << QStringLiteral("lock") << lk
                              << QStringList{QStringLiteral("Key=lock:a"),
                                             QStringLiteral("Holder token=tok-1"),
                                             QStringLiteral("TTL=9.0 s"),
                                             QStringLiteral("Held for=600 ms"),
                                             QStringLiteral("Library="),
                                             QStringLiteral("Counts="),
                                             QStringLiteral("Status=")
                                                 + readingStatusId(Reading::Status::Ok)};

        // A Redisson lock in the same table: its holder (reentered twice) and
        // lease under the shared headers, its library and counts.
        ObjectState rl;
        rl.object.edit().kind = PatternKind("redisson-lock");
        rl.object.edit().key = "reports";
        rl.reading.atMs = 1000;
        rl.reading.status = Reading::Status::Ok;
        rl.reading.pttlMs = 25000;
        LockData::in(rl.reading).token = "6fa459ea-ee8a-4ca4-894e-db77e160355e:41";
        InFlightItem holder;
        holder.job = LockData::of(rl.reading).token;
        holder.attempts = 2;
        rl.reading.editQueue().items = {holder};
        rl.reading.editQueue().inFlight = 1;
        rl.reading.editLibrary().counts = {{QStringLiteral("holders"), 1},
                                           {QStringLiteral("holdCount"), 2},
                                           {QStringLiteral("waiters"), 0}};
        QTest::newRow("redisson-lock")
            << QStringLiteral("lock") << rl
            << QStringList{QStringLiteral("Key=reports"),
                           QStringLiteral("Holder token=6fa459ea-ee8a-4ca4-894e-db77e160355e:41 "
                                          "(×2)"),
                           QStringLiteral("TTL=25 s"), QStringLiteral("Held for=–"),
                           // A held RLock layout with no waiters is what a
                           // fair lock without waiters looks like too.
                           QStringLiteral("Library=redisson · RLock (or an RFairLock with no "
                                          "waiters)"),
                           QStringLiteral("Counts=holders 1 · holdCount 2 · waiters 0"),
                           QStringLiteral("Status=") + readingStatusId(Reading::Status::Ok)};

        ObjectState tk;
        tk.object.edit().kind = PatternKind("token-family");
        tk.object.edit().key = "tok:*";
        tk.reading.atMs = 1000;
        TokenData::in(tk.reading).count = 7;
        TokenData::in(tk.reading).minTtlMs = 2000;
        TokenData::in(tk.reading).maxTtlMs = 5000;
        TokenData::in(tk.reading).withoutTtl = 3;
        tk.reading.status = Reading::Status::Ok;
        QTest::newRow("token") << QStringLiteral("token") << tk
                               << QStringList{QStringLiteral("Family=tok:*"),
                                              QStringLiteral("Live=7"),
                                              QStringLiteral("TTL range=2.0 s – 5.0 s"),
                                              QStringLiteral("No TTL=3"),
                                              QStringLiteral("Status=3 without TTL")};

        ObjectState q;
        q.object.edit().kind = PatternKind("reliable-queue");
        q.object.edit().key = "jobs:mail";
        q.reading.atMs = 1000;
        q.reading.editQueue().length = 11;
        q.reading.editQueue().inFlight = 4;
        q.reading.editQueue().oldestInFlightAgeMs = 700;
        q.reading.editQueue().stuck = 2;
        q.reading.editQueue().deadLength = 5;
        q.reading.status = Reading::Status::WrongType;
        q.throughputPerS = 12.5;
        QTest::newRow("queue") << QStringLiteral("queue") << q
                               << QStringList{QStringLiteral("Queue=jobs:mail"),
                                              QStringLiteral("Length=11"),
                                              QStringLiteral("In flight=4"),
                                              QStringLiteral("Oldest in flight=700 ms"),
                                              QStringLiteral("Stuck=2"),
                                              QStringLiteral("Dead=5"),
                                              QStringLiteral("Throughput=750.0 /min"),
                                              QStringLiteral("Library="),
                                              QStringLiteral("Counts="),
                                              QStringLiteral("Delayed="),
                                              QStringLiteral("Next due in="),
                                              QStringLiteral("Status=wrong type")};

        // A BullMQ queue in the same table: the shared figures under the
        // shared headers, its library and its counts by BullMQ's state names.
        ObjectState b;
        b.object.edit().kind = PatternKind("bullmq");
        b.object.edit().key = "bull:emails";
        b.reading.atMs = 1000;
        b.reading.editQueue().length = 3;
        b.reading.editQueue().inFlight = 1;
        b.reading.editQueue().oldestInFlightAgeMs = 2500;
        b.reading.editQueue().stuck = 1;
        b.reading.editQueue().deadLength = 2;
        b.reading.editLibrary().layoutVersion = QStringLiteral("bullmq:6.7.0");
        b.reading.editLibrary().paused = true;
        b.reading.editLibrary().counts = {{QStringLiteral("wait"), 3},
                                          {QStringLiteral("active"), 1},
                                          {QStringLiteral("failed"), 2}};
        b.throughputPerS = 0.2; // the rise of its completed and failed counts: per minute
        QTest::newRow("bullmq") << QStringLiteral("queue") << b
                                << QStringList{QStringLiteral("Queue=bull:emails"),
                                               QStringLiteral("Length=3"),
                                               QStringLiteral("In flight=1"),
                                               QStringLiteral("Oldest in flight=2.5 s"),
                                               QStringLiteral("Stuck=1"),
                                               QStringLiteral("Dead=2"),
                                               QStringLiteral("Throughput=12.0 /min"),
                                               QStringLiteral("Library=bullmq:6.7.0 (paused)"),
                                               QStringLiteral("Counts=wait 3 · active 1 · "
                                                              "failed 2"),
                                               QStringLiteral("Delayed="),
                                               QStringLiteral("Next due in="),
                                               QStringLiteral("Status=1 stuck")};

        // Celery counts nothing finished: "–", and the cell says why, not 0.
        ObjectState cel;
        cel.object.edit().kind = PatternKind("celery");
        cel.object.edit().key = "celery";
        cel.reading.atMs = 1000;
        cel.reading.editQueue().length = 4;
        cel.throughputPerS = -1;
        QTest::newRow("celery")
            << QStringLiteral("queue") << cel
            << QStringList{QStringLiteral("Queue=celery"), QStringLiteral("Length=4"),
                           QStringLiteral("In flight=0"),  QStringLiteral("Oldest in flight=–"),
                           QStringLiteral("Stuck=0"),      QStringLiteral("Dead="),
                           QStringLiteral("Throughput=–"), QStringLiteral("Library=celery"),
                           QStringLiteral("Counts="),      QStringLiteral("Delayed="),
                           QStringLiteral("Next due in="), QStringLiteral("Status=ok")};

        // A Celery message unacked for 1 min (visibility timeout 1 h): the
        // row says when kombu puts it back by itself.
        ObjectState unacked = cel;
        unacked.object.edit().params.stuckAfterMs = 3600 * 1000;
        unacked.reading.editQueue().inFlight = 1;
        unacked.reading.editQueue().oldestInFlightAgeMs = 60000;
        QTest::newRow("celery unacked")
            << QStringLiteral("queue") << unacked
            << QStringList{QStringLiteral("Queue=celery"),
                           QStringLiteral("Length=4"),
                           QStringLiteral("In flight=1"),
                           QStringLiteral("Oldest in flight=1.0 min (kombu restores in 59.0 min)"),
                           QStringLiteral("Stuck=0"),
                           QStringLiteral("Dead="),
                           QStringLiteral("Throughput=–"),
                           QStringLiteral("Library=celery"),
                           QStringLiteral("Counts="),
                           QStringLiteral("Delayed="),
                           QStringLiteral("Next due in="),
                           QStringLiteral("Status=ok")};

        ObjectState sem;
        sem.object.edit().kind = PatternKind("sorted-set-semaphore");
        sem.object.edit().key = "sem:pool";
        sem.reading.atMs = 1000;
        sem.reading.inWindow = 3;
        sem.reading.limit = 4;
        LimiterData::in(sem.reading).stored = 5;
        LimiterData::in(sem.reading).oldestAgeMs = 2500;
        QTest::newRow("semaphore")
            << QStringLiteral("semaphore") << sem
            << QStringList{QStringLiteral("Key=sem:pool"),
                           QStringLiteral("Holders / limit=3 / 4"),
                           QStringLiteral("Occupancy=75 %"),
                           QStringLiteral("Oldest holder=2.5 s"),
                           QStringLiteral("Expired=2"),
                           QStringLiteral("Library="),
                           QStringLiteral("Counts="),
                           QStringLiteral("Status=") + readingStatusId(Reading::Status::Ok)};
    }

    void everyHeaderShowsItsFigure()
    {
        QFETCH(QString, section);
        QFETCH(ObjectState, state);
        QFETCH(QStringList, expected);
        ObjectTableModel model(section);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        Snapshot s;
        s.server.timeMs = 1000;
        s.objects = {state};
        model.applySnapshot(s);
        QCOMPARE(model.rowCount(), 1);

        QStringList shown;
        for (int c = 0; c < model.columnCount(); ++c)
            shown << model.headerData(c, Qt::Horizontal).toString() + QLatin1Char('=')
                         + model.index(0, c).data().toString();
        QCOMPARE(shown, expected);
        // No header past the last column.
        QVERIFY(model.headerData(model.columnCount(), Qt::Horizontal).toString().isEmpty());
        // A queue without throughput says why in the cell's tooltip.
        const int throughput = int(expected.indexOf(QStringLiteral("Throughput=–")));
        if (state.object->kind == PatternKind("celery")) {
            const QString why = model.index(0, throughput).data(Qt::ToolTipRole).toString();
            QVERIFY2(why.contains(QLatin1String("keeps no count of finished tasks")),
                     qPrintable(why));
        }
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

    // Past the threshold a family of one pattern is one row: its members'
    // figures folded, no row per member until expanded; at half the
    // threshold it is ordinary rows again.
    void familyIsOneRow()
    {
        ObjectTableModel model(QStringLiteral("limiter"));
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto snapshot = [](int n) {
            Snapshot s;
            s.server.timeMs = 1000;
            for (int i = 0; i < n; ++i)
                s.objects.append(window("rl:api:" + QByteArray::number(i), i % 5));
            s.objects.append(window("rl:other", 9)); // its own family, one row
            return s;
        };
        const int n = ObjectTableModel::FamilyThreshold + 10;
        model.applySnapshot(snapshot(n));
        QCOMPARE(model.rowCount(), 2);
        const int family = model.isFamilyRow(0) ? 0 : 1;
        QVERIFY(model.isFamilyRow(family));
        QVERIFY(!model.stateAt(family));
        QCOMPARE(model.index(family, 0).data(ObjectTableModel::MembersRole).toInt(), n);
        QCOMPARE(model.index(family, 0).data(ObjectTableModel::FamilyRole).toByteArray(),
                 QByteArray("rl:api:*"));
        QCOMPARE(model.index(family, 2).data().toString(),
                 QStringLiteral("Σ 120 · max 4 / 10")); // 12 of each of 0..4
        QCOMPARE(model.index(family, 3).data().toString(), QStringLiteral("max 40 %"));
        QCOMPARE(model.index(family, statusColumn(model)).data().toString(),
                 QStringLiteral("60 ok"));
        QCOMPARE(model.rowOf("rl:api:3"), -1);
        QVERIFY(model.rowOf("rl:other") >= 0);

        // Expanded: the members listed, the fullest first; folded: gone again.
        model.setExpanded(family, true);
        QCOMPARE(model.rowCount(), 2 + n);
        QVERIFY(model.rowOf("rl:api:4") >= 0);
        QCOMPARE(model.familyRowOf(model.rowOf("rl:api:4")), family);
        QVERIFY(model.memberBefore(model.rowOf("rl:api:4"), model.rowOf("rl:api:3")));
        model.setExpanded(family, false);
        QCOMPARE(model.rowCount(), 2);

        // A member asked for by key is listed (Ctrl+K, the Overview's links).
        const int row = model.reveal("rl:api:7");
        QVERIFY(row >= 0);
        QCOMPARE(model.stateAt(row)->object->key, QByteArray("rl:api:7"));
        QVERIFY(model.isExpanded(family));
        model.setExpanded(family, false);

        // Shrunk to more than half the threshold: still one row; to half:
        // ordinary rows, no reset.
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.applySnapshot(snapshot(ObjectTableModel::FamilyThreshold / 2 + 1));
        QCOMPARE(model.rowCount(), 2);
        // While its row is selected it stays (the selection never moves).
        model.setSelectedRow(family);
        model.applySnapshot(snapshot(ObjectTableModel::FamilyThreshold / 2));
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(model.isFamilyRow(family));
        model.setSelectedRow(-1);
        model.applySnapshot(snapshot(ObjectTableModel::FamilyThreshold / 2));
        QCOMPARE(model.rowCount(), ObjectTableModel::FamilyThreshold / 2 + 1);
        for (int r = 0; r < model.rowCount(); ++r)
            QVERIFY(!model.isFamilyRow(r));
        QCOMPARE(reset.size(), 0);
    }

    // The million bench's 30,000 limiters of one family: one row, not one
    // per member, and a snapshot folded without a row object per member.
    void thirtyThousandAreOneRow()
    {
        ObjectTableModel model(QStringLiteral("limiter"));
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        Snapshot s;
        s.server.timeMs = 1000;
        s.objects.reserve(30000);
        for (int i = 0; i < 30000; ++i)
            s.objects.append(window("bench:rl:" + QByteArray::number(i), i % 11));
        QElapsedTimer clock;
        clock.start();
        model.applySnapshot(s);
        const qint64 firstMs = clock.restart();
        Snapshot next = s; // the same states, a second later
        next.server.timeMs = 2000;
        model.applySnapshot(next);
        const qint64 nextMs = clock.elapsed();
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(model.index(0, 0).data(ObjectTableModel::MembersRole).toInt(), 30000);
        QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("Σ 149,988 · max 10 / 10"));
        qInfo("30,000 members: first snapshot %lld ms, next %lld ms", firstMs, nextMs);
    }

    // A snapshot that changes one member of a 30,000-member family folds that
    // family again and no other: the other family rows hear nothing of it,
    // and the changed family's figures are right (its sum, maximum and
    // states). Members are shared between snapshots as the monitor shares
    // unchanged states.
    void oneChangedMemberFoldsOnlyItsFamily()
    {
        ObjectTableModel model(QStringLiteral("limiter"));
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        Snapshot s;
        s.server.timeMs = 1000;
        qint64 sum = 0;
        for (int i = 0; i < 30000; ++i) {
            s.objects.append(window("bench:rl:" + QByteArray::number(i), i % 8)); // all ok
            sum += i % 8;
        }
        for (int i = 0; i < 100; ++i)
            s.objects.append(window("api:user:" + QByteArray::number(i), 2));
        for (int i = 0; i < 60; ++i)
            s.objects.append(window("jobs:rl:" + QByteArray::number(i), 1));
        model.applySnapshot(s);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.foldCount(), quint64(3));
        const int big = model.rowOfFamily("bench:rl:*", PatternKind("sliding-window"));
        const int users = model.rowOfFamily("api:user:*", PatternKind("sliding-window"));
        const int jobs = model.rowOfFamily("jobs:rl:*", PatternKind("sliding-window"));
        QVERIFY(big >= 0 && users >= 0 && jobs >= 0);
        QCOMPARE(model.index(big, 2).data().toString(),
                 QStringLiteral("Σ %1 · max 7 / 10").arg(QLocale(QLocale::English).toString(sum)));
        QCOMPARE(model.index(big, statusColumn(model)).data().toString(),
                 QStringLiteral("30,000 ok"));
        const QString usersText = model.index(users, 2).data().toString();
        const QString jobsText = model.index(jobs, 2).data().toString();
        QCOMPARE(usersText, QStringLiteral("Σ 200 · max 2 / 10"));

        // The rows a snapshot's folds repainted (a fold's dataChanged carries
        // SortRole; the time columns' repaint only DisplayRole).
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const auto folded = [&] {
            QSet<int> rows;
            for (const QList<QVariant> &args : std::as_const(changed)) {
                const auto roles = args.at(2).value<QList<int>>();
                if (!roles.contains(ObjectTableModel::SortRole))
                    continue;
                for (int r = args.at(0).toModelIndex().row(); r <= args.at(1).toModelIndex().row();
                     ++r)
                    rows.insert(r);
            }
            changed.clear();
            return rows;
        };
        // A second later, one member of the 30,000 over its limit (25 / 10);
        // every other state the same object as before.
        const auto with = [&](qsizetype index, const ObjectState &state, qint64 timeMs) {
            Snapshot next = s;
            next.server.timeMs = timeMs;
            next.objects = ObjectList();
            for (qsizetype i = 0; i < s.objects.size(); ++i) {
                if (i == index)
                    next.objects.append(std::make_shared<const ObjectState>(state));
                else if (index >= 0 || i != -index - 1) // -1 - i: without object i
                    next.objects.append(s.objects.ptr(i));
            }
            return next;
        };
        s = with(123, window("bench:rl:123", 25), 2000);
        sum += 25 - 123 % 8;
        model.applySnapshot(s);
        QCOMPARE(model.foldCount(), quint64(4));
        QCOMPARE(folded(), QSet<int>{big});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(big, 2).data().toString(),
                 QStringLiteral("Σ %1 · max 25 / 10").arg(QLocale(QLocale::English).toString(sum)));
        QCOMPARE(model.index(big, statusColumn(model)).data().toString(),
                 QStringLiteral("1 over limit · 29,999 ok"));
        QCOMPARE(model.index(big, 0).data(ObjectTableModel::StateIdRole).toString(),
                 states::OverLimit);
        QCOMPARE(model.index(big, 0).data(ObjectTableModel::SeverityRole).toInt(),
                 int(Severity::Critical));
        QCOMPARE(model.index(users, 2).data().toString(), usersText);
        QCOMPARE(model.index(jobs, 2).data().toString(), jobsText);

        // The same states a second later: nothing is folded again (the
        // member over its limit is judged again, its words the same).
        s.server.timeMs = 3000;
        model.applySnapshot(s);
        QCOMPARE(model.foldCount(), quint64(4));
        QCOMPARE(folded(), QSet<int>{});

        // A member of a small family changes: the 30,000 are not folded.
        s = with(30000 + 7, window("api:user:7", 9), 4000);
        model.applySnapshot(s);
        QCOMPARE(model.foldCount(), quint64(5));
        QCOMPARE(folded(), QSet<int>{users});
        QCOMPARE(model.index(users, 2).data().toString(), QStringLiteral("Σ 207 · max 9 / 10"));
        QCOMPARE(model.index(users, statusColumn(model)).data().toString(),
                 QStringLiteral("1 near limit · 99 ok"));

        // A member gone (its key deleted): its family counts one fewer.
        s = with(-1 - 123, {}, 5000);
        sum -= 25;
        model.applySnapshot(s);
        QCOMPARE(model.foldCount(), quint64(6));
        QCOMPARE(folded(), QSet<int>{big});
        QCOMPARE(model.index(big, 0).data(ObjectTableModel::MembersRole).toInt(), 29999);
        QCOMPARE(model.index(big, 2).data().toString(),
                 QStringLiteral("Σ %1 · max 7 / 10").arg(QLocale(QLocale::English).toString(sum)));
        QCOMPARE(model.index(big, statusColumn(model)).data().toString(),
                 QStringLiteral("29,999 ok"));
        QCOMPARE(model.index(big, 0).data(ObjectTableModel::StateIdRole).toString(), states::Ok);
    }

    // The side list's counts, kept from one snapshot to the next (only new
    // states judged), are those of every object judged afresh.
    void sideListTalliesFollowSnapshots()
    {
        const auto same
            = [](const QHash<QString, SectionTally> &a, const QHash<QString, SectionTally> &b) {
                  if (a.keys() != b.keys())
                      return false;
                  for (auto it = a.cbegin(); it != a.cend(); ++it) {
                      const SectionTally &x = it.value();
                      const SectionTally &y = b.value(it.key());
                      if (x.objects != y.objects || x.attention != y.attention || x.worst != y.worst
                          || x.byWords != y.byWords)
                          return false;
                  }
                  return true;
              };
        auto s = std::make_shared<Snapshot>();
        s->server.timeMs = 1000;
        for (int i = 0; i < 300; ++i)
            s->objects.append(window("rl:api:" + QByteArray::number(i), i % 11)); // 10: at limit
        s->objects.append(lock("lock:a", "t1", 900));
        SectionTallier tallier;
        QHash<QString, SectionTally> kept = tallier.tally(s);
        QCOMPARE(kept.value(QStringLiteral("limiter")).objects, 300);
        QVERIFY(kept.value(QStringLiteral("limiter")).attention > 0);
        QVERIFY(same(kept, tallySections(*s)));

        // One window over its limit, one at 0, a lock gone, a second later.
        auto next = std::make_shared<Snapshot>();
        next->server.timeMs = 2000;
        for (qsizetype i = 0; i < s->objects.size(); ++i) {
            if (i == 3)
                next->objects.append(window("rl:api:3", 30));
            else if (i == 10)
                next->objects.append(window("rl:api:10", 0));
            else if (i == 300) {
                ObjectState gone = lock("lock:a", "t1", 900);
                gone.gone = true;
                next->objects.append(gone);
            } else
                next->objects.append(s->objects.ptr(i));
        }
        kept = tallier.tally(next);
        QVERIFY(same(kept, tallySections(*next)));
        QVERIFY(!kept.contains(QStringLiteral("lock"))); // gone: not counted
        // Without one object (the others move up a place).
        auto fewer = std::make_shared<Snapshot>();
        fewer->server.timeMs = 3000;
        for (qsizetype i = 1; i < next->objects.size(); ++i)
            fewer->objects.append(next->objects.ptr(i));
        kept = tallier.tally(fewer);
        QVERIFY(same(kept, tallySections(*fewer)));
        QCOMPARE(kept.value(QStringLiteral("limiter")).objects, 299);
    }
};

QTEST_MAIN(tst_ObjectTableModel)
#include "tst_objecttablemodel.moc"
