// SPDX-License-Identifier: MIT
// The monitor against a real redis-server: discovery finds what the simulator
// made (with and without a profile), readings at a controlled moment, keyspace
// events, snapshots, rescans and profiles. Its pacing (polling, the refresh
// budget, pauses, writes before routine reads) is in tst_monitorpacing.
#include <monitor/discovery.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <patterns/limiterdata.h>
#include <patterns/lock/lockdata.h>
#include <patterns/token-family/tokendata.h>
#include <redis/redisclient.h>
#include <redis/serverinfo.h>
#include <sim/simulator.h>

#include "monitortest.h"
#include "redisserver.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using namespace gatehouse::test::monitortest;

namespace {

using Catalogue = QMap<QString, QList<QByteArray>>;

Catalogue byPattern(const QList<PatternObject> &objects)
{
    Catalogue out;
    for (const PatternObject &o : objects)
        out[patternId(o.kind)].append(o.key);
    for (auto &keys : out)
        std::sort(keys.begin(), keys.end());
    return out;
}

QList<PatternObject> discover(RedisClient &client, std::optional<Profile> profile)
{
    Discovery discovery(&client, std::move(profile));
    discovery.setScanCount(7); // many SCAN steps, even on a small keyspace
    QSignalSpy finished(&discovery, &Discovery::finished);
    QSignalSpy found(&discovery, &Discovery::objectsFound);
    discovery.start();
    if (!finished.wait(30000))
        return {};
    return discovery.objects();
}

} // namespace

class tst_Monitor : public QObject
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

    // After the simulator, discovery finds exactly what it says it left, each
    // classified right, with the demo profile and by autodetection.
    void discoveryMatchesSimulator()
    {
        Simulator::Options options;
        options.seconds = 3;
        options.scale = 2;
        options.seed = 11;
        Simulator sim(m_client.get(), options);
        QSignalSpy done(&sim, &Simulator::finished);
        sim.start();
        QVERIFY(done.wait(20000));
        const SimulatorCensus census = done.first().first().value<SimulatorCensus>();
        Catalogue expected = census.objects;
        for (auto &keys : expected)
            std::sort(keys.begin(), keys.end());
        QCOMPARE(expected.size(), 9); // every pattern is there

        const Catalogue withProfile = byPattern(discover(*m_client, demoProfile()));
        QCOMPARE(withProfile, expected);
        const Catalogue detected = byPattern(discover(*m_client, std::nullopt));
        QCOMPARE(detected, expected);
    }

    void suggestedProfileFindsTheSame()
    {
        Simulator::Options options;
        options.seconds = 2;
        Simulator sim(m_client.get(), options);
        QSignalSpy done(&sim, &Simulator::finished);
        sim.start();
        QVERIFY(done.wait(20000));
        Discovery detect(m_client.get(), std::nullopt);
        QSignalSpy finished(&detect, &Discovery::finished);
        detect.start();
        QVERIFY(finished.wait(20000));
        const Profile suggested = detect.suggestedProfile();
        QVERIFY(!suggested.isEmpty());
        // The JSON an operator saves loads back and finds the same instances.
        QString error;
        const auto reloaded
            = Profile::fromJson(suggested.toJson(), QStringLiteral("s.json"), &error);
        QVERIFY2(reloaded, qPrintable(error));
        QCOMPARE(byPattern(discover(*m_client, *reloaded)), byPattern(detect.objects()));
    }

    // Readings through the monitor at a controlled moment (server TIME).
    void readingsAtControlledMoment()
    {
        const qint64 now = serverTimeMs(call(*m_client, {"TIME"}));
        const QByteArray n1 = QByteArray::number(now - 2000);
        const QByteArray n2 = QByteArray::number(now - 500);
        call(*m_client, {"ZADD", "sim:rl:api:1", n1, "a", n2, "b"});
        call(*m_client, {"PEXPIRE", "sim:rl:api:1", "10000"});
        call(*m_client, {"ZADD", "sim:rl:api:1:retry", QByteArray::number(now + 3000), "s"});
        call(*m_client, {"SET", "sim:lock:9", "tok3n4b1c9", "PX", "8000"});
        call(*m_client, {"LPUSH", "sim:jobs:mail", "j1", "j2"});
        call(*m_client, {"LPUSH", "sim:jobs:mail:processing", "j0"});
        call(*m_client, {"ZADD", "sim:jobs:mail:claims", QByteArray::number(now - 45000), "j0"});

        Monitor::Options options;
        options.profile = demoProfile();
        options.useEvents = false;
        Monitor monitor(m_client.get(), options);
        QSignalSpy discovered(&monitor, &Monitor::discoveryFinished);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        monitor.start();
        QVERIFY(discovered.wait(10000));
        monitor.refreshNow();
        QVERIFY(ticks.wait(10000));
        const Snapshot s = ticks.last().first().value<Snapshot>();
        const qint64 elapsed = s.server.timeMs - now; // the reading came this much later
        QVERIFY(elapsed >= 0 && elapsed < 2000);
        QCOMPARE(s.objects.size(), 3);

        const ObjectState *limiter = find(s, "sim:rl:api:1");
        QVERIFY(limiter);
        QCOMPARE(limiter->reading.inWindow, 2);
        QCOMPARE(limiter->reading.limit.value(), 20);
        QVERIFY(qAbs(LimiterData::of(limiter->reading).oldestAgeMs - (2000 + elapsed)) <= 50);
        QVERIFY(qAbs(LimiterData::of(limiter->reading).retryHorizonMs - (3000 - elapsed)) <= 50);

        const ObjectState *lock = find(s, "sim:lock:9");
        QVERIFY(lock);
        QCOMPARE(LockData::of(lock->reading).token, QByteArray("tok3n4b1c9"));
        QVERIFY(lock->reading.pttlMs <= 8000 && lock->reading.pttlMs > 8000 - elapsed - 100);
        QCOMPARE(lock->heldSinceMs, -1); // held before Gatehouse looked: start unknown

        const ObjectState *queue = find(s, "sim:jobs:mail");
        QVERIFY(queue);
        QCOMPARE(queue->reading.queue().length, 2);
        QCOMPARE(queue->reading.queue().inFlight, 1);
        QCOMPARE(queue->reading.queue().stuck, 1); // demo profile: stuck after 30 s
        QVERIFY(qAbs(queue->reading.queue().items.first().ageMs - (45000 + elapsed)) <= 50);

        // History: one sample per tick for each figure.
        monitor.refreshNow();
        QVERIFY(ticks.wait(10000));
        QCOMPARE(monitor.history("sim:rl:api:1", QStringLiteral("inWindow")).size(), 2);
        QCOMPARE(monitor.history("sim:jobs:mail", QStringLiteral("length")).last().y(), 2.0);
        // At most maxPoints, evenly spaced, the oldest and the newest kept.
        for (int i = 0; i < 3; ++i) {
            monitor.refreshNow();
            QVERIFY(ticks.wait(10000));
        }
        const QList<QPointF> all = monitor.history("sim:rl:api:1", QStringLiteral("inWindow"));
        QCOMPARE(all.size(), 5);
        const QList<QPointF> three = monitor.history("sim:rl:api:1", QStringLiteral("inWindow"), 3);
        QCOMPARE(three, (QList<QPointF>{all.at(0), all.at(2), all.at(4)}));
        QCOMPARE(monitor.history("sim:rl:api:1", QStringLiteral("inWindow"), 80), all);
    }

    // With keyspace events on, another client's write is re-read within
    // 50 ms, long before the next tick.
    void eventsRereadQuickly()
    {
        call(*m_client, {"SET", "sim:lock:1", "first0token1", "PX", "60000"});
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 60000; // the tick cannot be what notices the change
        Monitor monitor(m_client.get(), options);
        QSignalSpy snapshots(&monitor, &Monitor::snapshotReady);
        monitor.start();
        QVERIFY(QTest::qWaitFor(
            [&] {
                const Snapshot s = monitor.snapshot();
                const ObjectState *o = find(s, "sim:lock:1");
                return s.server.eventsLive && o && LockData::of(o->reading).token == "first0token1";
            },
            10000));

        auto other = gatehouse::test::connectedClient(m_server);
        QVERIFY(other);
        QElapsedTimer clock;
        clock.start();
        call(*other, {"SET", "sim:lock:1", "second1token2", "PX", "60000"});
        QVERIFY(QTest::qWaitFor(
            [&] {
                const ObjectState *o = find(monitor.snapshot(), "sim:lock:1");
                return o && LockData::of(o->reading).token == "second1token2";
            },
            5000));
        const qint64 ms = clock.elapsed();
        QVERIFY2(ms < 50, qPrintable(QStringLiteral("re-read after %1 ms").arg(ms)));
        const ObjectState *o = find(monitor.snapshot(), "sim:lock:1");
        QVERIFY(o->heldSinceMs > 0); // seen taken: held-for is known

        // A new instance written after discovery is found through its event.
        call(*other, {"SET", "sim:lock:77", "new0lock77", "PX", "60000"});
        QVERIFY(QTest::qWaitFor([&] { return find(monitor.snapshot(), "sim:lock:77"); }, 2000));
    }

    // A key written ~500 times a second: every write is an event and a
    // re-read, yet the GUI gets at most ten snapshots a second (DESIGN.md),
    // and the last one carries the final value.
    void snapshotsCoalescedToTenPerSecond()
    {
        call(*m_client, {"SET", "sim:lock:1", "token0", "PX", "60000"});
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 60000; // only events make snapshots here
        Monitor monitor(m_client.get(), options);
        monitor.start();
        QVERIFY(liveWithLock(monitor));
        QTest::qWait(300); // the discovery's snapshots are out
        QSignalSpy snapshots(&monitor, &Monitor::snapshotReady);
        auto other = gatehouse::test::connectedClient(m_server);
        QVERIFY(other);
        QElapsedTimer clock;
        clock.start();
        int written = 0;
        QTimer writer;
        writer.setInterval(2);
        connect(&writer, &QTimer::timeout, &monitor, [&] {
            if (clock.elapsed() >= 2000) {
                writer.stop();
                return;
            }
            while (written < clock.elapsed() / 2) { // 500 a second
                other->command(
                    {"SET", "sim:lock:1", "token" + QByteArray::number(++written), "PX", "60000"},
                    &monitor, [](const RedisValue &) {});
            }
        });
        writer.start();
        QVERIFY(QTest::qWaitFor([&] { return !writer.isActive(); }, 10000));
        const QByteArray last = "token" + QByteArray::number(written);
        QVERIFY(QTest::qWaitFor(
            [&] {
                if (snapshots.isEmpty())
                    return false;
                const ObjectState *o = find(snapshots.last().at(0).value<Snapshot>(), "sim:lock:1");
                return o && LockData::of(o->reading).token == last;
            },
            2000));
        const qint64 ms = clock.elapsed();
        // The burst must be far faster than ten a second for the cap to show.
        QVERIFY2(written >= 400, qPrintable(QString::number(written)));
        // One at once, then one per 100 ms at most, over ms.
        QVERIFY2(snapshots.size() <= 1 + ms / 100,
                 qPrintable(QStringLiteral("%1 snapshots in %2 ms for %3 writes")
                                .arg(snapshots.size())
                                .arg(ms)
                                .arg(written)));
        QVERIFY(snapshots.size() >= 10); // and they keep coming while it changes
        quint64 sequence = 0;
        for (const QList<QVariant> &args : std::as_const(snapshots)) {
            const quint64 next = args.at(0).value<Snapshot>().sequence;
            QVERIFY(next > sequence);
            sequence = next;
        }
    }

    // With events live, a queue's throughput is counted from the workers' LREMs.
    void queueThroughputFromEvents()
    {
        for (int i = 0; i < 20; ++i)
            call(*m_client, {"LPUSH", "sim:jobs:mail:processing", QByteArray::number(i)});
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 500;
        Monitor monitor(m_client.get(), options);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        monitor.start();
        QVERIFY(QTest::qWaitFor(
            [&] {
                return monitor.snapshot().server.eventsLive
                       && find(monitor.snapshot(), "sim:jobs:mail");
            },
            10000));
        // Known (zero) once two ticks with events live have passed.
        QVERIFY(QTest::qWaitFor(
            [&] { return find(monitor.snapshot(), "sim:jobs:mail")->throughputPerS == 0.0; },
            3000));
        for (int i = 0; i < 10; ++i)
            call(*m_client, {"LREM", "sim:jobs:mail:processing", "1", QByteArray::number(i)});
        QVERIFY(QTest::qWaitFor(
            [&] {
                const ObjectState *q = find(monitor.snapshot(), "sim:jobs:mail");
                return q && q->throughputPerS > 0;
            },
            3000));
        // Polling cannot see completions: unknown, not zero.
        Monitor::Options polling = options;
        polling.useEvents = false;
        Monitor blind(m_client.get(), polling);
        QSignalSpy blindTicks(&blind, &Monitor::tickFinished);
        blind.start();
        QVERIFY(blindTicks.wait(5000));
        QVERIFY(blindTicks.wait(5000));
        QCOMPARE(find(blindTicks.last().first().value<Snapshot>(), "sim:jobs:mail")->throughputPerS,
                 -1.0);
    }

    // A token family follows a stream of new and expiring tokens without
    // keeping the keys of tokens that are gone.
    void tokenFamilyForgetsGoneTokens()
    {
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 200;
        Monitor monitor(m_client.get(), options);
        monitor.start();
        QVERIFY(QTest::qWaitFor([&] { return monitor.snapshot().server.eventsLive; }, 10000));
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < 200; ++i)
            cmds.append({"SET", "sim:code:t" + QByteArray::number(i) + "x9", "{}", "PX", "700"});
        QObject ctx;
        bool done = false;
        m_client->pipeline(cmds, &ctx, [&](const QList<RedisValue> &) { done = true; });
        QVERIFY(test::waitUntil([&] { return done; }, 5000));
        QVERIFY(QTest::qWaitFor(
            [&] {
                const ObjectState *f = find(monitor.snapshot(), "sim:code:");
                return f && TokenData::of(f->reading).count == 200;
            },
            5000));
        // They expire: the family empties and its member list with it.
        QVERIFY(QTest::qWaitFor(
            [&] {
                const ObjectState *f = find(monitor.snapshot(), "sim:code:");
                return f && f->object->members.isEmpty() && TokenData::of(f->reading).count == 0;
            },
            5000));
    }

    // Discovery can be cancelled mid-scan; what was found stays.
    void discoveryCancels()
    {
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < 20000; ++i)
            cmds.append(
                {"SET", "sim:lock:" + QByteArray::number(i), "a1b2c3d4e5f6", "PX", "600000"});
        QObject ctx;
        bool done = false;
        m_client->pipeline(cmds, &ctx, [&](const QList<RedisValue> &) { done = true; });
        QVERIFY(test::waitUntil([&] { return done; }, 30000));
        Discovery discovery(m_client.get(), demoProfile());
        discovery.setScanCount(100);
        QSignalSpy progress(&discovery, &Discovery::progress);
        QSignalSpy finished(&discovery, &Discovery::finished);
        discovery.start();
        QVERIFY(QTest::qWaitFor([&] { return progress.size() >= 3; }, 10000));
        discovery.cancel();
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.first().first().toBool(), true); // cancelled
        QVERIFY(discovery.scannedKeys() < 20000);
        QVERIFY(!discovery.objects().isEmpty());
        QCOMPARE(progress.last().at(1).toLongLong(), 20000); // progress against DBSIZE
    }

    // With events off, instances written later are found by the periodic re-scan.
    void rescanFindsNewInstances()
    {
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""});
        call(*m_client, {"SET", "sim:lock:1", "first0token1", "PX", "60000"});
        Monitor::Options options;
        options.profile = demoProfile();
        options.intervalMs = 200;
        options.rescanMs = 1000;
        Monitor monitor(m_client.get(), options);
        monitor.start();
        QVERIFY(QTest::qWaitFor([&] { return find(monitor.snapshot(), "sim:lock:1"); }, 5000));
        call(*m_client, {"SET", "sim:lock:2", "second1token2", "PX", "60000"});
        QVERIFY(QTest::qWaitFor(
            [&] {
                const ObjectState *o = find(monitor.snapshot(), "sim:lock:2");
                return o && LockData::of(o->reading).token == "second1token2";
            },
            5000));
        // And one that disappears is marked gone, not dropped.
        call(*m_client, {"DEL", "sim:lock:1"});
        QVERIFY(QTest::qWaitFor(
            [&] {
                const ObjectState *o = find(monitor.snapshot(), "sim:lock:1");
                return o && o->gone;
            },
            2000));
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    }

    // One-way data: the history of the watched objects and the attention
    // list travel in the published snapshots (the console never reads the
    // monitor's state across threads).
    void historyAndAttentionInSnapshot()
    {
        const qint64 now = serverTimeMs(call(*m_client, {"TIME"}));
        QList<QByteArray> zadd{"ZADD", "sim:rl:api:1"};
        for (int i = 0; i < 20; ++i) // the demo profile's limit: full
            zadd << QByteArray::number(now - 100 - i) << QByteArray::number(i);
        call(*m_client, zadd);
        call(*m_client, {"SET", "sim:lock:9", "tok3n4b1c9", "PX", "60000"});
        Monitor::Options options;
        options.profile = demoProfile();
        options.useEvents = false;
        Monitor monitor(m_client.get(), options);
        Snapshot published;
        connect(&monitor, &Monitor::snapshotReady, this, [&](const Snapshot &s) { published = s; });
        QSignalSpy discovered(&monitor, &Monitor::discoveryFinished);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        monitor.start();
        QVERIFY(discovered.wait(10000));
        monitor.setWatched({"sim:rl:api:1"});
        for (int i = 0; i < 3; ++i) {
            monitor.refreshNow();
            QVERIFY(ticks.wait(10000));
        }
        const qsizetype samples
            = monitor.history("sim:rl:api:1", QStringLiteral("inWindow")).size();
        QVERIFY(samples >= 3);
        QTRY_VERIFY(
            published.history.contains("sim:rl:api:1")
            && published.history.value("sim:rl:api:1")->points(QStringLiteral("inWindow")).size()
                   == samples);
        const ObjectHistoryPtr h = published.history.value("sim:rl:api:1");
        QVERIFY(h->figures.contains(QStringLiteral("occupancy")));
        QCOMPARE(h->points(QStringLiteral("inWindow")).last().y(), 20.0);
        QVERIFY(!published.history.contains("sim:lock:9")); // not watched: not copied
        // The limiter at its limit heads the attention list, with a sparkline
        // of its samples.
        QVERIFY(published.attention);
        QVERIFY(!published.attention->isEmpty());
        const AttentionItem &top = published.attention->first();
        QCOMPARE(top.key, QByteArray("sim:rl:api:1"));
        QCOMPARE(top.section, QStringLiteral("limiter"));
        QVERIFY2(top.text.contains(QLatin1String("100 %")), qPrintable(top.text));
        QVERIFY(top.sparkline.size() >= 2);
        // Unwatched: the next snapshot carries no history.
        monitor.setWatched({});
        QTRY_VERIFY(published.history.isEmpty());
    }

    // The connection's state is in the snapshot, structured: the console
    // shows "next attempt in" from nextAttemptAtMs, never from the sentence.
    void connectionStateInSnapshot()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient client(server.endpoint());
        Monitor monitor(&client, Monitor::Options());
        Snapshot published;
        connect(&monitor, &Monitor::snapshotReady, this, [&](const Snapshot &s) { published = s; });
        client.open();
        monitor.start();
        const auto state = [&] {
            return published.server.primary().connection.state;
        };
        QTRY_COMPARE(state(), ConnectionState::Ready);
        QCOMPARE(published.server.nodes.size(), 1);
        QCOMPARE(published.server.primary().address, client.endpoint().displayUrl());
        server.kill();
        QTRY_COMPARE(state(), ConnectionState::Reconnecting);
        const ConnectionStatus c = published.server.primary().connection;
        const qint64 local = QDateTime::currentMSecsSinceEpoch();
        QVERIFY2(c.nextAttemptAtMs > local - 2000 && c.nextAttemptAtMs <= local + 2000,
                 qPrintable(QString::number(c.nextAttemptAtMs - local)));
        QVERIFY2(c.message.contains(QLatin1String("Next attempt in")), qPrintable(c.message));
        QVERIFY(server.start());
        QTRY_COMPARE_WITH_TIMEOUT(state(), ConnectionState::Ready, 5000);
        QCOMPARE(published.server.primary().connection.nextAttemptAtMs, -1);
    }

    // Discovery runs over a set of nodes (a Cluster's masters): every node's
    // keys are scanned and counted.
    void discoveryOverNodes()
    {
        RedisServer second;
        QVERIFY2(second.start(), qPrintable(second.errorString()));
        auto other = gatehouse::test::connectedClient(second);
        QVERIFY(other);
        call(*m_client, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        call(*m_client, {"SET", "unrelated:1", "x"});
        call(*other, {"SET", "sim:lock:2", "f6e5d4c3b2a1", "PX", "60000"});
        for (int i = 0; i < 30; ++i)
            call(*other, {"SET", "other:" + QByteArray::number(i), "x"});
        for (const bool profiled : {true, false}) {
            Discovery discovery({m_client.get(), other.get()},
                                profiled ? std::optional<Profile>(demoProfile()) : std::nullopt);
            discovery.setScanCount(7);
            QSignalSpy finished(&discovery, &Discovery::finished);
            QSignalSpy progress(&discovery, &Discovery::progress);
            discovery.start();
            QVERIFY(finished.wait(30000));
            const Catalogue found = byPattern(discovery.objects());
            QCOMPARE(found.value(QStringLiteral("lock")),
                     (QList<QByteArray>{"sim:lock:1", "sim:lock:2"}));
            QCOMPARE(progress.last().at(1).toLongLong(), 33); // both DBSIZEs
            QCOMPARE(discovery.scannedKeys(), 33);            // every key of both nodes looked at
        }
        other.reset();
    }

    void emptyDatabase()
    {
        Monitor::Options options;
        Monitor monitor(m_client.get(), options);
        QSignalSpy discovered(&monitor, &Monitor::discoveryFinished);
        QSignalSpy ticks(&monitor, &Monitor::tickFinished);
        monitor.start();
        QVERIFY(discovered.wait(10000));
        QVERIFY(ticks.wait(5000));
        QVERIFY(ticks.last().first().value<Snapshot>().objects.isEmpty());
    }

    void malformedProfiles_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("not json") << QByteArray("{rules: [") << "not valid JSON";
        QTest::newRow("no rules") << QByteArray("{\"name\": \"x\"}") << "\"rules\" array";
        QTest::newRow("bad pattern") << QByteArray("{\"rules\": [{\"pattern\": \"semaphore\", "
                                                   "\"match\": \"a*\"}]}")
                                     << "rules[0].pattern must be one of";
        QTest::newRow("no match") << QByteArray("{\"rules\": [{\"pattern\": \"lock\"}]}")
                                  << "rules[0].match is missing";
        QTest::newRow("bad limit") << QByteArray("{\"rules\": [{\"pattern\": \"lock\", \"match\": "
                                                 "\"l*\"}, {\"pattern\": \"fixed-window\", "
                                                 "\"match\": \"t*\", \"limit\": \"ten\"}]}")
                                   << "rules[1].limit must be a whole number";
        QTest::newRow("bad template")
            << QByteArray("{\"rules\": [{\"pattern\": \"reliable-queue\", "
                          "\"match\": \"q*\", \"processingKey\": "
                          "\"busy\"}]}")
            << "processingKey must be a key template containing {key}";
    }

    void malformedProfiles()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, mentions);
        QString error;
        QVERIFY(!Profile::fromJson(json, QStringLiteral("/etc/gh/bad.json"), &error));
        QVERIFY2(error.contains(mentions), qPrintable(error));
        QVERIFY2(error.startsWith(QLatin1String("/etc/gh/bad.json")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(tst_Monitor)
#include "tst_monitor.moc"
