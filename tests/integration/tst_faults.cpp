// SPDX-License-Identifier: MIT
// Faults against a real redis-server: stopped (SIGSTOP), killed and
// restarted, its client killed, asleep (DEBUG SLEEP), out of memory,
// flushed, and behind a proxy that delays, stalls and cuts. The monitor
// must survive, mark stale readings within two ticks, and reconnect within
// 2 s of the server being back; an action caught by the fault says "may or
// may not have run" (or "not sent"), and its job ends in exactly one place.
#include <actions/actionengine.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <patterns/reliable-queue/reliablequeueunit.h>
#include <patterns/token-family/tokenfamilyunit.h>
#include <redis/redisclient.h>

#include "redisserver.h"
#include "tcpproxy.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/types.h>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::waitUntil;

namespace {

constexpr int s_intervalMs = 200;
const QByteArray s_queue = "sim:jobs:faults";
const QByteArray s_processing = "sim:jobs:faults:processing";
const QByteArray s_job = "jobA";

// SIGCONT on scope exit: a failed check must not leave the server stopped.
struct Resume
{
    qint64 pid;
    ~Resume() { ::kill(pid_t(pid), SIGCONT); }
};

// One monitored connection: a client on its own worker thread (as the GUI
// has it, auto-reconnect on) and a polling monitor on the test thread.
struct Rig
{
    Rig(const RedisEndpoint &endpoint, const QString &auditPath, bool events = false)
        : client(endpoint)
    {
        Monitor::Options o;
        QString error;
        o.profile = Profile::load(QStringLiteral("demo"), &error);
        o.intervalMs = s_intervalMs;
        o.useEvents = events;
        o.rescanMs = 1000;
        monitor = std::make_unique<Monitor>(&client, o);
        engine.setAuditLogPath(auditPath);
        engine.setReplyTimeoutMs(1000);
        client.open();
        monitor->start();
    }
    const ObjectState *queue() const
    {
        for (const ObjectState &o : current.objects) {
            if (o.object->key == s_queue)
                return &o;
        }
        return nullptr;
    }
    bool queueIs(bool stale)
    {
        current = monitor->snapshot();
        const ObjectState *q = queue();
        // Fresh: read (atMs set), not stale.
        return q && q->stale == stale && (stale || (q->reading.isOk() && q->reading.atMs > 0));
    }
    ActionOutcome requeue()
    {
        current = monitor->snapshot();
        ActionOutcome out;
        bool got = false;
        const ObjectState *q = queue();
        if (!q)
            return out;
        engine.run(ReliableQueueUnit::requeue(q->object, s_job), false, &engine,
                   [&](const ActionOutcome &o) {
                       out = o;
                       got = true;
                   });
        waitUntil([&] { return got; }, 10000);
        qInfo("requeue: %s", qPrintable(out.message));
        return out;
    }

    RedisClient client;
    std::unique_ptr<Monitor> monitor;
    ActionEngine engine{&client};
    Snapshot current;
};

} // namespace

class tst_Faults : public QObject
{
    Q_OBJECT

private:
    // No answer to the rights check within the reply timeout: the action is
    // not sent, says so, and the job stays in flight where it was.
    void expectNotSent(const ActionOutcome &out)
    {
        QCOMPARE(out.result, ActionOutcome::Result::Failed);
        QVERIFY2(out.message.contains(QLatin1String("was not sent")), qPrintable(out.message));
        QVERIFY2(out.message.contains(QLatin1String("Nothing was sent")), qPrintable(out.message));
    }

    RedisServer m_server{[] {
        RedisServer::Options o;
        o.config << QStringLiteral("enable-debug-command yes");
        return o;
    }()};
    std::unique_ptr<RedisClient> m_admin; // the test's own connection
    QTemporaryDir m_dir;
    QString audit() const { return m_dir.filePath(QStringLiteral("audit.jsonl")); }

    void seed()
    {
        QVERIFY(test::waitReady(*m_admin));
        QCOMPARE(call(*m_admin, {"FLUSHALL"}), RedisValue::status("OK"));
        QCOMPARE(call(*m_admin, {"RPUSH", s_queue, "w1", "w2"}).toInteger(), 2);
        QCOMPARE(call(*m_admin, {"RPUSH", s_processing, s_job}).toInteger(), 1);
    }
    // Where the job is: exactly once in the queue or in processing.
    void checkJobOnce()
    {
        qint64 n = 0;
        for (const QByteArray &key : {s_queue, s_processing}) {
            const RedisValue items = call(*m_admin, {"LRANGE", key, "0", "-1"});
            for (const RedisValue &v : items.elements())
                n += v.bytes() == s_job ? 1 : 0;
        }
        QCOMPARE(n, 1);
    }
    // Ready and every reading fresh.
    static void waitFresh(Rig &rig)
    {
        QVERIFY(test::waitReady(rig.client));
        QVERIFY2(waitUntil([&] { return rig.queueIs(false); }, 10000),
                 "the queue was never read fresh");
    }

    // A script that runs 3 s on its own connection, past a busy-reply
    // threshold of 50 ms: every other client is answered BUSY meanwhile.
    // *ended is set when its reply comes.
    void runBusyScript(RedisClient &runner, bool *ended)
    {
        QCOMPARE(call(*m_admin, {"CONFIG", "SET", "busy-reply-threshold", "50"}),
                 RedisValue::status("OK"));
        runner.open();
        QVERIFY(test::waitReady(runner));
        runner.command({"EVAL",
                        "local s = tonumber(redis.call('TIME')[1]) "
                        "while tonumber(redis.call('TIME')[1]) < s + 3 do end return 1",
                        "0"},
                       this, [ended](const RedisValue &) { *ended = true; });
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_admin = test::connectedClient(m_server);
        QVERIFY(m_admin);
    }

    void init()
    {
        if (!m_server.isRunning())
            QVERIFY(m_server.start());
        call(*m_admin, {"CONFIG", "SET", "maxmemory", "0"});
        call(*m_admin, {"CONFIG", "SET", "busy-reply-threshold", "5000"});
        seed();
    }

    void cleanupTestCase()
    {
        m_admin.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void sigstop()
    {
        Rig rig(m_server.endpoint(), audit());
        waitFresh(rig);
        const qint64 pid = m_server.pid();
        QVERIFY(pid > 0);
        {
            Resume resume{pid};
            QElapsedTimer stopped;
            ::kill(pid_t(pid), SIGSTOP);
            stopped.start();
            QVERIFY2(waitUntil([&] { return rig.queueIs(true); }, 5000), "never marked stale");
            const qint64 staleAfter = stopped.elapsed();
            qInfo("SIGSTOP: stale after %lld ms (interval %d ms)", staleAfter, s_intervalMs);
            QVERIFY(staleAfter <= 3 * s_intervalMs);
            QVERIFY(rig.current.server.lastReadingAgeMs >= s_intervalMs);
            QVERIFY(rig.queue()->staleSinceMs > 0);
            // An action asked of the stopped server: its rights check gets no
            // answer, so the action itself is never sent (nothing ran).
            const ActionOutcome out = rig.requeue();
            expectNotSent(out);
            waitUntil([] { return false; }, int(std::max<qint64>(0, 3000 - stopped.elapsed())));
        }
        QElapsedTimer back;
        back.start();
        QVERIFY(waitUntil([&] { return rig.queueIs(false); }, 2000));
        qInfo("SIGCONT: fresh again after %lld ms", back.elapsed());
        // The script was sent: it ran once the server woke up, or not; never twice.
        checkJobOnce();
    }

    // A stopped server answers the tick that waited when it wakes: the
    // reading is as of then (the server's TIME before the probes), not of
    // when the tick was planned, so a lock's TTL is what the server holds,
    // not short by the stall; and the clock offset, measured over a round
    // trip as long as the stall, is not moved by half of it (the history
    // file's times, every deadline shown, stand on it).
    void sigstopTtlsStayTrue()
    {
        QVERIFY(call(*m_admin, {"SET", "sim:lock:stall", "tok", "PX", "600000"}).isStatus());
        const qint64 expiresAtMs
            = call(*m_admin, {"PEXPIRETIME", "sim:lock:stall"}).toInteger(); // Redis 7
        QVERIFY(expiresAtMs > 0);
        Rig rig(m_server.endpoint(), audit());
        waitFresh(rig);
        const auto lock = [&rig]() -> const ObjectState * {
            for (const ObjectState &o : rig.current.objects) {
                if (o.object->key == "sim:lock:stall")
                    return &o;
            }
            return nullptr;
        };
        QVERIFY(waitUntil(
            [&] {
                rig.current = rig.monitor->snapshot();
                return lock() && !lock()->stale && lock()->reading.pttlMs > 0;
            },
            5000));
        const qint64 offsetBefore = rig.current.server.clockOffsetMs;
        // Every reading's TTL against the truth: expiresAt - its time.
        qint64 worstMs = 0;
        qint64 offsetMovedMs = 0;
        int readings = 0;
        const auto look = [&](const Snapshot &s) {
            offsetMovedMs
                = std::max(offsetMovedMs, std::abs(s.server.clockOffsetMs - offsetBefore));
            for (const ObjectState &o : s.objects) {
                if (o.object->key != "sim:lock:stall" || o.stale || o.reading.pttlMs <= 0)
                    continue;
                const qint64 err = o.reading.pttlMs - (expiresAtMs - o.reading.atMs);
                worstMs = std::max(worstMs, std::abs(err));
                ++readings;
            }
        };
        connect(rig.monitor.get(), &Monitor::tickFinished, this, look);
        const qint64 pid = m_server.pid();
        {
            Resume resume{pid};
            ::kill(pid_t(pid), SIGSTOP);
            waitUntil([] { return false; }, 3000);
        }
        QVERIFY2(waitUntil([&] { return rig.queueIs(false) && readings >= 5; }, 5000),
                 "not fresh again after SIGCONT");
        disconnect(rig.monitor.get(), nullptr, this, nullptr);
        qInfo("after a 3 s stall: worst TTL error %lld ms over %d readings; clock offset moved "
              "at most %lld ms",
              worstMs, readings, offsetMovedMs);
        QVERIFY2(worstMs <= 100, qPrintable(QString::number(worstMs)));
        QVERIFY2(offsetMovedMs <= 100, qPrintable(QString::number(offsetMovedMs)));
    }

    void killAndRestart()
    {
        Rig rig(m_server.endpoint(), audit());
        waitFresh(rig);
        QSignalSpy ready(&rig.client, &RedisClient::ready);
        QElapsedTimer down;
        m_server.kill();
        down.start();
        QVERIFY2(waitUntil([&] { return rig.queueIs(true); }, 5000), "never marked stale");
        qInfo("kill -9: stale after %lld ms", down.elapsed());
        const ActionOutcome out = rig.requeue();
        QCOMPARE(out.result, ActionOutcome::Result::Failed);
        QVERIFY2(out.message.contains(QLatin1String("not sent, so nothing ran")),
                 qPrintable(out.message));
        // Down for 3 s: the retries back off to their 1 s cap before it is back.
        waitUntil([] { return false; }, int(std::max<qint64>(0, 3000 - down.elapsed())));
        QVERIFY(rig.client.state() != ConnectionState::Ready);
        QVERIFY(m_server.start());
        QElapsedTimer back;
        back.start();
        QVERIFY(ready.wait(2000) || !ready.isEmpty());
        const qint64 reconnectMs = back.elapsed();
        qInfo("kill -9 and restart: reconnected %lld ms after the server was back", reconnectMs);
        QVERIFY(reconnectMs <= 2000);
        seed(); // nothing was saved: the restarted server is empty
        waitFresh(rig);
    }

    void clientKill()
    {
        Rig rig(m_server.endpoint(), audit());
        waitFresh(rig);
        QSignalSpy ready(&rig.client, &RedisClient::ready);
        QElapsedTimer back;
        back.start();
        QVERIFY(call(*m_admin, {"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"}).toInteger()
                >= 1);
        QVERIFY(ready.wait(2000));
        qInfo("CLIENT KILL: reconnected after %lld ms", back.elapsed());
        waitFresh(rig);
        checkJobOnce();
    }

    void debugSleep()
    {
        Rig rig(m_server.endpoint(), audit());
        waitFresh(rig);
        RedisClient sleeper(m_server.endpoint());
        sleeper.open();
        QVERIFY(test::waitReady(sleeper));
        bool woke = false;
        QElapsedTimer asleep;
        sleeper.command({"DEBUG", "SLEEP", "3"}, this, [&](const RedisValue &) { woke = true; });
        asleep.start();
        QVERIFY2(waitUntil([&] { return rig.queueIs(true); }, 3000), "never marked stale");
        qInfo("DEBUG SLEEP: stale after %lld ms", asleep.elapsed());
        QVERIFY(asleep.elapsed() <= 3 * s_intervalMs + 100);
        const ActionOutcome out = rig.requeue();
        expectNotSent(out);
        QVERIFY(waitUntil([&] { return woke; }, 5000));
        QElapsedTimer back;
        back.start();
        QVERIFY(waitUntil([&] { return rig.queueIs(false); }, 2000));
        qInfo("DEBUG SLEEP: fresh again %lld ms after the server woke", back.elapsed());
        checkJobOnce();
    }

    // A script running past busy-reply-threshold: every read is refused
    // BUSY. The queue keeps its last reading, marked stale (not an error
    // read as current, not a reading of "nothing"), and is fresh again once
    // the script ends.
    void busyScript()
    {
        Rig rig(m_server.endpoint(), audit());
        waitFresh(rig);
        const qint64 before = rig.queue()->reading.queue().inFlight;
        RedisClient runner(m_server.endpoint());
        bool ended = false;
        runBusyScript(runner, &ended);
        if (QTest::currentTestFailed())
            return;
        QElapsedTimer busy;
        busy.start();
        bool errorShown = false;
        const bool stale = waitUntil(
            [&] {
                const bool s = rig.queueIs(true);
                errorShown |= rig.queue() && rig.queue()->reading.status == Reading::Status::Error;
                return s;
            },
            3000);
        QVERIFY2(stale, "never marked stale while the server answered BUSY");
        qInfo("BUSY script: stale after %lld ms", busy.elapsed());
        QVERIFY(!errorShown);
        QCOMPARE(rig.queue()->reading.queue().inFlight, before); // the last reading, kept
        QVERIFY(waitUntil([&] { return ended; }, 6000));
        QVERIFY2(waitUntil([&] { return rig.queueIs(false); }, 3000), "never fresh again");
        call(*m_admin, {"CONFIG", "SET", "busy-reply-threshold", "5000"});
    }

    void outOfMemory()
    {
        Rig rig(m_server.endpoint(), audit());
        waitFresh(rig);
        QCOMPARE(call(*m_admin, {"CONFIG", "SET", "maxmemory-policy", "noeviction"}),
                 RedisValue::status("OK"));
        QCOMPARE(call(*m_admin, {"CONFIG", "SET", "maxmemory", "1"}), RedisValue::status("OK"));
        // A write that would grow memory is refused, cleanly, nothing written.
        PatternObject family;
        family.kind = PatternKind("token-family");
        family.key = "sim:code:";
        ActionOutcome issued;
        bool got = false;
        const ScriptCall issue
            = TokenFamilyUnit::issue(family, TokenFamilyUnit::newToken(), "{}", 60);
        rig.engine.run(issue, false, this, [&](const ActionOutcome &o) {
            issued = o;
            got = true;
        });
        QVERIFY(waitUntil([&] { return got; }, 5000));
        QCOMPARE(issued.result, ActionOutcome::Result::Failed);
        QVERIFY2(issued.message.contains(QLatin1String("OOM")), qPrintable(issued.message));
        QCOMPARE(call(*m_admin, {"DBSIZE"}).toInteger(), 2);
        // The requeue frees as much as it takes (LREM first, then the push,
        // in one script): it may run; either way the job is in one place.
        const ActionOutcome out = rig.requeue();
        QVERIFY2(out.result == ActionOutcome::Result::Done
                     || out.result == ActionOutcome::Result::Failed,
                 qPrintable(out.message));
        checkJobOnce();
        // Readings continue: the monitor only reads.
        QSignalSpy ticks(rig.monitor.get(), &Monitor::tickFinished);
        QVERIFY(waitUntil([&] { return ticks.size() >= 3; }, 3000));
        QVERIFY(rig.queueIs(false));
        QCOMPARE(call(*m_admin, {"CONFIG", "SET", "maxmemory", "0"}), RedisValue::status("OK"));
        checkJobOnce();
    }

    void flushallMidWatch()
    {
        Rig rig(m_server.endpoint(), audit());
        waitFresh(rig);
        QCOMPARE(call(*m_admin, {"FLUSHALL"}), RedisValue::status("OK"));
        QVERIFY(waitUntil(
            [&] {
                rig.current = rig.monitor->snapshot();
                const ObjectState *q = rig.queue();
                return q && q->reading.queue().length == 0 && q->reading.queue().inFlight == 0
                       && !q->stale;
            },
            3000));
        QSignalSpy ticks(rig.monitor.get(), &Monitor::tickFinished);
        QVERIFY(waitUntil([&] { return ticks.size() >= 2; }, 3000));
    }

    void proxy()
    {
        test::TcpProxy proxy(m_server.port());
        QVERIFY(proxy.start());
        RedisEndpoint endpoint = m_server.endpoint();
        endpoint.port = proxy.port();
        Rig rig(endpoint, audit());
        waitFresh(rig);

        // Delayed less than a tick: late, never stale.
        proxy.setDelayMs(30);
        QSignalSpy ticks(rig.monitor.get(), &Monitor::tickFinished);
        QVERIFY(waitUntil([&] { return ticks.size() >= 4; }, 5000));
        QVERIFY(rig.queueIs(false));
        proxy.setDelayMs(0);

        // Stalled: connections open, nothing forwarded.
        QElapsedTimer stalled;
        proxy.setStalled(true);
        stalled.start();
        QVERIFY2(waitUntil([&] { return rig.queueIs(true); }, 3000), "never marked stale");
        qInfo("proxy stall: stale after %lld ms", stalled.elapsed());
        QVERIFY(stalled.elapsed() <= 3 * s_intervalMs + 100);
        const ActionOutcome out = rig.requeue();
        expectNotSent(out);
        proxy.setStalled(false);
        QVERIFY(waitUntil([&] { return rig.queueIs(false); }, 2000));
        checkJobOnce();

        // Cut: every connection reset.
        QSignalSpy ready(&rig.client, &RedisClient::ready);
        QElapsedTimer cut;
        proxy.cutAll();
        cut.start();
        QVERIFY(ready.wait(2000));
        qInfo("proxy cut: reconnected after %lld ms", cut.elapsed());
        waitFresh(rig);

        // Cut while an action waits to be sent (its rights check written into
        // the stalled proxy): not sent, so nothing ran, and never lost. The
        // cut after the action itself was sent ("may or may not have run")
        // is cliActionReplyLost's.
        QCOMPARE(call(*m_admin, {"LMOVE", s_queue, s_processing, "LEFT", "RIGHT"}).bytes(),
                 QByteArray("w1"));
        proxy.setStalled(true);
        ActionOutcome cutOut;
        bool got = false;
        rig.current = rig.monitor->snapshot();
        rig.engine.setReplyTimeoutMs(5000);
        rig.engine.run(ReliableQueueUnit::requeue(rig.queue()->object, "w1"), false, this,
                       [&](const ActionOutcome &o) {
                           cutOut = o;
                           got = true;
                       });
        waitUntil([] { return false; }, 100); // written into the stalled proxy
        proxy.cutAll();
        QVERIFY(waitUntil([&] { return got; }, 5000));
        QCOMPARE(cutOut.result, ActionOutcome::Result::Failed);
        QVERIFY2(cutOut.message.contains(QLatin1String("was not sent, so nothing ran")),
                 qPrintable(cutOut.message));
        proxy.setStalled(false);
        waitFresh(rig);
        checkJobOnce();
    }

    // The reading connection lost while the keyspace-event subscription
    // outlives it (CLIENT KILL TYPE normal: the subscriber is a pubsub
    // client), and kept from coming back (the proxy refuses): no snapshot
    // made while it is lost shows an object as current or events as live
    // (it was shown so for up to two ticks, and "events live" throughout).
    // Once back, every object is read again and the events are live again
    // once the server counts the subscription.
    void connectionLostIsStaleAtOnce()
    {
        QCOMPARE(call(*m_admin, {"CONFIG", "SET", "notify-keyspace-events", "KEA"}),
                 RedisValue::status("OK"));
        test::TcpProxy proxy(m_server.port());
        QVERIFY(proxy.start());
        RedisEndpoint endpoint = m_server.endpoint();
        endpoint.port = proxy.port();
        Rig rig(endpoint, audit(), true);
        waitFresh(rig);
        QVERIFY2(waitUntil([&] { return rig.monitor->snapshot().server.eventsLive; }, 5000),
                 "keyspace events never live");
        struct Seen
        {
            int lost = 0;
            int shownCurrent = 0; // objects shown current while lost
            int eventsLive = 0;
        } seen;
        const auto look = [&seen](const Snapshot &s) {
            if (s.server.nodes.value(0).connection.state == ConnectionState::Ready)
                return;
            ++seen.lost;
            for (const ObjectState &o : s.objects)
                seen.shownCurrent += !o.gone && !o.stale ? 1 : 0;
            seen.eventsLive += s.server.eventsLive ? 1 : 0;
        };
        Monitor *monitor = rig.monitor.get();
        connect(monitor, &Monitor::snapshotReady, this, look);
        connect(monitor, &Monitor::tickFinished, this, look);
        connect(monitor, &Monitor::tickOverdue, this, look);
        QSignalSpy ready(&rig.client, &RedisClient::ready);
        proxy.setRefusing(true);
        QVERIFY(call(*m_admin, {"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"}).toInteger()
                >= 1);
        QVERIFY(waitUntil([&] { return rig.client.state() != ConnectionState::Ready; }, 2000));
        waitUntil([] { return false; }, 5 * s_intervalMs);
        QVERIFY(seen.lost >= 2);
        QCOMPARE(seen.shownCurrent, 0);
        QCOMPARE(seen.eventsLive, 0);
        // The subscription outlived the loss: the server still counts it.
        QVERIFY(call(*m_admin, {"PUBSUB", "NUMPAT"}).toInteger() >= 1);
        proxy.setRefusing(false);
        QVERIFY(ready.wait(3000) || !ready.isEmpty());
        // Fresh means read since: nothing read before the loss is fresh.
        QVERIFY2(
            waitUntil([&] { return rig.queueIs(false) && rig.current.server.eventsLive; }, 5000),
            "not read again, or events never live again");
        disconnect(monitor, nullptr, this, nullptr);
        QCOMPARE(call(*m_admin, {"CONFIG", "SET", "notify-keyspace-events", ""}),
                 RedisValue::status("OK"));
        checkJobOnce();
    }

    // Events turned on at run time are off again after a restart (the
    // server starts with its configured flags): the subscription comes back,
    // but no line may say events are live while the server publishes none.
    void eventsOffAfterRestartAreNotLive()
    {
        QCOMPARE(call(*m_admin, {"CONFIG", "SET", "notify-keyspace-events", "KEA"}),
                 RedisValue::status("OK"));
        QProcess cli;
        QByteArray out;
        connect(&cli, &QProcess::readyReadStandardOutput, this,
                [&] { out += cli.readAllStandardOutput(); });
        cli.start(QStringLiteral(GATEHOUSE_CLI),
                  {QStringLiteral("--url"), m_server.url(), QStringLiteral("--profile"),
                   QStringLiteral("demo"), QStringLiteral("watch"), QStringLiteral("--json"),
                   QStringLiteral("--interval"), QString::number(s_intervalMs),
                   QStringLiteral("--count"), QStringLiteral("40")});
        QVERIFY(cli.waitForStarted());
        QVERIFY2(waitUntil([&] { return out.contains("\"events\":\"live\""); }, 10000),
                 out.constData());
        m_server.kill();
        QVERIFY(waitUntil([&] { return out.contains("\"event\":\"connectionLost\""); }, 3000));
        QVERIFY(m_server.start());
        QCOMPARE(call(*test::connectedClient(m_server), {"CONFIG", "GET", "notify-keyspace-events"})
                     .at(1),
                 RedisValue::bulk(""));
        QVERIFY(waitUntil([&] { return out.contains("\"event\":\"reconnected\""); }, 3000));
        QVERIFY(waitUntil([&] { return cli.state() == QProcess::NotRunning; }, 30000));
        out += cli.readAllStandardOutput();
        const QList<QByteArray> lines = out.split('\n');
        qsizetype at = 0;
        while (at < lines.size() && !lines.at(at).contains("\"event\":\"reconnected\""))
            ++at;
        int after = 0;
        for (++at; at < lines.size(); ++at) {
            if (lines.at(at).isEmpty() || lines.at(at).contains("\"event\""))
                continue;
            ++after;
            QVERIFY2(!lines.at(at).contains("\"events\":\"live\""), lines.at(at).constData());
        }
        QVERIFY2(after >= 3, out.constData());
        m_admin = test::connectedClient(m_server);
        QVERIFY(m_admin);
    }

    void cliWatchThroughRestart_data()
    {
        QTest::addColumn<bool>("json");
        QTest::newRow("text") << false;
        QTest::newRow("json") << true;
    }
    void cliWatchThroughRestart()
    {
        QFETCH(bool, json);
        QProcess cli;
        QByteArray out;
        connect(&cli, &QProcess::readyReadStandardOutput, this,
                [&] { out += cli.readAllStandardOutput(); });
        QStringList args{QStringLiteral("--url"),       m_server.url(),
                         QStringLiteral("--profile"),   QStringLiteral("demo"),
                         QStringLiteral("watch"),       QStringLiteral("--interval"),
                         QString::number(s_intervalMs), QStringLiteral("--count"),
                         QStringLiteral("30")};
        if (json)
            args << QStringLiteral("--json");
        cli.start(QStringLiteral(GATEHOUSE_CLI), args);
        QVERIFY(cli.waitForStarted());
        QVERIFY(waitUntil([&] { return out.count('\n') >= 2; }, 10000));
        const QByteArray lost = json ? "\"event\":\"connectionLost\"" : "connection lost";
        const QByteArray stale = json ? "\"stale\":true" : "STALE";
        const QByteArray back = json ? "\"event\":\"reconnected\"" : "reconnected after";
        m_server.kill();
        QVERIFY(waitUntil([&] { return out.contains(lost); }, 3000));
        // While it is down, a line per tick, marked stale.
        QVERIFY2(waitUntil([&] { return out.contains(stale); }, 3000), out.constData());
        // Down for 2 s (its retries back off to 1 s), a line per tick meanwhile.
        const qsizetype linesBefore = out.count('\n');
        waitUntil([] { return false; }, 2000);
        QVERIFY2(out.count('\n') - linesBefore >= 2000 / s_intervalMs - 2, out.constData());
        QVERIFY(!out.contains(back));
        QVERIFY(m_server.start());
        QElapsedTimer restarted;
        restarted.start();
        QVERIFY(waitUntil([&] { return out.contains(back); }, 2000));
        qInfo("watch: the gap line %lld ms after the server was back", restarted.elapsed());
        QVERIFY(waitUntil([&] { return cli.state() == QProcess::NotRunning; }, 20000));
        out += cli.readAllStandardOutput();
        const QString text = QString::fromUtf8(out);
        QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0,
                 qPrintable(text + QString::fromUtf8(cli.readAllStandardError())));
        // The first tick line after the loss is stale already (it showed
        // the last reading as current for up to two ticks), and so is every
        // one until the server is back.
        const QList<QByteArray> lines = out.split('\n');
        qsizetype at = 0;
        while (at < lines.size() && !lines.at(at).contains(lost))
            ++at;
        int tickLines = 0;
        for (++at; at < lines.size() && !lines.at(at).contains(back); ++at) {
            const bool tick
                = json ? !lines.at(at).contains("\"event\"") : lines.at(at).contains(" locks=");
            if (!tick)
                continue;
            ++tickLines;
            QVERIFY2(lines.at(at).contains(stale), lines.at(at).constData());
        }
        QVERIFY(tickLines >= 2);
        if (json) {
            for (const QByteArray &line : out.trimmed().split('\n')) {
                QJsonParseError error;
                QJsonDocument::fromJson(line, &error);
                QVERIFY2(error.error == QJsonParseError::NoError, line.constData());
            }
            QVERIFY(out.contains("\"lastReadingAgeMs\""));
            QVERIFY(out.contains("\"ticksMissed\""));
        }
        for (const QString &line : text.split(QLatin1Char('\n'))) {
            if (line.contains(QLatin1String("event")) || line.contains(QLatin1String("connection"))
                || line.contains(QLatin1String("reconnected")))
                qInfo("%s", qPrintable(line));
        }
    }

    // A watch whose server never comes back still ends with --count (exit 0).
    void cliWatchServerNeverBack()
    {
        QProcess cli;
        QByteArray out;
        connect(&cli, &QProcess::readyReadStandardOutput, this,
                [&] { out += cli.readAllStandardOutput(); });
        const QStringList args{QStringLiteral("--url"),       m_server.url(),
                               QStringLiteral("--profile"),   QStringLiteral("demo"),
                               QStringLiteral("watch"),       QStringLiteral("--interval"),
                               QString::number(s_intervalMs), QStringLiteral("--count"),
                               QStringLiteral("10")};
        cli.start(QStringLiteral(GATEHOUSE_CLI), args);
        QVERIFY(cli.waitForStarted());
        QVERIFY(waitUntil([&] { return out.count('\n') >= 2; }, 10000));
        m_server.kill();
        QElapsedTimer down;
        down.start();
        QVERIFY2(waitUntil([&] { return cli.state() == QProcess::NotRunning; },
                           10 * s_intervalMs + 3000),
                 out.constData());
        qInfo("watch --count 10 with the server gone: ended %lld ms after the kill",
              down.elapsed());
        out += cli.readAllStandardOutput();
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QCOMPARE(cli.exitCode(), 0);
        QVERIFY2(out.contains("connection lost"), out.constData());
        QVERIFY2(out.contains("STALE"), out.constData());
        QVERIFY(!out.contains("reconnected after"));
    }

    // gatehouse-cli snapshot against a server that stops answering with the
    // connection open: exit 1 with a sentence after 10 s, never a hang.
    void cliSnapshotServerSilent_data()
    {
        QTest::addColumn<QByteArray>("marker");
        QTest::addColumn<QString>("stage");
        QTest::newRow("scan") << QByteArray("SCAN") << QStringLiteral("while scanning");
        QTest::newRow("reading") << QByteArray("LLEN") << QStringLiteral("while reading");
    }
    void cliSnapshotServerSilent()
    {
        QFETCH(QByteArray, marker);
        QFETCH(QString, stage);
        test::TcpProxy proxy(m_server.port());
        QVERIFY(proxy.start());
        proxy.stallOn(marker);
        QElapsedTimer took;
        took.start();
        const test::CliRun run = test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            {QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:%1").arg(proxy.port()),
             QStringLiteral("--profile"), QStringLiteral("demo"), QStringLiteral("snapshot")},
            {}, 30000);
        qInfo("snapshot, stalled at %s: exit %d after %lld ms: %s", marker.constData(),
              run.exitCode, took.elapsed(), qPrintable(run.err.trimmed()));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QLatin1String("stopped answering")), qPrintable(run.err));
        QVERIFY2(run.err.contains(stage), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
        QVERIFY(took.elapsed() < 15000);
    }

    // A script running past busy-reply-threshold when the snapshot starts:
    // the server answers BUSY to INFO, TIME, DBSIZE and SCAN until the
    // script ends. They are asked again each second, and the snapshot is
    // printed once it is whole, with the server's facts (it ended "DBSIZE
    // failed: BUSY", exit 1, or said "INFO is not permitted", before).
    void cliSnapshotWaitsOutABusyScript()
    {
        RedisClient runner(m_server.endpoint());
        bool ended = false;
        runBusyScript(runner, &ended);
        if (QTest::currentTestFailed())
            return;
        QTest::qWait(300);
        QElapsedTimer took;
        took.start();
        const test::CliRun run
            = test::runCli(QStringLiteral(GATEHOUSE_CLI),
                           {QStringLiteral("--url"), m_server.url(), QStringLiteral("snapshot"),
                            QStringLiteral("--json")},
                           {}, 30000);
        QTRY_VERIFY(ended);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(!run.err.contains(QLatin1String("failed")), qPrintable(run.err));
        const QJsonObject snap = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QVERIFY2(snap.contains(QLatin1String("server")), qPrintable(run.out.left(400)));
        // The server's facts read once it answered: not "INFO is not
        // permitted" for a refusal that passed.
        const QJsonObject server = snap[QLatin1String("server")].toObject();
        QVERIFY2(!server[QLatin1String("version")].toString().isEmpty(),
                 qPrintable(QJsonDocument(server).toJson()));
        QVERIFY2(!QJsonDocument(server).toJson().contains("not permitted"),
                 qPrintable(QJsonDocument(server).toJson()));
        QVERIFY(took.elapsed() >= 1500); // it waited for the script, not a reading of nothing
        call(*m_admin, {"CONFIG", "SET", "busy-reply-threshold", "5000"});
    }

    // gatehouse-cli queue requeue whose reply is lost after the script ran:
    // "may or may not have run", exit 1, audited as unknown; the job was
    // requeued once (the script ran), never lost or duplicated.
    void cliActionReplyLost()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("GATEHOUSE_AUDIT_LOG"), audit());
        QFile::remove(audit());
        // Another job first, straight to the server: the script is then in
        // the server's cache, so the cut request is the one that runs it.
        QCOMPARE(call(*m_admin, {"RPUSH", s_processing, "warm"}).toInteger(), 2);
        const QStringList direct{QStringLiteral("--url"),      m_server.url(),
                                 QStringLiteral("queue"),      QStringLiteral("requeue"),
                                 QString::fromLatin1(s_queue), QStringLiteral("--job"),
                                 QStringLiteral("warm")};
        const test::CliRun warm = test::runCli(QStringLiteral(GATEHOUSE_CLI), direct, env);
        QVERIFY2(warm.exitCode == 0, qPrintable(warm.err));

        test::TcpProxy proxy(m_server.port());
        QVERIFY(proxy.start());
        proxy.cutOnReplyTo(s_job, "EVAL_RO"); // the action's reply, not its rights check's
        const QStringList args{
            QStringLiteral("--url"),      QStringLiteral("redis://127.0.0.1:%1").arg(proxy.port()),
            QStringLiteral("queue"),      QStringLiteral("requeue"),
            QString::fromLatin1(s_queue), QStringLiteral("--job"),
            QString::fromLatin1(s_job)};
        const test::CliRun run = test::runCli(QStringLiteral(GATEHOUSE_CLI), args, env, 20000);
        qInfo("%s", qPrintable(run.err.trimmed()));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QLatin1String("may or may not have run")), qPrintable(run.err));
        QCOMPARE(run.err.count(QLatin1Char('\n')), 1); // one sentence, not two
        // The script ran: the job is back in the queue, once, not in flight.
        checkJobOnce();
        QVERIFY(!call(*m_admin, {"LPOS", s_queue, s_job}).isNil());
        QFile log(audit());
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = log.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const QJsonObject entry = QJsonDocument::fromJson(lines.last()).object();
        QCOMPARE(entry.value(QStringLiteral("outcome")).toString(), QStringLiteral("unknown"));
    }
};

QTEST_GUILESS_MAIN(tst_Faults)
#include "tst_faults.moc"
