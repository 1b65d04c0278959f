// SPDX-License-Identifier: MIT
// The monitor's pacing against a real redis-server: ticks that adapt and stay
// exact, polling without keyspace events, the refresh budget (paced, and its
// estimate), a paused monitor reading nothing, and an operator's writes never
// waiting behind routine reads.
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <patterns/lock/lockdata.h>
#include <redis/redisclient.h>
#include <redis/serverinfo.h>

#include "monitortest.h"
#include "redisserver.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using namespace gatehouse::test::monitortest;

class tst_MonitorPacing : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server{[] {
        RedisServer::Options o;
        o.config << QStringLiteral("notify-keyspace-events KEA");
        return o;
    }()};
    std::unique_ptr<RedisClient> m_client;

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void init()
    {
        QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK"));
        // As the server was started, whatever a test that failed left.
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // With events live, a tick reads only what may have changed; the rest is
    // advanced with time and stays exact: a lock's TTL counts down, entries
    // leave a window, a claim turns stuck, and a write Redis did not announce
    // is caught by the rolling sweep.
    void adaptiveTicksStayExact()
    {
        const qint64 now = serverTimeMs(call(*m_client, {"TIME"}));
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < 40; ++i)
            cmds.append({"SET", "sim:lock:" + QByteArray::number(i),
                         "tok0en" + QByteArray::number(i), "PX", "60000"});
        // Two entries leave the 10 s window about 1.5 s from now, one stays.
        cmds.append({"ZADD", "sim:rl:api:a", QByteArray::number(now - 8500), "r1",
                     QByteArray::number(now - 8400), "r2", QByteArray::number(now), "r3"});
        // One claim turns stuck (30 s) about 1.5 s from now; one is fresh.
        cmds.append({"LPUSH", "sim:jobs:mail:processing", "old", "new"});
        cmds.append({"ZADD", "sim:jobs:mail:claims", QByteArray::number(now - 28500), "old",
                     QByteArray::number(now), "new"});
        for (const auto &c : cmds)
            call(*m_client, c);

        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 200;
        options.sweepMs = 3000; // 15 ticks: 3 of 42 objects per tick
        options.eventsCheckMs = 1000;
        options.rescanMs = 0;
        Monitor monitor(m_client.get(), options);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        monitor.start();
        QVERIFY(QTest::qWaitFor(
            [&] { return monitor.snapshot().server.eventsLive && ticks.size() >= 3; }, 10000));
        const Snapshot first = monitor.snapshot();
        QCOMPARE(first.objects.size(), 42);
        QCOMPARE(find(first, "sim:rl:api:a")->reading.inWindow, 3);
        QCOMPARE(find(first, "sim:jobs:mail")->reading.queue().stuck, 0);

        // Quiet ticks read the sweep's slice and little else.
        ticks.clear();
        QVERIFY(QTest::qWaitFor([&] { return ticks.size() >= 3; }, 5000));
        QVERIFY2(monitor.lastTickObjectsRead() <= 6,
                 qPrintable(QStringLiteral("%1 objects read").arg(monitor.lastTickObjectsRead())));

        // The lock TTLs shown agree with Redis though most were not read.
        {
            const Snapshot s = ticks.last().first().value<Snapshot>();
            const qint64 pttl = call(*m_client, {"PTTL", "sim:lock:7"}).toInteger();
            const qint64 serverNowMs = serverTimeMs(call(*m_client, {"TIME"}));
            const ObjectState *lock = find(s, "sim:lock:7");
            QVERIFY(lock);
            const qint64 shown = lock->reading.at(serverNowMs).pttlMs;
            QVERIFY2(std::abs(shown - pttl) < 50,
                     qPrintable(QStringLiteral("shown %1 ms, Redis %2 ms").arg(shown).arg(pttl)));
            // The snapshot's JSON states it as of the snapshot's time.
            const QJsonArray locks = s.toJson().value(QStringLiteral("locks")).toArray();
            bool inJson = false;
            for (const QJsonValue &l : locks) {
                if (l[QStringLiteral("key")].toString() == QLatin1String("sim:lock:7")) {
                    inJson = true;
                    const qint64 json = l[QStringLiteral("pttlMs")].toInteger();
                    QVERIFY2(std::abs(json - (pttl + serverNowMs - s.server.timeMs)) < 50,
                             qPrintable(QStringLiteral("JSON %1 ms").arg(json)));
                }
            }
            QVERIFY(inJson);
        }

        // Time alone: the window empties to one entry, the claim turns stuck,
        // within a tick of the moment (no write, so no event).
        QVERIFY(QTest::qWaitFor(
            [&] {
                const Snapshot s = monitor.snapshot();
                return find(s, "sim:rl:api:a")->reading.inWindow == 1
                       && find(s, "sim:jobs:mail")->reading.queue().stuck == 1;
            },
            4000));
        const qint64 at = serverTimeMs(call(*m_client, {"TIME"}));
        QVERIFY2(
            at - now < 1500 + 600,
            qPrintable(QStringLiteral("seen %1 ms after the entries left").arg(at - now - 1500)));

        // A write Redis does not announce: the sweep reads it within sweepMs.
        // (Events off for the write, back on before the monitor re-checks.)
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""});
        call(*m_client, {"SET", "sim:lock:3", "silent0write", "PX", "60000"});
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
        QElapsedTimer clock;
        clock.start();
        QVERIFY(QTest::qWaitFor(
            [&] {
                return LockData::of(find(monitor.snapshot(), "sim:lock:3")->reading).token
                       == "silent0write";
            },
            6000));
        QVERIFY2(clock.elapsed() < 3000 + 400,
                 qPrintable(QStringLiteral("seen after %1 ms").arg(clock.elapsed())));
        QVERIFY(monitor.snapshot().server.eventsLive);

        // Events turned off for good: the monitor notices and polls every tick.
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""});
        QVERIFY(QTest::qWaitFor([&] { return !monitor.snapshot().server.eventsLive; }, 12000));
        QVERIFY(monitor.snapshot()
                    .server.notes.join(QLatin1Char(' '))
                    .contains(QLatin1String("turned off")));
        ticks.clear();
        QVERIFY(QTest::qWaitFor([&] { return ticks.size() >= 2; }, 5000));
        QCOMPARE(monitor.lastTickObjectsRead(), 42);
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
        QVERIFY(QTest::qWaitFor([&] { return monitor.snapshot().server.eventsLive; }, 12000));

        // Without adaptive ticks every object is read every tick.
        Monitor::Options full = options;
        full.adaptive = false;
        Monitor polling(m_client.get(), full);
        QSignalSpy fullTicks(&polling, &Monitor::tickFinished);
        polling.start();
        QVERIFY(QTest::qWaitFor(
            [&] { return polling.snapshot().server.eventsLive && fullTicks.size() >= 3; }, 10000));
        QCOMPARE(polling.lastTickObjectsRead(), 42);
    }

    // With events off, the change shows within one tick, and the snapshot
    // says it is polling.
    void pollingWithoutEvents()
    {
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""});
        call(*m_client, {"SET", "sim:lock:1", "first0token1", "PX", "60000"});
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 300;
        Monitor monitor(m_client.get(), options);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        monitor.start();
        QVERIFY(QTest::qWaitFor([&] { return find(monitor.snapshot(), "sim:lock:1"); }, 10000));
        const Snapshot before = monitor.snapshot();
        QVERIFY(!before.server.eventsLive);
        QVERIFY(before.server.notes.join(QLatin1Char(' ')).contains(QLatin1String("polling")));

        call(*m_client, {"SET", "sim:lock:1", "second1token2", "PX", "60000"});
        ticks.clear();
        QVERIFY(ticks.wait(2000)); // the next tick...
        if (LockData::of(find(ticks.last().first().value<Snapshot>(), "sim:lock:1")->reading).token
            != "second1token2")
            QVERIFY(ticks.wait(2000)); // ...or the one after, if one was in flight
        QCOMPARE(
            LockData::of(find(ticks.last().first().value<Snapshot>(), "sim:lock:1")->reading).token,
            QByteArray("second1token2"));
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    }

    // Without keyspace events, refreshing keeps to its budget of the
    // server's time: a tick reads the hot objects (the selected one, one just
    // written) and a share of the idle ones in turn; no reading shown is older
    // than the age bound the snapshot states, and a write to an idle object
    // is seen within it and then read every tick.
    void budgetedPolling()
    {
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""});
        const int locks = 600;
        for (int i = 0; i < locks; ++i)
            call(*m_client, {"SET", "sim:lock:" + QByteArray::number(i),
                             "t0ken" + QByteArray::number(i), "PX", "3600000"});
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 400;
        options.budgetPercent = 0.05; // 0.2 ms of the server per tick: a hundred locks or so
        options.sweepMs = 20000;      // and every lock at least every 20 s
        Monitor monitor(m_client.get(), options);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        monitor.start();
        monitor.setDetailKey("sim:lock:7");
        const auto budgetTick = [&] {
            return ticks.size() > 0
                   && ticks.last().first().value<Snapshot>().server.budgetPercent > 0;
        };
        QVERIFY(QTest::qWaitFor(budgetTick, 20000));
        const auto lockAt = [](const Snapshot &s, int i) {
            return find(s, "sim:lock:" + QByteArray::number(i));
        };

        // A few bounds' worth of ticks: every reading within the bound stated.
        ticks.clear();
        QElapsedTimer watching;
        watching.start();
        qint64 bound = 0;
        double share = 0;
        qint64 read = 0;
        int budgetTicks = 0;
        while (watching.elapsed() < std::clamp<qint64>(2 * bound, 6000, 25000)) {
            QVERIFY(ticks.wait(5000));
            const Snapshot s = ticks.takeLast().first().value<Snapshot>();
            QCOMPARE(s.objects.size(), locks);
            QCOMPARE(s.server.budgetPercent, 0.05);
            bound = s.server.ageBoundMs;
            QVERIFY2(bound > options.intervalMs, qPrintable(QString::number(bound)));
            QVERIFY2(s.server.objectsRead <= locks / 2,
                     qPrintable(QStringLiteral("%1 read").arg(s.server.objectsRead)));
            for (const ObjectState &o : s.objects) {
                const qint64 age = s.server.timeMs - o.reading.atMs;
                QVERIFY2(age <= bound, qPrintable(QStringLiteral("%1 read %2 ms ago, bound %3 ms")
                                                      .arg(QString::fromUtf8(o.object->key))
                                                      .arg(age)
                                                      .arg(bound)));
                QVERIFY(!o.stale);
            }
            // The selected lock every tick.
            QVERIFY(s.server.timeMs - lockAt(s, 7)->reading.atMs <= options.intervalMs);
            share += std::max(0.0, s.server.sharePercent);
            read += s.server.objectsRead;
            ++budgetTicks;
        }
        // Within the budget on average (round trips over-state the server's
        // share: they include the loopback and this process' own work), or,
        // on a machine slow enough that the budget buys less, no more than
        // the share that reads every lock within sweepMs (plus the two hot).
        const double floorShare
            = std::ceil(double(locks) * options.intervalMs / options.sweepMs) + 2;
        QVERIFY2(share / budgetTicks <= 2 * options.budgetPercent
                     || double(read) / budgetTicks <= floorShare,
                 qPrintable(QStringLiteral("%1 % of a core, %2 objects a tick")
                                .arg(share / budgetTicks)
                                .arg(double(read) / budgetTicks)));
        const QJsonObject refresh = monitor.snapshot()
                                        .headerJson()
                                        .value(QStringLiteral("server"))
                                        .toObject()
                                        .value(QStringLiteral("refresh"))
                                        .toObject();
        QCOMPARE(refresh.value(QStringLiteral("mode")).toString(), QStringLiteral("budget"));
        QCOMPARE(refresh.value(QStringLiteral("ageBoundMs")).toDouble(), double(bound));

        // A write to an idle lock: seen within the bound, then read every tick.
        call(*m_client, {"SET", "sim:lock:500", "n3wt0ken", "PX", "3600000"});
        QElapsedTimer seen;
        seen.start();
        QVERIFY(QTest::qWaitFor(
            [&] {
                return LockData::of(lockAt(monitor.snapshot(), 500)->reading).token == "n3wt0ken";
            },
            bound + 3 * options.intervalMs));
        QVERIFY2(seen.elapsed() <= bound + options.intervalMs,
                 qPrintable(QString::number(seen.elapsed())));
        ticks.clear();
        for (int t = 0; t < 3; ++t) {
            QVERIFY(ticks.wait(5000));
            const Snapshot s = ticks.last().first().value<Snapshot>();
            QVERIFY(s.server.timeMs - lockAt(s, 500)->reading.atMs <= options.intervalMs);
        }
        monitor.stop();

        // Budget 0: every object every tick.
        options.budgetPercent = 0;
        Monitor everyTick(m_client.get(), options);
        QSignalSpy allTicks(&everyTick, &Monitor::tickFinished);
        everyTick.start();
        QVERIFY(QTest::qWaitFor([&] { return allTicks.size() >= 3; }, 20000));
        const Snapshot s = allTicks.last().first().value<Snapshot>();
        QCOMPARE(s.server.objectsRead, locks);
        QCOMPARE(s.server.budgetPercent, 0.0);
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    }

    // Budgeted polling never sends a tick's reads at once: round trips of at
    // most PacedBatchObjects objects, one at a time, spread over most of the
    // interval, so another client's command waits behind a fraction of a
    // millisecond of them (bench figure 5, events off). Seen from the
    // server: MONITOR lists every command with the server's time.
    void budgetedPollingIsPaced()
    {
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""});
        const int locks = 3000;
        QVERIFY(setLocks(*m_client, this, locks));
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 1000;
        options.sweepMs = 5000; // at least 600 locks a tick: several round trips
        Monitor monitor(m_client.get(), options);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        monitor.start();
        QVERIFY(QTest::qWaitFor(
            [&] {
                return ticks.size() > 0
                       && ticks.last().first().value<Snapshot>().server.budgetPercent > 0;
            },
            20000));

        QProcess watch;
        const RedisEndpoint ep = m_server.endpoint();
        watch.start(QStringLiteral(GATEHOUSE_REDIS_CLI),
                    {QStringLiteral("-h"), ep.host, QStringLiteral("-p"), QString::number(ep.port),
                     QStringLiteral("monitor")});
        QVERIFY(watch.waitForStarted());
        QTest::qWait(5500); // three whole ticks at least
        watch.kill();
        watch.waitForFinished();
        monitor.stop();
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});

        // A tick starts with TIME; its round trips are the runs of probes
        // without a gap (pipelined commands run back to back, microseconds
        // apart; paced trips are tens of ms apart).
        struct Trip
        {
            double startS = 0;
            double lastS = 0;
            QSet<QByteArray> keys;
        };
        QList<QList<Trip>> tickTrips;
        bool inTick = false;
        for (const QByteArray &line : watch.readAllStandardOutput().split('\n')) {
            // 1732431234.567890 [0 127.0.0.1:34567] "PTTL" "sim:lock:12"
            const qsizetype quote = line.indexOf('"');
            if (quote < 0)
                continue;
            const double at = line.left(line.indexOf(' ')).toDouble();
            const QList<QByteArray> args = line.mid(quote).split(' ');
            const QByteArray command = args.value(0);
            if (command == "\"TIME\"") {
                tickTrips.append(QList<Trip>());
                inTick = true;
                continue;
            }
            const QByteArray key = args.value(1);
            if (!inTick || !key.startsWith("\"sim:lock:"))
                continue;
            QList<Trip> &trips = tickTrips.last();
            if (trips.isEmpty() || at - trips.last().lastS > 0.005)
                trips.append(Trip{at, at, {}});
            trips.last().lastS = at;
            trips.last().keys.insert(key);
        }
        // The first and last ticks may be cut by the watch's start and end.
        QVERIFY2(tickTrips.size() >= 4, qPrintable(QString::number(tickTrips.size())));
        for (qsizetype t = 1; t + 1 < tickTrips.size(); ++t) {
            const QList<Trip> &trips = tickTrips.at(t);
            qsizetype read = 0;
            for (const Trip &trip : trips) {
                QVERIFY2(
                    trip.keys.size() <= Monitor::PacedBatchObjects,
                    qPrintable(QStringLiteral("%1 locks in one round trip").arg(trip.keys.size())));
                read += trip.keys.size();
            }
            // At least the share that reads every lock within sweepMs.
            QVERIFY2(read >= locks * options.intervalMs / options.sweepMs,
                     qPrintable(QStringLiteral("%1 locks read in tick %2").arg(read).arg(t)));
            const double spreadMs = (trips.last().startS - trips.first().startS) * 1000.0;
            QVERIFY2(
                spreadMs >= 0.4 * options.intervalMs,
                qPrintable(
                    QStringLiteral("%1 round trips within %2 ms").arg(trips.size()).arg(spreadMs)));
        }
    }

    // The budget's estimate of what one object costs comes from paced round
    // trips. A full pass (the first, the one after a restart) drains a full
    // pipe, many times cheaper per object: it seeds the estimate before any
    // paced tick, then never moves it. Without that, the ticks after the
    // first and after every restart read two or three times the budget.
    void budgetEstimateIsPaced()
    {
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""});
        const int locks = 3000;
        QVERIFY(setLocks(*m_client, this, locks));
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 500;
        options.budgetPercent = 0.3; // 1.5 ms a tick: some tens of locks, above the sweep's floor
        Monitor monitor(m_client.get(), options);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        // The objects read by each of the next n budgeted ticks.
        const auto budgetTicks = [&](int n) {
            QList<int> read;
            QElapsedTimer clock;
            clock.start();
            while (read.size() < n && clock.elapsed() < 60000) {
                if (ticks.isEmpty() && !ticks.wait(5000))
                    continue;
                const Snapshot s = ticks.takeFirst().first().value<Snapshot>();
                if (s.server.budgetPercent > 0)
                    read.append(s.server.objectsRead);
            }
            return read;
        };
        const auto median = [](QList<int> v) {
            std::sort(v.begin(), v.end());
            return v.isEmpty() ? 0.0 : double(v.at(v.size() / 2));
        };
        monitor.start();
        const QList<int> first = budgetTicks(10);
        QCOMPARE(first.size(), 10);
        const double steady = median(first.mid(4));
        QVERIFY2(steady >= 10 && steady < locks / 2, qPrintable(QString::number(steady)));
        // The ticks after the first plan with the first one's paced trips.
        // Without that each of them read 2.9x the steady count; with it, the
        // steady count at once on a quiet machine (ProbeCost: the count
        // settles; tst_probecost). On a machine whose cores are all busy a
        // tick's round trips vary by half either way (the few of one tick are
        // all it has to go on), so the typical tick of the three is what is
        // asserted.
        const double early = median(first.mid(1, 3));
        QVERIFY2(early <= 1.6 * steady,
                 qPrintable(QStringLiteral("budgeted ticks 2-4 read %1 objects (median), "
                                           "steady %2")
                                .arg(early)
                                .arg(steady)));
        // A restart's full pass leaves the estimate as it was.
        monitor.stop();
        ticks.clear();
        monitor.start();
        const QList<int> again = budgetTicks(3);
        QCOMPARE(again.size(), 3);
        QVERIFY2(median(again) <= 1.6 * steady,
                 qPrintable(QStringLiteral("after the restart, ticks read %1 objects (median), "
                                           "steady %2")
                                .arg(median(again))
                                .arg(steady)));
        monitor.stop();
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    }

    // Paused, a monitor sends the server nothing: no ticks, no re-reads of
    // written keys, no persistence reads; resumed, it reads what was
    // written meanwhile.
    void pausedReadsNothing()
    {
        QVERIFY(setLocks(*m_client, this, 50));
        auto other = gatehouse::test::connectedClient(m_server);
        QVERIFY(other);
        const auto commandsProcessed = [&] {
            const QByteArray info = call(*other, {"INFO", "stats"}).bytes();
            const qsizetype at = info.indexOf("total_commands_processed:");
            return at < 0 ? -1 : info.mid(at + 25, info.indexOf('\r', at) - at - 25).toLongLong();
        };
        for (bool events : {false, true}) {
            Monitor::Options options;
            options.profile = demoProfile();
            options.intervalMs = 100;
            options.useEvents = events;
            Monitor monitor(m_client.get(), options);
            monitor.start();
            QVERIFY(QTest::qWaitFor(
                [&] {
                    const Snapshot s = monitor.snapshot();
                    const ObjectState *o = find(s, "sim:lock:1");
                    return s.server.eventsLive == events && o
                           && LockData::of(o->reading).token == "t0ken1";
                },
                10000));
            QSignalSpy snapshots(&monitor, &Monitor::snapshotReady);
            monitor.setPaused(true);
            QVERIFY(snapshots.wait(2000));
            QVERIFY(snapshots.last().first().value<Snapshot>().server.paused);
            QTest::qWait(300); // a paced batch under way comes back
            const qint64 before = commandsProcessed();
            call(*other, {"SET", "sim:lock:1", "paused0token", "PX", "3600000"});
            QTest::qWait(2500); // 25 ticks, a persistence read's period and more
            // This INFO, the SET and the INFO before: nothing from the monitor.
            QCOMPARE(commandsProcessed() - before, 2);
            const ObjectState *o = find(monitor.snapshot(), "sim:lock:1");
            QVERIFY(o);
            QCOMPARE(LockData::of(o->reading).token, QByteArray("t0ken1"));

            monitor.setPaused(false);
            QVERIFY(QTest::qWaitFor(
                [&] {
                    const Snapshot s = monitor.snapshot();
                    const ObjectState *o = find(s, "sim:lock:1");
                    return !s.server.paused && o
                           && LockData::of(o->reading).token == "paused0token";
                },
                events ? 500 : 2000));
            QVERIFY(commandsProcessed() - before > 3);
            call(*other, {"SET", "sim:lock:1", "t0ken1", "PX", "3600000"});
            monitor.stop();
        }
    }

    // With keyspace events live a tick's routine readings are a heartbeat
    // (about once a second), so a write never waits behind a tick's
    // snapshot for the next publication slot.
    void routineTicksLeaveTheSlotToWrites()
    {
        call(*m_client, {"SET", "sim:lock:1", "token0", "PX", "60000"});
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 100; // a tick every 100 ms
        Monitor monitor(m_client.get(), options);
        monitor.start();
        QVERIFY(liveWithLock(monitor));
        QTest::qWait(1200); // the first full pass and its snapshots are out
        QSignalSpy snapshots(&monitor, &Monitor::snapshotReady);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        QTest::qWait(2500);
        QVERIFY2(ticks.size() >= 15, qPrintable(QString::number(ticks.size())));
        QVERIFY2(snapshots.size() >= 2 && snapshots.size() <= 4,
                 qPrintable(QStringLiteral("%1 snapshots for %2 quiet ticks")
                                .arg(snapshots.size())
                                .arg(ticks.size())));
        // A write lands at once, whenever the last heartbeat went out.
        auto other = gatehouse::test::connectedClient(m_server);
        QVERIFY(other);
        for (int i = 1; i <= 10; ++i) {
            QTest::qWait(37 * i % 150); // anywhere between two ticks
            snapshots.clear();
            QElapsedTimer clock;
            clock.start();
            const QByteArray token = "token" + QByteArray::number(i);
            call(*other, {"SET", "sim:lock:1", token, "PX", "60000"});
            QVERIFY(QTest::qWaitFor(
                [&] {
                    for (const QList<QVariant> &args : std::as_const(snapshots)) {
                        const ObjectState *o = find(args.at(0).value<Snapshot>(), "sim:lock:1");
                        if (o && LockData::of(o->reading).token == token)
                            return true;
                    }
                    return false;
                },
                2000));
            // Not behind a heartbeat (up to 1 s): well under that even on a
            // loaded machine (typically under 10 ms).
            QVERIFY2(clock.elapsed() < 250, qPrintable(QString::number(clock.elapsed())));
        }
    }

    // A write right after a routine snapshot (a quiet tick's heartbeat, the
    // durability figures read every 2 s) is shown at once: only snapshots
    // carrying a change count against the ten-a-second cap. Figure 6 of the
    // bench waited ~100 ms behind the durability reading's snapshot.
    void writesNeverWaitBehindRoutineSnapshots()
    {
        call(*m_client, {"SET", "sim:lock:1", "token0", "PX", "60000"});
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 100;
        Monitor monitor(m_client.get(), options);
        monitor.start();
        QVERIFY(liveWithLock(monitor));
        QTest::qWait(1200); // the first full pass and its snapshots are out
        auto other = gatehouse::test::connectedClient(m_server);
        QVERIFY(other);
        QList<qint64> latencies;
        for (int i = 1; i <= 5; ++i) {
            QTest::qWait(150); // past the last write's snapshots
            // Wait for a snapshot that carries no write of ours (routine),
            // then write at once: with the old cap it waited ~100 ms.
            QByteArray token;
            QElapsedTimer clock;
            qint64 shownAfter = -1;
            QByteArray expected = "token" + QByteArray::number(i - 1);
            QMetaObject::Connection c
                = connect(&monitor, &Monitor::snapshotReady, this, [&](const Snapshot &s) {
                      const ObjectState *o = find(s, "sim:lock:1");
                      if (!o)
                          return;
                      if (token.isEmpty()) {
                          if (LockData::of(o->reading).token != expected)
                              return;
                          token = "token" + QByteArray::number(i);
                          clock.start();
                          other->command({"SET", "sim:lock:1", token, "PX", "60000"}, this,
                                         [](const RedisValue &) {});
                      } else if (LockData::of(o->reading).token == token && shownAfter < 0) {
                          shownAfter = clock.elapsed();
                      }
                  });
            const bool shown = QTest::qWaitFor([&] { return shownAfter >= 0; }, 5000);
            disconnect(c);
            QVERIFY2(shown, qPrintable(QStringLiteral("write %1 never shown").arg(i)));
            latencies << shownAfter;
        }
        std::sort(latencies.begin(), latencies.end());
        // Typically 1-5 ms; behind a routine snapshot it was 90-100 ms.
        QVERIFY2(latencies.at(2) < 50,
                 qPrintable(QStringLiteral("write to snapshot (ms, sorted): %1")
                                .arg(QStringList([&] {
                                         QStringList l;
                                         for (qint64 v : latencies)
                                             l << QString::number(v);
                                         return l;
                                     }())
                                         .join(QLatin1String(", ")))));
    }
};

QTEST_GUILESS_MAIN(tst_MonitorPacing)
#include "tst_monitorpacing.moc"
