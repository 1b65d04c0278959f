// SPDX-License-Identifier: MIT
// The history store's ticks: what a tick writes and what it does not (an
// idle object costs nothing), ids found by place or key, readings newer than
// their tick, and objects registered before the first tick.
#include <history/historystore.h>
#include <monitor/snapshot.h>
#include <patterns/limiterdata.h>
#include <patterns/lock/lockdata.h>
#include <patterns/lock/lockunit.h>
#include <patterns/patternregistry.h>

#include "historytestdata.h"

#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <cmath>

using namespace gatehouse;
using namespace gatehouse::historytest;

namespace {

const PatternKind &s_limiter = historytest::limiter;

// A lock whose one figure is not a straight line in time: the tens of
// seconds its TTL has left (6, 6, ..., 5, ..., 0). No registered pattern has
// such a figure yet; the history must still record it as the snapshot shows
// it at every tick, although nothing reads the object again.
class SteppingLockUnit : public LockUnit
{
public:
    static constexpr PatternKind Kind{"test-stepping-lock"};
    PatternKind kind() const override { return Kind; }
    QList<Figure> figures() const override
    {
        Figure f;
        f.id = QStringLiteral("tensLeft");
        f.title = QStringLiteral("Tens of seconds left");
        f.value = [](const Reading &r, qint64 atMs) {
            return std::ceil(double(r.countdownAt(r.pttlMs, atMs)) / 10000.0);
        };
        return {f};
    }
};

} // namespace

class tst_HistoryTicks : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")),
                 "Qt's SQLite driver is missing: run .ci/install-deps (Debian libqt6sql6-sqlite).");
        QVERIFY(PatternRegistry::instance().find(s_limiter) != nullptr);
        // The registry is built once and read-only after; a test adds its
        // own pattern before anything reads it from another thread.
        const_cast<PatternRegistry &>(PatternRegistry::instance())
            .add(std::make_unique<SteppingLockUnit>());
        QVERIFY(PatternRegistry::instance().find(SteppingLockUnit::Kind) != nullptr);
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

    // A figure that is not a straight line (a staircase) cannot be carried
    // on by its motion: its state is sent again every tick while it steps,
    // whether the store is fed the monitor's list of replaced states (which
    // does not name it: nothing read it again) or walks every object, and
    // the file reads what the snapshot showed at each tick. Once flat (the
    // TTL ran out) it is sent no more.
    void steppingFiguresEveryTick()
    {
        QTemporaryDir dir;
        HistoryStore::Options options;
        options.maxPendingTicks = 100000;
        const QString listedPath = dir.filePath(QStringLiteral("listed.sqlite"));
        const QString walkedPath = dir.filePath(QStringLiteral("walked.sqlite"));
        HistoryStore listed(listedPath, options);
        HistoryStore walked(walkedPath, options);
        QSignalSpy listedProblems(&listed, &HistoryStore::problem);
        QSignalSpy walkedProblems(&walked, &HistoryStore::problem);
        listed.open();
        walked.open();
        Snapshot snapshot;
        ObjectState stepping;
        stepping.object.edit().kind = SteppingLockUnit::Kind;
        stepping.object.edit().key = "lock:stepping";
        stepping.reading.atMs = T0 - 500;
        LockData::in(stepping.reading).token = "holder";
        stepping.reading.pttlMs = 45000; // 44.5 s left at T0: 5; 0 from tick 45 on
        snapshot.objects.append(stepping);
        ObjectState plain;
        plain.object.edit().kind = LockUnit::Kind;
        plain.object.edit().key = "lock:plain";
        plain.reading.atMs = T0 - 500;
        LockData::in(plain.reading).token = "holder";
        plain.reading.pttlMs = 600000;
        snapshot.objects.append(plain);
        constexpr int Ticks = 70;
        QList<float> expected;
        QList<qsizetype> listedEntries, walkedEntries;
        for (int k = 0; k < Ticks; ++k) {
            const qint64 t = T0 + 1000LL * k;
            snapshot.server.timeMs = t;
            HistoryStore::Replaced replaced; // the monitor read nothing again
            replaced.source = 1;
            replaced.sinceSequence = snapshot.sequence;
            replaced.sequence = ++snapshot.sequence;
            replaced.all = false;
            listed.append(snapshot, replaced);
            walked.append(snapshot);
            QCOMPARE(listed.lastFeed().full, k == 0);
            QCOMPARE(walked.lastFeed().full, k == 0);
            listedEntries.append(listed.lastFeed().entries);
            walkedEntries.append(walked.lastFeed().entries);
            expected.append(float(std::ceil((45000.0 - 500 - 1000.0 * k) / 10000.0)));
            expected.last() = std::max(0.0f, expected.last());
        }
        listed.flush();
        walked.flush();
        QVERIFY2(listedProblems.isEmpty(), qPrintable(listedProblems.value(0).value(0).toString()));
        QVERIFY2(walkedProblems.isEmpty(), qPrintable(walkedProblems.value(0).value(0).toString()));
        // Sent while it steps (its hour-on value differs from its second-on
        // one), never the plain lock's countdown; and not once it is flat.
        for (int k = 1; k < Ticks; ++k) {
            const qsizetype want = k <= 44 ? 1 : 0;
            QVERIFY2(listedEntries.at(k) == want && walkedEntries.at(k) == want,
                     qPrintable(QStringLiteral("tick %1: %2 entries listed, %3 walked, not %4")
                                    .arg(k)
                                    .arg(listedEntries.at(k))
                                    .arg(walkedEntries.at(k))
                                    .arg(want)));
        }
        for (const QString &path : {listedPath, walkedPath}) {
            QString error;
            const auto r = HistoryStore::read(path, "lock:stepping", T0, T0 + Ticks * 1000, &error);
            QVERIFY2(r, qPrintable(error));
            QCOMPARE(r->times.size(), Ticks);
            QCOMPARE(r->values.at(0), expected);
            const auto p = HistoryStore::read(path, "lock:plain", T0, T0 + Ticks * 1000, &error);
            QVERIFY2(p, qPrintable(error));
            QCOMPARE(p->values.at(0).last(), float(600000 - 500 - 1000 * (Ticks - 1)));
        }
        QCOMPARE(expected.at(0), 5.0f); // 44.5 s left
        QCOMPARE(expected.at(5), 4.0f);
        QCOMPARE(expected.at(44), 1.0f);
        QCOMPARE(expected.at(45), 0.0f);
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
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    tst_HistoryTicks tc;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tc, argc, argv);
}

#include "tst_historyticks.moc"
