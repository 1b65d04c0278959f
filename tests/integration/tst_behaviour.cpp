// SPDX-License-Identifier: MIT
// Behaviour evidence (README, "Autodetection"): what autodetected objects'
// keys do over the monitor's first ticks of watching them. A real client
// (Python's redis package, a process of its own) keeps writing while the
// monitor watches: a cache overwritten in place every 200 ms under a lock's
// name and shape, a lock taken and released again and again, and seed 000's
// limiter script called every 300 ms under a name without a limiter's word;
// and the same with one value for every write: a lock whose holders all
// write "tok", and a cache that sets "1" again and again under a lock's name.
// With keyspace events on and off: the cache is demoted to a candidate, the
// locks confirmed, the trimmed window confirmed and promoted from candidate;
// the cache of one value is demoted only when the events show its writes.
#include <monitor/discovery.h>
#include <monitor/monitor.h>
#include <redis/redisclient.h>

#include "monitortest.h"
#include "redisserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QtTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::monitortest::behaviourWeight;

namespace {

constexpr char s_python[] = "/usr/bin/python3";

// The application: argv port, path of the seed limiter script. Prints
// "ready" once every structure has been written a few times.
constexpr char s_driver[] = R"(
import sys, time, uuid
import redis
r = redis.Redis(host='127.0.0.1', port=int(sys.argv[1]))
seed = r.register_script(open(sys.argv[2]).read())
release = r.register_script(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0")
start = time.monotonic()
cache_at = lock_at = seed_at = 0.0
token = None
held = False
ready = False
while True:
    now = time.monotonic()
    if now >= cache_at:  # a cache refreshed in place, named and shaped like a lock
        r.set('lock:report:7', uuid.uuid4().hex, ex=60)
        r.set('lock:report:8', '1', ex=60)  # the same value every time
        cache_at = now + 0.2
    if now >= lock_at:  # a lock: held 400 ms, free 200 ms
        if token is None:
            token = uuid.uuid4().hex
            r.set('lock:job:1', token, nx=True, px=5000)
            lock_at = now + 0.4
        else:
            release(keys=['lock:job:1'], args=[token])
            token = None
            lock_at = now + 0.2
        # a lock every holder takes with the same value, in step with job:1
        if held:
            release(keys=['lock:job:2'], args=['tok'])
        else:
            r.set('lock:job:2', 'tok', nx=True, px=5000)
        held = not held
    if now >= seed_at:  # seed 000's limiter, 5 per second: a request every 300 ms
        seed(keys=['gw:acct:9', 'gw:acct:9:retry'], args=[int(time.time() * 1000)])
        seed_at = now + 0.3
    if not ready and now - start > 1.5 and token is not None:
        print('ready', flush=True)
        ready = True
    time.sleep(0.01)
)";

const ObjectState *shown(const Snapshot &s, const QByteArray &key)
{
    for (const ObjectState &o : s.objects) {
        if (o.object->key == key)
            return &o;
    }
    return nullptr;
}

const Candidate *candidate(const Snapshot &s, const QByteArray &key)
{
    if (!s.candidates)
        return nullptr;
    for (const Candidate &c : *s.candidates) {
        if (c.example.key == key)
            return &c;
    }
    return nullptr;
}

} // namespace

class tst_Behaviour : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(QString::fromLatin1(s_python)),
                 "/usr/bin/python3 is missing: run .ci/install-deps");
        QProcess probe;
        probe.start(QString::fromLatin1(s_python),
                    {QStringLiteral("-c"), QStringLiteral("import redis")});
        QVERIFY(probe.waitForFinished(30000));
        QVERIFY2(probe.exitCode() == 0,
                 "Python's redis package (python3-redis) is missing: run .ci/install-deps");
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

    void watchedBehaviour_data()
    {
        QTest::addColumn<bool>("events");
        QTest::newRow("keyspace events off") << false;
        QTest::newRow("keyspace events on") << true;
    }

    void watchedBehaviour()
    {
        QFETCH(bool, events);
        QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK"));
        QCOMPARE(call(*m_client, {"CONFIG", "SET", "notify-keyspace-events",
                                  events ? QByteArray("KEA") : QByteArray()}),
                 RedisValue::status("OK"));

        QProcess app;
        app.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        app.start(QString::fromLatin1(s_python),
                  {QStringLiteral("-c"), QString::fromLatin1(s_driver),
                   QString::number(m_server.port()),
                   QStringLiteral(GATEHOUSE_TEST_DATA "/seed000_rolling.lua")});
        QVERIFY2(app.waitForStarted(10000), qPrintable(app.errorString()));
        const auto stopApp = qScopeGuard([&app] {
            app.kill();
            app.waitForFinished(10000);
        });
        QVERIFY(gatehouse::test::waitUntil([&app] { return app.canReadLine(); }, 30000));
        QCOMPARE(app.readLine().trimmed(), QByteArray("ready"));

        // By names and shapes alone: the cache is a lock (a random token
        // with a TTL, "lock" in its name), the window only a candidate.
        {
            Discovery discovery(m_client.get(), std::nullopt);
            QSignalSpy finished(&discovery, &Discovery::finished);
            discovery.start();
            QVERIFY(finished.wait(30000));
            const QList<PatternObject> objects = discovery.objects();
            const auto has = [&objects](const QByteArray &key, const char *pattern) {
                return std::any_of(objects.cbegin(), objects.cend(), [&](const PatternObject &o) {
                    return o.key == key && o.kind.id() == QLatin1String(pattern);
                });
            };
            QVERIFY(has("lock:report:7", "lock"));
            QVERIFY(has("lock:report:8", "lock")); // "1" under a lock's name, with a TTL
            const QList<Candidate> candidates = discovery.candidates();
            QVERIFY(std::any_of(candidates.cbegin(), candidates.cend(), [](const Candidate &c) {
                return c.example.key == "gw:acct:9"
                       && c.kind.id() == QLatin1String("sliding-window");
            }));
        }

        Monitor::Options options;
        options.intervalMs = 100;
        options.behaviourTicks = 60; // 6 s of watching
        options.rescanMs = 1000;     // a lock free at the first scan is found at the next
        options.useEvents = events;
        Monitor monitor(m_client.get(), options);
        monitor.start();

        // The verdicts, as the console and snapshot --json get them.
        const auto settled = [&monitor, events] {
            const Snapshot s = monitor.snapshot();
            const ObjectState *lock = shown(s, "lock:job:1");
            const ObjectState *sameValueLock = shown(s, "lock:job:2");
            const ObjectState *window = shown(s, "gw:acct:9");
            const Candidate *cache = candidate(s, "lock:report:7");
            return !shown(s, "lock:report:7") && cache && behaviourWeight(cache->evidence) < 0
                   && lock && behaviourWeight(lock->object->evidence) > 0 && sameValueLock
                   && behaviourWeight(sameValueLock->object->evidence) > 0 && window
                   && behaviourWeight(window->object->evidence) > 0
                   && !shown(s, "lock:report:8") == events;
        };
        const bool done = gatehouse::test::waitUntil(settled, 30000);
        const Snapshot s = monitor.snapshot();
        const QJsonObject json = s.toJson();
        QVERIFY2(done, QJsonDocument(json).toJson().constData());

        // The cache: no longer a lock, a candidate with its reason.
        const Candidate *cache = candidate(s, "lock:report:7");
        QCOMPARE(cache->kind.id(), QStringLiteral("lock"));
        QVERIFY(cache->score < AutoDetector::Threshold);
        const auto reasonOf = [](const QList<Evidence> &evidence) {
            for (const Evidence &e : evidence) {
                if (e.kind == Evidence::Kind::Behaviour)
                    return e.reason;
            }
            return QString();
        };
        QVERIFY2(reasonOf(cache->evidence).contains(QLatin1String("overwritten in place")),
                 qPrintable(reasonOf(cache->evidence)));
        // The lock: deleted and taken again with a new token.
        const ObjectState *lock = shown(s, "lock:job:1");
        QCOMPARE(lock->object->kind.id(), QStringLiteral("lock"));
        QVERIFY2(reasonOf(lock->object->evidence).contains(QLatin1String("new token")),
                 qPrintable(reasonOf(lock->object->evidence)));
        // The lock of one value: released and taken again, seen by events or
        // by a reading in between. The cache of one value: its writes in
        // place are only seen by events (polled, it is a holder extending).
        const ObjectState *sameValueLock = shown(s, "lock:job:2");
        QVERIFY2(reasonOf(sameValueLock->object->evidence).contains(QLatin1String("taken again")),
                 qPrintable(reasonOf(sameValueLock->object->evidence)));
        if (events) {
            QVERIFY(!shown(s, "lock:report:8"));
        } else {
            QVERIFY(shown(s, "lock:report:8"));
            QCOMPARE(behaviourWeight(shown(s, "lock:report:8")->object->evidence), 0);
        }
        // The window: trimmed by time, shown now as a limiter.
        const ObjectState *window = shown(s, "gw:acct:9");
        QCOMPARE(window->object->kind.id(), QStringLiteral("sliding-window"));
        QVERIFY(evidenceScore(window->object->evidence) >= AutoDetector::Threshold);
        QVERIFY2(reasonOf(window->object->evidence).contains(QLatin1String("trimmed by time")),
                 qPrintable(reasonOf(window->object->evidence)));
        QVERIFY(!candidate(s, "gw:acct:9"));

        // snapshot --json: "behaviour" evidence in each, the cache not a lock.
        const auto behaviourIn = [](const QJsonObject &o) {
            for (const QJsonValue &e : o.value(QStringLiteral("evidence")).toArray()) {
                if (e[QStringLiteral("kind")] == QLatin1String("behaviour"))
                    return e[QStringLiteral("weight")].toInt();
            }
            return 0;
        };
        QJsonObject lockJson, windowJson, cacheJson;
        for (const QJsonValue &v : json.value(QStringLiteral("locks")).toArray()) {
            QVERIFY(v[QStringLiteral("key")] != QLatin1String("lock:report:7"));
            if (v[QStringLiteral("key")] == QLatin1String("lock:job:1"))
                lockJson = v.toObject();
        }
        for (const QJsonValue &v : json.value(QStringLiteral("limiters")).toArray()) {
            if (v[QStringLiteral("key")] == QLatin1String("gw:acct:9"))
                windowJson = v.toObject();
        }
        for (const QJsonValue &v : json.value(QStringLiteral("candidates")).toArray()) {
            if (v[QStringLiteral("keys")].toArray().contains(
                    QJsonValue(QStringLiteral("lock:report:7"))))
                cacheJson = v.toObject();
        }
        QVERIFY(behaviourIn(lockJson) > 0);
        QVERIFY(behaviourIn(windowJson) > 0);
        QVERIFY(behaviourIn(cacheJson) < 0);

        // A rescan finds the keys again: the verdicts stand.
        QSignalSpy rescanned(&monitor, &Monitor::discoveryFinished);
        QVERIFY(rescanned.wait(10000));
        QVERIFY(settled());
        monitor.stop();
    }
};

QTEST_GUILESS_MAIN(tst_Behaviour)
#include "tst_behaviour.moc"
