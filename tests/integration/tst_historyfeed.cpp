// SPDX-License-Identifier: MIT
// The history file fed with what the monitor replaced (Monitor::takeReplaced,
// HistoryStore::Replaced), against a real redis-server under budgeted
// polling with writes going on: the store compares only the objects listed
// (an idle object costs the monitor's thread nothing), every object whose
// state changed is listed unless it was read again and says what its last
// state's motions say (an idle object's re-read), and the file holds exactly
// the rows a store comparing every object writes.
#include <history/historychanges.h>
#include <history/historystore.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <patterns/lock/lockdata.h>
#include <patterns/patternunit.h>
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QDateTime>
#include <QSet>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUuid>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

constexpr int Limiters = 300;
constexpr int Locks = 300;

// Every row of every table the writer fills, in key order, as text.
QStringList tableRows(const QString &path, QString *error)
{
    QStringList out;
    const QString name = QUuid::createUuid().toString();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
        if (!db.open()) {
            *error = db.lastError().text();
        } else {
            QSqlQuery q(db);
            for (const char *sql :
                 {"SELECT * FROM objects ORDER BY id", "SELECT * FROM keyframes ORDER BY t",
                  "SELECT * FROM recent ORDER BY t",
                  "SELECT * FROM samples ORDER BY minute, object",
                  "SELECT * FROM buckets ORDER BY hour, object"}) {
                if (!q.exec(QString::fromLatin1(sql))) {
                    *error = QString::fromLatin1(sql) + QStringLiteral(": ") + q.lastError().text();
                    break;
                }
                while (q.next()) {
                    QStringList row{QString::fromLatin1(sql).section(QLatin1Char(' '), 3, 3)};
                    for (int c = 0; c < q.record().count(); ++c) {
                        const QVariant v = q.value(c);
                        row << (v.typeId() == QMetaType::QByteArray
                                    ? QString::fromLatin1(v.toByteArray().toHex())
                                    : v.toString());
                    }
                    out << row.join(QLatin1Char('|'));
                }
            }
        }
    }
    QSqlDatabase::removeDatabase(name);
    return out;
}

// Whether the history sees state now as the same motions as state was, at
// the tick's time atMs: what a store comparing every object would find.
bool sameForHistory(const ObjectState &was, const ObjectState &now, qint64 atMs)
{
    HistoryTick::Entry a, b;
    bool aMoves = false, bMoves = false;
    HistoryTick::entryOf(was, atMs, &a, &aMoves);
    HistoryTick::entryOf(now, atMs, &b, &bMoves);
    if (aMoves || bMoves || a.absent != b.absent || a.figures != b.figures)
        return false;
    const QList<Figure> figures = PatternUnit::of(now.object->kind).figures();
    for (int f = 0; f < a.figures; ++f) {
        if (!Internal::sameMotion(a.values[f], a.slopes[f], b.values[f], b.slopes[f],
                                  figures.at(f).isDuration))
            return false;
    }
    return true;
}

} // namespace

class tst_HistoryFeed : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;

private slots:
    void initTestCase()
    {
        QVERIFY2(QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")),
                 "Qt's SQLite driver is missing: run .ci/install-deps (Debian libqt6sql6-sqlite).");
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void onlyReplacedObjectsCompared()
    {
        QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK"));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (int i = 0; i < Limiters; ++i) {
            const QByteArray key = "hf:rl:" + QByteArray::number(i);
            for (int m = 0; m < 3; ++m)
                call(*m_client, {"ZADD", key, QByteArray::number(now - m * 1000 - i),
                                 "r" + QByteArray::number(m)});
        }
        for (int i = 0; i < Locks; ++i)
            call(*m_client, {"SET", "hf:lock:" + QByteArray::number(i), "holder", "PX",
                             QByteArray::number(600000 + i)});
        QString error;
        const auto profile = Profile::fromJson(
            R"({"rules": [{"pattern": "sliding-window", "match": "hf:rl:*", "limit": 100,
                           "window": 60000},
                          {"pattern": "lock", "match": "hf:lock:*"}]})",
            QStringLiteral("feed"), &error);
        QVERIFY2(profile, qPrintable(error));

        // Budgeted polling (keyspace events off), a small share: a tick
        // reads the objects written and some idle ones in turn.
        Monitor::Options options;
        options.profile = profile;
        options.useEvents = false;
        options.intervalMs = 200;
        options.budgetPercent = 0.5;
        options.behaviourTicks = 0;
        options.readDurability = false;
        Monitor monitor(m_client.get(), options);

        QTemporaryDir dir;
        const QString walkedPath = dir.filePath(QStringLiteral("walked.sqlite"));
        const QString listedPath = dir.filePath(QStringLiteral("listed.sqlite"));
        HistoryStore::Options storeOptions;
        storeOptions.maxPendingTicks = 100000;
        HistoryStore walked(walkedPath, storeOptions); // compares every object
        HistoryStore listed(listedPath, storeOptions); // what the monitor replaced
        QSignalSpy problems(&walked, &HistoryStore::problem);
        QSignalSpy listedProblems(&listed, &HistoryStore::problem);
        walked.open();
        listed.open();

        bool discovered = false;
        int ticks = 0, listedTicks = 0;
        qsizetype walkedCompared = 0, listedCompared = 0, changedStates = 0, confirmedStates = 0;
        qsizetype walkedEntries = 0, listedEntries = 0;
        QString missed;
        ObjectList previous;
        connect(&monitor, &Monitor::discoveryFinished, this, [&] { discovered = true; });
        connect(&monitor, &Monitor::tickFinished, this, [&](const Snapshot &s) {
            Monitor::Replaced taken = monitor.takeReplaced();
            if (!discovered)
                return;
            // Every state that is not the one of the last tick's snapshot
            // is listed, or is a re-read the history sees as the same
            // motions (the monitor's list leaves out nothing it would write).
            const bool follows = !taken.all && previous.size() == s.objects.size() && ticks > 0;
            if (follows) {
                const QSet<int> places(taken.indices.cbegin(), taken.indices.cend());
                for (qsizetype i = 0; i < s.objects.size(); ++i) {
                    if (s.objects.ptr(i) == previous.ptr(i))
                        continue;
                    ++changedStates;
                    if (places.contains(int(i)))
                        continue;
                    ++confirmedStates;
                    if (!sameForHistory(previous.at(i), s.objects.at(i), s.server.timeMs)
                        && missed.isEmpty())
                        missed = QString::fromLatin1(s.objects.at(i).object->key);
                }
            }
            previous = s.objects;
            HistoryStore::Replaced replaced;
            replaced.source = taken.monitor;
            replaced.sinceSequence = taken.sinceSequence;
            replaced.sequence = taken.sequence;
            replaced.all = taken.all;
            replaced.indices = taken.indices;
            walked.append(s);
            listed.append(s, replaced);
            const HistoryStore::FeedStats w = walked.lastFeed();
            const HistoryStore::FeedStats l = listed.lastFeed();
            QCOMPARE(l.full, w.full);
            QVERIFY(l.entries <= w.entries);
            walkedEntries += w.entries;
            listedEntries += l.entries;
            if (follows && !l.full) {
                ++listedTicks;
                walkedCompared += w.compared;
                listedCompared += l.compared;
                QSet<int> unique(taken.indices.cbegin(), taken.indices.cend());
                QCOMPARE(l.compared, qsizetype(unique.size()));
                QCOMPARE(w.compared, s.objects.size());
            }
            ++ticks;
        });

        // Writes while it runs: limiters take requests, locks are extended,
        // released, taken again; one lock expires.
        call(*m_client, {"SET", "hf:lock:expiring", "holder", "PX", "1500"});
        int round = 0;
        QTimer traffic;
        traffic.setInterval(150);
        connect(&traffic, &QTimer::timeout, this, [&] {
            const QByteArray n = QByteArray::number(round);
            const qint64 t = QDateTime::currentMSecsSinceEpoch();
            m_client->command(
                {"ZADD", "hf:rl:" + QByteArray::number(round % 7), QByteArray::number(t), "w" + n},
                this, [](const RedisValue &) {});
            m_client->command({"PEXPIRE", "hf:lock:" + QByteArray::number(round % 11),
                               QByteArray::number(900000 + round)},
                              this, [](const RedisValue &) {});
            if (round % 10 == 3)
                m_client->command({"DEL", "hf:lock:200"}, this, [](const RedisValue &) {});
            if (round % 10 == 8)
                m_client->command({"SET", "hf:lock:200", "other" + n, "PX", "300000"}, this,
                                  [](const RedisValue &) {});
            ++round;
        });
        QSignalSpy found(&monitor, &Monitor::discoveryFinished);
        monitor.start();
        QVERIFY(found.wait(20000));
        traffic.start();
        QTRY_VERIFY_WITH_TIMEOUT(ticks >= 40, 30000);
        traffic.stop();
        monitor.stop();
        walked.flush();
        listed.flush();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).value(0).toString()));
        QVERIFY2(listedProblems.isEmpty(), qPrintable(listedProblems.value(0).value(0).toString()));

        QVERIFY2(missed.isEmpty(),
                 qPrintable(QStringLiteral("%1's state was replaced, changed for the history, "
                                           "and not listed")
                                .arg(missed)));
        qInfo("%lld states replaced, %lld of them re-reads left out; %lld entries listed, "
              "%lld walked",
              qlonglong(changedStates), qlonglong(confirmedStates), qlonglong(listedEntries),
              qlonglong(walkedEntries));
        // Idle objects were read again and left out: fewer entries than a
        // store comparing every object makes.
        QVERIFY2(confirmedStates > 0 && listedEntries < walkedEntries,
                 qPrintable(QStringLiteral("%1 re-reads left out; %2 entries listed, %3 walked")
                                .arg(confirmedStates)
                                .arg(listedEntries)
                                .arg(walkedEntries)));
        // The list was used, and it spared most of the comparisons: the
        // objects read each tick, not all 601.
        QVERIFY2(listedTicks >= 30, qPrintable(QString::number(listedTicks)));
        QVERIFY(changedStates > 0);
        QVERIFY2(listedCompared * 4 < walkedCompared,
                 qPrintable(QStringLiteral("%1 compared with the list, %2 without")
                                .arg(listedCompared)
                                .arg(walkedCompared)));
        QVERIFY(listedCompared >= changedStates - confirmedStates);

        // The same file: every row of every table.
        QString walkedError, listedError;
        const QStringList walkedRows = tableRows(walkedPath, &walkedError);
        const QStringList listedRows = tableRows(listedPath, &listedError);
        QVERIFY2(walkedError.isEmpty(), qPrintable(walkedError));
        QVERIFY2(listedError.isEmpty(), qPrintable(listedError));
        QVERIFY(walkedRows.size() > Limiters); // the objects, the ticks
        QCOMPARE(listedRows.size(), walkedRows.size());
        for (qsizetype i = 0; i < walkedRows.size(); ++i)
            QCOMPARE(listedRows.at(i), walkedRows.at(i));
        // And what an operator reads: a limiter written during the run, a
        // lock extended, the expired one.
        for (const QByteArray &key : {QByteArray("hf:rl:3"), QByteArray("hf:lock:5"),
                                      QByteArray("hf:lock:expiring"), QByteArray("hf:rl:250")}) {
            QString e1, e2;
            const auto a
                = HistoryStore::read(walkedPath, key, 0, std::numeric_limits<qint64>::max(), &e1);
            const auto b
                = HistoryStore::read(listedPath, key, 0, std::numeric_limits<qint64>::max(), &e2);
            QVERIFY2(a && b, qPrintable(e1 + e2));
            QVERIFY2(!a->times.isEmpty(), key.constData());
            QCOMPARE(b->times, a->times);
            QCOMPARE(b->values, a->values);
        }
    }

    // A list that does not follow on from the last append (another monitor,
    // a tick left out) is not trusted: every object is compared.
    void unfollowedListComparesEveryObject()
    {
        QTemporaryDir dir;
        HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
        store.open();
        Snapshot s;
        for (int i = 0; i < 50; ++i) {
            ObjectState o;
            o.object.edit().kind = PatternKind{"lock"};
            o.object.edit().key = "lk:" + QByteArray::number(i);
            o.reading.atMs = 1000;
            LockData::in(o.reading).token = "t";
            o.reading.pttlMs = 60000;
            s.objects.append(o);
        }
        s.server.timeMs = 1000;
        s.sequence = 7;
        HistoryStore::Replaced r;
        r.source = 3;
        r.sinceSequence = 0;
        r.sequence = 7;
        r.all = true;
        store.append(s, r);
        QVERIFY(store.lastFeed().full); // the first
        QCOMPARE(store.lastFeed().compared, 50);
        // Follows on, lists one: one compared.
        s.server.timeMs = 2000;
        s.sequence = 9;
        r = {3, 7, 9, false, {4, 4}};
        store.append(s, r);
        QVERIFY(!store.lastFeed().full);
        QCOMPARE(store.lastFeed().compared, 1);
        // Another source, or a sequence skipped: all 50.
        s.server.timeMs = 3000;
        s.sequence = 10;
        r = {4, 9, 10, false, {4}};
        store.append(s, r);
        QCOMPARE(store.lastFeed().compared, 50);
        s.server.timeMs = 4000;
        s.sequence = 12;
        r = {4, 11, 12, false, {4}};
        store.append(s, r);
        QCOMPARE(store.lastFeed().compared, 50);
        // A place beyond the snapshot: a full tick, not a crash.
        s.server.timeMs = 5000;
        s.sequence = 13;
        r = {4, 12, 13, false, {4, 50}};
        store.append(s, r);
        QVERIFY(store.lastFeed().full);
        QCOMPARE(store.lastFeed().compared, 50);
        store.flush();
    }
};

QTEST_GUILESS_MAIN(tst_HistoryFeed)
#include "tst_historyfeed.moc"
