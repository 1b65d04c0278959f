// SPDX-License-Identifier: MIT
// Each pattern unit's reading, checked against keys built with known scores
// relative to the server's TIME, in a real redis-server.
#include <patterns/fixed-window/fixedwindowunit.h>
#include <patterns/legacy-lock/legacylockunit.h>
#include <patterns/limiterdata.h>
#include <patterns/lock/lockdata.h>
#include <patterns/lock/lockunit.h>
#include <patterns/objectread.h>
#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>
#include <patterns/redisson-limiter/redissonlimiterunit.h>
#include <patterns/reliable-queue/reliablequeueunit.h>
#include <patterns/sliding-window/slidingwindowunit.h>
#include <patterns/token-family/tokendata.h>
#include <patterns/token-family/tokenfamilyunit.h>
#include <redis/redisclient.h>
#include <redis/serverinfo.h>

#include "redisserver.h"

#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::waitReady;

namespace {

QByteArray n(qint64 v)
{
    return QByteArray::number(v);
}

// A seed 000 window with its retry set (key + ":retry"), limit 5.
PatternObject windowObject(const QByteArray &key, qint64 windowMs)
{
    PatternObject o;
    o.kind = PatternKind("sliding-window");
    o.key = key;
    o.related = {key + ":retry"};
    o.params.limit = 5;
    o.params.windowMs = windowMs;
    return o;
}

RedisValue runScript(RedisClient &client, const ScriptCall &sc)
{
    QObject context;
    RedisValue reply = RedisValue::failed(QStringLiteral("no reply"));
    test::ReplyWait replied;
    client.script(RedisScript::fromResource(sc.script), sc.keys, sc.args, &context,
                  [&](const RedisValue &v) {
                      reply = v;
                      replied.finish();
                  });
    (void)replied.wait(20000);
    return reply;
}

} // namespace

class tst_PatternUnits : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QList<QByteArray> m_unbounded; // probe commands that could read a large key whole

    qint64 serverNow() { return serverTimeMs(call(*m_client, {"TIME"})); }

    Reading probe(const PatternObject &o, ProbeContext ctx)
    {
        const PatternUnit &unit = PatternUnit::of(o.kind);
        const auto cmds = unit.probe(o, ctx);
        for (const auto &cmd : cmds) { // bounded reads only
            static const QList<QByteArray> unbounded{"KEYS", "HGETALL", "GET", "SMEMBERS"};
            if (unbounded.contains(cmd.first())
                || (cmd.first() == "LRANGE" && cmd.value(2) == "0" && cmd.value(3) == "-1"))
                m_unbounded.append(cmd.join(' '));
        }
        QObject context;
        QList<RedisValue> replies;
        bool done = false;
        readObjects(*m_client, &context, {{&unit, o, ctx}}, [&](const ObjectReplies &r) {
            replies = r.value(0);
            done = true;
        });
        (void)test::waitUntil([&] { return done; }, 20000);
        return unit.read(o, replies, ctx);
    }

    Reading probe(const PatternObject &o, qint64 now, bool detail = false)
    {
        ProbeContext ctx;
        ctx.nowMs = now;
        ctx.detail = detail;
        return probe(o, ctx);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void init() { QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK")); }
    void cleanup() { QCOMPARE(m_unbounded, QList<QByteArray>()); }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void slidingWindow()
    {
        const qint64 now = serverNow();
        call(*m_client, {"ZADD", "rl:api", n(now - 15000), "a", n(now - 9000), "b", n(now - 5000),
                         "c", n(now - 100), "d"});
        call(*m_client, {"ZADD", "rl:api:retry", n(now - 500), "old", n(now + 2000), "s1",
                         n(now + 4000), "s2"});
        PatternObject o = windowObject("rl:api", 10000);

        const Reading r = probe(o, now, true);
        QVERIFY2(r.isOk(), qPrintable(r.message));
        QCOMPARE(r.inWindow, 3);
        QCOMPARE(LimiterData::of(r).stored, 4);
        QCOMPARE(LimiterData::of(r).oldestAgeMs, 9000);
        QCOMPARE(LimiterData::of(r).retryHorizonMs, 4000);
        QCOMPARE(LimiterData::of(r).retrySlots, 2);
        QCOMPARE(r.occupancy().value(), 0.6);
        QCOMPARE(LimiterData::of(r).windowTimes,
                 (QList<qint64>{now - 9000, now - 5000, now - 100}));
        QCOMPARE(LimiterData::of(r).retryTimes, (QList<qint64>{now + 2000, now + 4000}));

        // Without a limit: counted, occupancy unknown, and said so.
        o.params.limit.reset();
        const Reading unknown = probe(o, now);
        QCOMPARE(unknown.inWindow, 3);
        QVERIFY(!unknown.occupancy());
        QVERIFY(unknown.message.contains(QLatin1String("limit")));
        QVERIFY(LimiterData::of(unknown).windowTimes.isEmpty()); // no detail asked

        // Reset deletes both keys.
        QCOMPARE(runScript(*m_client, SlidingWindowUnit::resetWindow(o)).toInteger(), 2);
        QCOMPARE(probe(o, now).status, Reading::Status::Missing);
    }

    // Between readings the monitor projects a reading with time (TTLs down,
    // ages up) until the unit's validUntilMs: up to then the projection must
    // equal what a read would say; past it, a read is what tells.
    void projectionMatchesLaterReading()
    {
        const qint64 now = serverNow();
        call(*m_client,
             {"ZADD", "rl:p", n(now - 9000), "b", n(now - 5000), "c", n(now - 100), "d"});
        call(*m_client, {"ZADD", "rl:p:retry", n(now + 2000), "s1"});
        PatternObject w = windowObject("rl:p", 10000);
        const PatternUnit &sliding = PatternUnit::of(w.kind);
        const Reading r0 = probe(w, now);
        QCOMPARE(sliding.validUntilMs(w, r0), now + 1000 - 1); // "b" leaves the window
        for (qint64 later : {now + 300, now + 998}) {
            const Reading projected = r0.at(later), read = probe(w, later);
            QCOMPARE(projected.inWindow, read.inWindow);
            QCOMPARE(LimiterData::of(projected).oldestAgeMs, LimiterData::of(read).oldestAgeMs);
            QCOMPARE(LimiterData::of(projected).retryHorizonMs,
                     LimiterData::of(read).retryHorizonMs);
            QCOMPARE(LimiterData::of(projected).retrySlots, LimiterData::of(read).retrySlots);
        }
        QCOMPARE(probe(w, now + 1000).inWindow, 2); // past it, the count fell
        call(*m_client, {"ZADD", "rl:p:retry", n(now + 3000), "s2"});
        const Reading twoSlots = probe(w, now);
        QCOMPARE(sliding.validUntilMs(w, twoSlots), now); // slot times unknown: read each tick
        call(*m_client, {"DEL", "rl:p", "rl:p:retry"});
        QCOMPARE(sliding.validUntilMs(w, probe(w, now)), Reading::Forever); // idle

        // A queue: ages grow; a claim turns stuck at its crossing.
        call(*m_client, {"LPUSH", "q:p:processing", "old", "new"});
        call(*m_client, {"ZADD", "q:p:claims", n(now - 50000), "old", n(now - 1000), "new"});
        PatternObject q;
        q.kind = PatternKind("reliable-queue");
        q.key = "q:p";
        q.related = {"q:p:processing", "q:p:claims", "q:p:dead"};
        q.params.stuckAfterMs = 60000;
        const PatternUnit &queue = PatternUnit::of(q.kind);
        const Reading q0 = probe(q, now);
        QCOMPARE(queue.validUntilMs(q, q0), now + 10000);
        const Reading projected = q0.at(now + 9000), read = probe(q, now + 9000);
        QCOMPARE(projected.queue().stuck, read.queue().stuck);
        QCOMPARE(projected.queue().oldestInFlightAgeMs, read.queue().oldestInFlightAgeMs);
        QCOMPARE(projected.queue().items.size(), read.queue().items.size());
        for (int i = 0; i < read.queue().items.size(); ++i)
            QCOMPARE(projected.queue().items.at(i).ageMs, read.queue().items.at(i).ageMs);
        QCOMPARE(q0.queue().stuck, 0);
        QCOMPARE(probe(q, now + 10000).queue().stuck, 1); // past it, "old" is stuck
        call(*m_client, {"DEL", "q:p:processing", "q:p:claims"});
        QCOMPARE(queue.validUntilMs(q, probe(q, now)), Reading::Forever); // nothing in flight

        // A lock and a fixed-window counter count down with the server's clock.
        call(*m_client, {"SET", "lock:p", "t0k3n", "PX", "5000"});
        call(*m_client, {"SET", "throttle:p", "7", "PX", "5000"});
        PatternObject lock;
        lock.kind = PatternKind("lock");
        lock.key = "lock:p";
        PatternObject fixed;
        fixed.kind = PatternKind("fixed-window");
        fixed.key = "throttle:p";
        fixed.params.limit = 5;
        const Reading l0 = probe(lock, serverNow()), f0 = probe(fixed, serverNow());
        QCOMPARE(PatternUnit::of(lock.kind).validUntilMs(lock, l0), l0.atMs + l0.pttlMs);
        QCOMPARE(PatternUnit::of(fixed.kind).validUntilMs(fixed, f0), f0.atMs + f0.pttlMs);
        QTest::qWait(300);
        // atMs is the time the probe was sent; this helper's waits poll in
        // 10 ms steps, hence the tolerance.
        const qint64 later = serverNow();
        const Reading l1 = probe(lock, later), f1 = probe(fixed, later);
        QVERIFY2(std::abs(l0.at(later).pttlMs - l1.pttlMs) <= 25,
                 qPrintable(QStringLiteral("%1 vs %2").arg(l0.at(later).pttlMs).arg(l1.pttlMs)));
        QVERIFY2(std::abs(LimiterData::of(f0.at(later)).resetMs - LimiterData::of(f1).resetMs)
                     <= 25,
                 qPrintable(QStringLiteral("%1 vs %2")
                                .arg(LimiterData::of(f0.at(later)).resetMs)
                                .arg(LimiterData::of(f1).resetMs)));
        QVERIFY(std::abs(LimiterData::of(f0.at(later)).retryHorizonMs
                         - LimiterData::of(f1).retryHorizonMs)
                <= 25);
        QCOMPARE(l0.at(l0.atMs + 60000).pttlMs, 0); // never below zero
        call(*m_client, {"PERSIST", "lock:p"});
        QCOMPARE(PatternUnit::of(lock.kind).validUntilMs(lock, probe(lock, serverNow())),
                 Reading::Forever); // no TTL: only a write changes it
    }

    // The unit reads what Gatehouse's own limiter script writes.
    void slidingWindowAfterScript()
    {
        const RedisScript script = RedisScript::fromResource(QStringLiteral("sliding_window"));
        const qint64 now = serverNow();
        for (int i = 0; i < 8; ++i) {
            bool done = false;
            QObject ctx;
            m_client->script(script, {"rl:s", "rl:s:retry"}, {"5", "1000", n(now), "100"}, &ctx,
                             [&](const RedisValue &) { done = true; });
            QVERIFY(test::waitUntil([&] { return done; }, 5000));
        }
        PatternObject o = windowObject("rl:s", 1000);
        const Reading r = probe(o, now);
        QCOMPARE(r.inWindow, 5);
        QCOMPARE(r.occupancy().value(), 1.0);
        QCOMPARE(LimiterData::of(r).retrySlots, 3);
        QCOMPARE(LimiterData::of(r).retryHorizonMs, 600); // three slots of window/limit = 200 ms
    }

    // Seed 003's layout: scores in seconds, members in microseconds.
    void resourceConsumerSeconds()
    {
        const qint64 now = serverNow();
        const qint64 s = now / 1000;
        call(*m_client,
             {"ZADD", "z:rl:resource:12{12}", n(s - 20), "1", n(s - 5), "2", n(s - 1), "3"});
        call(*m_client, {"ZADD", "z:rl:resource:12{12}:consumer:1", n(s - 1), "3"});
        PatternObject res;
        res.kind = PatternKind("resource-consumer");
        res.key = "z:rl:resource:12{12}";
        res.params.limit = 10;
        res.params.windowMs = 10000;
        res.params.scoreUnitMs = 1000;
        const Reading r = probe(res, s * 1000);
        QCOMPARE(r.inWindow, 2);
        QCOMPARE(LimiterData::of(r).stored, 3);
        QCOMPARE(LimiterData::of(r).oldestAgeMs, 5000);

        PatternObject consumer = res;
        consumer.key = "z:rl:resource:12{12}:consumer:1";
        consumer.parent = res.key;
        consumer.params.limit = 5;
        const Reading c = probe(consumer, s * 1000);
        QCOMPARE(c.inWindow, 1);
        QCOMPARE(c.occupancy().value(), 0.2);
    }

    void fixedWindow()
    {
        call(*m_client, {"SET", "throttle:u1", "7", "PX", "5000"});
        PatternObject o;
        o.kind = PatternKind("fixed-window");
        o.key = "throttle:u1";
        o.params.limit = 5;
        const Reading r = probe(o, serverNow());
        QVERIFY(r.isOk());
        QCOMPARE(r.inWindow, 7);
        QVERIFY(LimiterData::of(r).resetMs > 4000 && LimiterData::of(r).resetMs <= 5000);
        QCOMPARE(LimiterData::of(r).retryHorizonMs,
                 LimiterData::of(r).resetMs); // over the limit: wait for the reset

        call(*m_client, {"SET", "throttle:u1", "not a number"});
        QCOMPARE(probe(o, serverNow()).status, Reading::Status::WrongType);
        call(*m_client, {"DEL", "throttle:u1"});
        QCOMPARE(probe(o, serverNow()).status, Reading::Status::Missing);
    }

    // Written the way Redisson writes it: struct.pack('fI', random, permits).
    void redissonLimiter()
    {
        const qint64 now = serverNow();
        call(*m_client, {"HSET", "my-rate-limiter", "rate", "3", "interval", "60000", "type", "0"});
        call(*m_client, {"SET", "{my-rate-limiter}:value", "1"});
        const QByteArray grant = "redis.call('zadd', KEYS[1], ARGV[1], "
                                 "struct.pack('fI', ARGV[2], ARGV[3]))";
        const QByteArray permits = "{my-rate-limiter}:permits";
        call(*m_client, {"EVAL", grant, "1", permits, n(now - 70000), "0.25", "1"});
        call(*m_client, {"EVAL", grant, "1", permits, n(now - 30000), "0.5", "1"});
        call(*m_client, {"EVAL", grant, "1", permits, n(now - 10000), "0.75", "1"});
        PatternObject o;
        o.kind = PatternKind("redisson-limiter");
        o.key = "my-rate-limiter";
        o.related = {"{my-rate-limiter}:value", permits};
        o.params.windowMs = 60000;
        Reading r = probe(o, now);
        QVERIFY2(r.isOk(), qPrintable(r.message));
        QCOMPARE(r.limit.value(), 3);
        QCOMPARE(LimiterData::of(r).windowMs, 60000);
        QCOMPARE(r.inWindow, 2);
        QCOMPARE(LimiterData::of(r).retryHorizonMs, 0);

        // A grant of 2 permits exhausts it: the next permit frees when the
        // oldest grant in the window (30 s ago) leaves it.
        call(*m_client, {"EVAL", grant, "1", permits, n(now - 5000), "0.1", "2"});
        r = probe(o, now);
        QCOMPARE(r.inWindow, 4);
        QCOMPARE(LimiterData::of(r).retryHorizonMs, 30000);

        call(*m_client, {"DEL", "my-rate-limiter"});
        QCOMPARE(probe(o, now).status, Reading::Status::Missing);
    }

    void lock()
    {
        call(*m_client, {"SET", "lock:orders", "3f9a1c2e-77b1-4c1d", "PX", "30000"});
        PatternObject o;
        o.kind = PatternKind("lock");
        o.key = "lock:orders";
        const Reading r = probe(o, serverNow());
        QVERIFY(r.isOk());
        QCOMPARE(LockData::of(r).token, QByteArray("3f9a1c2e-77b1-4c1d"));
        QVERIFY(r.pttlMs > 29000 && r.pttlMs <= 30000);

        // Force-release compares the token it was shown.
        QCOMPARE(runScript(*m_client, LockUnit::forceRelease(o, "someone-else")).at(0).bytes(),
                 QByteArray("3f9a1c2e-77b1-4c1d"));
        QCOMPARE(
            runScript(*m_client, LockUnit::extend(o, LockData::of(r).token, 90000)).toInteger(), 1);
        QVERIFY(probe(o, serverNow()).pttlMs > 89000);
        QCOMPARE(runScript(*m_client, LockUnit::forceRelease(o, LockData::of(r).token)).toInteger(),
                 1);
        QCOMPARE(probe(o, serverNow()).status, Reading::Status::Missing);
        QVERIFY(runScript(*m_client, LockUnit::forceRelease(o, LockData::of(r).token)).isNil());

        call(*m_client, {"LPUSH", "lock:orders", "x"});
        const Reading wrong = probe(o, serverNow());
        QCOMPARE(wrong.status, Reading::Status::WrongType);
        QVERIFY(wrong.message.contains(QLatin1String("lock:orders")));
    }

    void legacyLock()
    {
        const qint64 now = serverNow();
        call(*m_client, {"SET", "lock.foo", n(now / 1000 + 10)});
        call(*m_client, {"SET", "lock.bar", n(now - 5000)}); // ms, expired 5 s ago
        PatternObject o;
        o.kind = PatternKind("legacy-lock");
        o.key = "lock.foo";
        Reading r = probe(o, now);
        QVERIFY(r.isOk());
        QCOMPARE(LockData::of(r).expiresAtMs, (now / 1000 + 10) * 1000);
        QCOMPARE(r.pttlMs, -1);
        o.key = "lock.bar";
        r = probe(o, now);
        QCOMPARE(LockData::of(r).expiresAtMs, now - 5000);
        QVERIFY(r.message.contains(QLatin1String("crashed")));
    }

    void tokenFamily()
    {
        call(*m_client, {"SET", "code:a1b2c3d4e5", "{}", "EX", "60"});
        call(*m_client, {"SET", "code:f6g7h8i9j0", "{}", "EX", "30"});
        call(*m_client, {"SET", "code:k1l2m3n4o5", "{}"}); // a leak: no TTL
        PatternObject o;
        o.kind = PatternKind("token-family");
        o.key = "code:";
        o.members = {"code:a1b2c3d4e5", "code:f6g7h8i9j0", "code:k1l2m3n4o5", "code:consumed0001"};
        const Reading r = probe(o, serverNow());
        QVERIFY(r.isOk());
        QCOMPARE(TokenData::of(r).count, 3);
        QCOMPARE(TokenData::of(r).withoutTtl, 1);
        QVERIFY(TokenData::of(r).minTtlMs > 29000 && TokenData::of(r).minTtlMs <= 30000);
        QVERIFY(TokenData::of(r).maxTtlMs > 59000 && TokenData::of(r).maxTtlMs <= 60000);
        QVERIFY(r.message.contains(QLatin1String("no TTL")));

        // Issue and revoke through the unit's calls.
        const QByteArray token = TokenFamilyUnit::newToken();
        QCOMPARE(token.size(), 32);
        QVERIFY(token != TokenFamilyUnit::newToken());
        const ScriptCall issue = TokenFamilyUnit::issue(o, token, "{\"user\":1}", 120);
        QCOMPARE(issue.keys.first(), "code:" + token);
        QCOMPARE(runScript(*m_client, issue).toInteger(), 1);
        QCOMPARE(runScript(*m_client, issue).toInteger(), 0); // collision reported, not overwritten
        QCOMPARE(call(*m_client, {"GET", "code:" + token}).bytes(), QByteArray("{\"user\":1}"));
        QCOMPARE(runScript(*m_client, TokenFamilyUnit::revoke("code:" + token, {"code:"})).bytes(),
                 QByteArray("string"));
        QVERIFY(runScript(*m_client, TokenFamilyUnit::revoke("code:" + token, {"code:"})).isNil());
    }

    // Seed 002's hashes with a use counter.
    void countedTokens()
    {
        call(*m_client, {"HSET", "user_token:aaaa1111", "used_by", "0", "user", "1"});
        call(*m_client, {"EXPIRE", "user_token:aaaa1111", "60"});
        call(*m_client, {"HSET", "user_token:bbbb2222", "used_by", "1", "user", "2"});
        call(*m_client, {"EXPIRE", "user_token:bbbb2222", "60"});
        call(*m_client, {"SET", "user_token:cccc3333", "x", "EX", "60"}); // not a hash
        PatternObject o;
        o.kind = PatternKind("token-family");
        o.key = "user_token:";
        o.countedTokens = true;
        o.members = {"user_token:aaaa1111", "user_token:bbbb2222", "user_token:cccc3333"};
        const Reading r = probe(o, serverNow());
        QCOMPARE(TokenData::of(r).count, 2);
        QCOMPARE(TokenData::of(r).used, 1);
        QVERIFY(r.message.contains(QLatin1String("not hashes")));
    }

    void queueWithClaims()
    {
        const RedisScript claim = RedisScript::fromResource(QStringLiteral("queue_claim"));
        const qint64 now = serverNow();
        for (const char *job : {"j1", "j2", "j3", "j4", "j5"})
            call(*m_client, {"LPUSH", "jobs:mail", job});
        for (qint64 at : {now - 120000, now - 90000, now - 1000}) {
            bool done = false;
            QObject ctx;
            m_client->script(claim, {"jobs:mail", "jobs:mail:processing", "jobs:mail:claims"},
                             {n(at)}, &ctx, [&](const RedisValue &) { done = true; });
            QVERIFY(test::waitUntil([&] { return done; }, 5000));
        }
        PatternObject o;
        o.kind = PatternKind("reliable-queue");
        o.key = "jobs:mail";
        o.related = {"jobs:mail:processing", "jobs:mail:claims", "jobs:mail:dead"};
        o.params.stuckAfterMs = 60000;
        Reading r = probe(o, now);
        QVERIFY2(r.isOk(), qPrintable(r.message));
        QCOMPARE(r.queue().length, 2);
        QCOMPARE(r.queue().inFlight, 3);
        QCOMPARE(r.queue().stuck, 2);
        QCOMPARE(r.queue().items.size(), 3);
        QCOMPARE(r.queue().items.at(0).job, QByteArray("j1"));
        QCOMPARE(r.queue().items.at(0).ageMs, 120000);
        QCOMPARE(r.queue().items.at(0).source, AgeSource::ClaimsSet);
        QCOMPARE(r.queue().oldestInFlightAgeMs, 120000);

        // Requeue, dead-letter and requeue-stuck through the unit's calls.
        QCOMPARE(runScript(*m_client, ReliableQueueUnit::requeue(o, "j1")).toInteger(), 1);
        QCOMPARE(runScript(*m_client, ReliableQueueUnit::requeue(o, "j1")).toInteger(), 0);
        QCOMPARE(runScript(*m_client, ReliableQueueUnit::deadLetter(o, "j3")).toInteger(), 1);
        const RedisValue stuck
            = runScript(*m_client, ReliableQueueUnit::requeueStuck(o, 60000, 10));
        QCOMPARE(stuck.at(1).toInteger(), 1); // {examined, requeued, jobs}
        QCOMPARE(stuck.at(2).size(), 1);
        QCOMPARE(stuck.at(2).at(0).bytes(), QByteArray("j2"));
        r = probe(o, serverNow());
        QCOMPARE(r.queue().length, 4);
        QCOMPARE(r.queue().inFlight, 0);
        QCOMPARE(r.queue().deadLength, 1);
        QCOMPARE(r.queue().stuck, 0);
        // The requeued job is the next one taken (the right end).
        QCOMPARE(call(*m_client, {"LINDEX", "jobs:mail", "-1"}).bytes(), QByteArray("j2"));
    }

    // Written with RPOPLPUSH and no claims set: ages from first sight, as
    // the unit's track of the readings before says (a at the first, b at the
    // second).
    void queueFirstSeen()
    {
        for (const char *job : {"a", "b", "c"})
            call(*m_client, {"LPUSH", "q", job});
        call(*m_client, {"RPOPLPUSH", "q", "q:processing"}); // a
        const qint64 now = serverNow();
        PatternObject o;
        o.kind = PatternKind("reliable-queue");
        o.key = "q";
        o.related = {"q:processing"};
        o.params.stuckAfterMs = 60000;
        const PatternUnit &unit = PatternUnit::of(o.kind);
        TrackState track;
        ProbeContext ctx;
        ctx.nowMs = now - 300000;
        Reading r = probe(o, ctx);
        QCOMPARE(r.queue().items.size(), 1);
        QCOMPARE(r.queue().items.at(0).ageMs, 0); // first sight: its age is not known
        unit.track(track, r, ctx.nowMs);
        track.everRead = true;
        call(*m_client, {"RPOPLPUSH", "q", "q:processing"}); // b
        ctx.nowMs = now - 2000;
        ctx.track = track.ownPart();
        unit.track(track, probe(o, ctx), ctx.nowMs);
        ctx.nowMs = now;
        r = probe(o, ctx);
        QCOMPARE(r.queue().length, 1);
        QCOMPARE(r.queue().inFlight, 2);
        QCOMPARE(r.queue().stuck, 1);
        QCOMPARE(r.queue().items.size(), 2);
        QCOMPARE(r.queue().items.at(0).job, QByteArray("a"));
        QCOMPARE(r.queue().items.at(0).ageMs, 300000);
        QCOMPARE(r.queue().items.at(0).source, AgeSource::FirstSeen);
        QCOMPARE(r.queue().items.at(1).job, QByteArray("b"));
        QCOMPARE(r.queue().items.at(1).ageMs, 2000);
        QVERIFY(!ReliableQueueUnit::requeueStuck(o, 60000, 10).isValid());
    }

    // A 1,000,000-item processing list is read in one bounded page, flagged.
    void hugeProcessingList()
    {
        QList<QList<QByteArray>> batch;
        for (int b = 0; b < 1000; ++b) {
            QList<QByteArray> cmd{"RPUSH", "big:processing"};
            for (int i = 0; i < 1000; ++i)
                cmd.append(n(b * 1000 + i));
            batch.append(cmd);
        }
        QObject ctx;
        bool done = false;
        m_client->pipeline(batch, &ctx, [&](const QList<RedisValue> &) { done = true; });
        QVERIFY(test::waitUntil([&] { return done; }, 60000));
        PatternObject o;
        o.kind = PatternKind("reliable-queue");
        o.key = "big";
        o.related = {"big:processing"};
        const Reading r = probe(o, serverNow());
        QVERIFY(r.isOk());
        QCOMPARE(r.queue().inFlight, 1000000);
        QCOMPARE(r.queue().items.size(), o.params.pageSize);
        QCOMPARE(r.queue().items.first().job, QByteArray("999999")); // the oldest: right end
        QVERIFY(r.queue().truncated);
        QVERIFY(r.queue().stuckIsLowerBound);
        QVERIFY(r.message.contains(QLatin1String("1000000")));
    }

    // Missing keys, empty lists and wrong types: one clear result each.
    void emptyAndWrongType_data()
    {
        QTest::addColumn<QByteArray>("kind");
        QTest::addColumn<QByteArray>("setup");
        QTest::addColumn<int>("status");
        const int ok = int(Reading::Status::Ok);
        const int missing = int(Reading::Status::Missing);
        const int wrong = int(Reading::Status::WrongType);
        QTest::newRow("window missing") << QByteArray("sliding-window") << QByteArray() << missing;
        QTest::newRow("window is a list")
            << QByteArray("sliding-window") << QByteArray("list") << wrong;
        QTest::newRow("counter missing") << QByteArray("fixed-window") << QByteArray() << missing;
        QTest::newRow("counter is a zset")
            << QByteArray("fixed-window") << QByteArray("zset") << wrong;
        QTest::newRow("redisson missing")
            << QByteArray("redisson-limiter") << QByteArray() << missing;
        QTest::newRow("redisson is a list")
            << QByteArray("redisson-limiter") << QByteArray("list") << wrong;
        QTest::newRow("lock missing") << QByteArray("lock") << QByteArray() << missing;
        QTest::newRow("lock is a hash") << QByteArray("lock") << QByteArray("hash") << wrong;
        QTest::newRow("legacy lock is a zset")
            << QByteArray("legacy-lock") << QByteArray("zset") << wrong;
        QTest::newRow("tokens all gone") << QByteArray("token-family") << QByteArray() << missing;
        // Redis removes an empty list or sorted set: no key, whatever the
        // pattern, reads as Missing (the monitor shows it gone).
        QTest::newRow("queue empty, no key")
            << QByteArray("reliable-queue") << QByteArray() << missing;
        QTest::newRow("queue with a job")
            << QByteArray("reliable-queue") << QByteArray("list") << ok;
        QTest::newRow("semaphore without holder, no key")
            << QByteArray("sorted-set-semaphore") << QByteArray() << missing;
        QTest::newRow("semaphore held")
            << QByteArray("sorted-set-semaphore") << QByteArray("zset") << ok;
        QTest::newRow("queue is a string")
            << QByteArray("reliable-queue") << QByteArray("string") << wrong;
    }

    void emptyAndWrongType()
    {
        QFETCH(QByteArray, kind);
        QFETCH(QByteArray, setup);
        QFETCH(int, status);
        if (setup == "list")
            call(*m_client, {"LPUSH", "k", "x"});
        else if (setup == "zset")
            call(*m_client, {"ZADD", "k", "1", "x"});
        else if (setup == "hash")
            call(*m_client, {"HSET", "k", "f", "x"});
        else if (setup == "string")
            call(*m_client, {"SET", "k", "x"});
        PatternObject o;
        o.kind = *patternFromId(QString::fromLatin1(kind));
        o.key = "k";
        o.params.windowMs = 1000;
        if (o.kind == PatternKind("redisson-limiter"))
            o.related = {"{k}:value", "{k}:permits"};
        if (o.kind == PatternKind("reliable-queue"))
            o.related = {"k:processing", "k:claims"};
        if (o.kind == PatternKind("token-family")) {
            o.key = "t:";
            o.members = {"t:gone0001", "t:gone0002"};
        }
        const Reading r = probe(o, serverNow());
        QCOMPARE(int(r.status), status);
        QVERIFY(status == int(Reading::Status::Ok) || !r.message.isEmpty());
        if (status == int(Reading::Status::WrongType))
            QVERIFY2(r.message.contains(QLatin1String("\"k")), qPrintable(r.message));
    }
};

QTEST_GUILESS_MAIN(tst_PatternUnits)
#include "tst_patternunits.moc"
