// SPDX-License-Identifier: MIT
// Each of Gatehouse's Lua scripts, specified against a real redis-server.
#include <redis/redisclient.h>
#include <redis/redisscript.h>

#include "redisserver.h"

#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QTest>

#include <algorithm>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::waitReady;

namespace {

RedisScript lua(const char *name)
{
    return RedisScript::fromResource(QString::fromLatin1(name));
}

// Runs a script and waits for its reply.
RedisValue run(RedisClient &client, const RedisScript &script, const QList<QByteArray> &keys,
               const QList<QByteArray> &args)
{
    QObject context;
    RedisValue reply = RedisValue::failed(QStringLiteral("no reply"));
    test::ReplyWait replied;
    client.script(script, keys, args, &context, [&](const RedisValue &v) {
        reply = v;
        replied.finish();
    });
    (void)replied.wait(20000);
    return reply;
}

} // namespace

class tst_LuaScripts : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<RedisClient> m_other; // a second connection, for races

    std::unique_ptr<RedisClient> connect()
    {
        auto c = std::make_unique<RedisClient>(m_server.endpoint());
        c->open();
        return waitReady(*c) ? std::move(c) : nullptr;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = connect();
        m_other = connect();
        QVERIFY(m_client && m_other);
    }

    void init() { QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK")); }

    void cleanupTestCase()
    {
        m_client.reset();
        m_other.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // Seed 000's script, run as written, loses same-millisecond requests (and
    // so admits all of them); Gatehouse's admits exactly the limit.
    void sameMillisecondBurst()
    {
        QFile seedFile(QStringLiteral(GATEHOUSE_TEST_DATA "/seed000_rolling.lua"));
        QVERIFY(seedFile.open(QIODevice::ReadOnly));
        const RedisScript seed(QStringLiteral("seed000"), seedFile.readAll());
        const int limit = 5; // the seed's hard-coded limit
        const QByteArray now = call(*m_client, {"TIME"}).at(0).bytes() + "000";

        int seedAdmitted = 0;
        int ownAdmitted = 0;
        for (int i = 0; i < 10 * limit; ++i) {
            if (run(*m_client, seed, {"seed:w", "seed:r"}, {now}).toInteger() == 0)
                ++seedAdmitted;
            const RedisValue own = run(*m_client, lua("sliding_window"), {"own:w", "own:r"},
                                       {QByteArray::number(limit), "1000", now, ""});
            QVERIFY2(own.isInteger(), qPrintable(own.toDebugString()));
            if (own.toInteger() >= 0) // admitted; below 0: retry after -n ms
                ++ownAdmitted;
        }
        // The flaw: 50 admitted against a limit of 5, and the window records one.
        QCOMPARE(seedAdmitted, 10 * limit);
        QCOMPARE(call(*m_client, {"ZCARD", "seed:w"}).toInteger(), 1);
        // The fix.
        QCOMPARE(ownAdmitted, limit);
        QCOMPARE(call(*m_client, {"ZCARD", "own:w"}).toInteger(), limit);
    }

    void retryHorizonGrowsThenIsCapped()
    {
        const auto at = [&](qint64 now, const char *cap) {
            return run(*m_client, lua("sliding_window"), {"w", "r"},
                       {"5", "1000", QByteArray::number(now), cap});
        };
        const qint64 t0 = 1'700'000'000'000;
        for (int i = 0; i < 5; ++i) {
            // Admitted: the requests that still fit in the window.
            QCOMPARE(at(t0, "3"), RedisValue::integer(4 - i));
        }
        // Rejected, retry after -n ms: each retry slot is one interval
        // (1000/5 ms) after the last.
        QCOMPARE(at(t0, "3"), RedisValue::integer(-200));
        QCOMPARE(at(t0, "3"), RedisValue::integer(-400));
        QCOMPARE(at(t0, "3"), RedisValue::integer(-600));
        // Capped at 3 slots: the horizon stops growing, the set stops growing.
        QCOMPARE(at(t0, "3"), RedisValue::integer(-600));
        QCOMPARE(call(*m_client, {"ZCARD", "r"}).toInteger(), 3);
        // Once the window has moved, requests pass; no slot is in the future.
        QCOMPARE(at(t0 + 1000, "3"), RedisValue::integer(4));
        QCOMPARE(call(*m_client, {"ZCOUNT", "r", "(" + QByteArray::number(t0 + 1000), "+inf"})
                     .toInteger(),
                 0);
        // The next rejection trims the past slots: its own is the only one.
        for (int i = 0; i < 4; ++i)
            QCOMPARE(at(t0 + 1000, "3"), RedisValue::integer(3 - i));
        QCOMPARE(at(t0 + 1000, "3"), RedisValue::integer(-200));
        QCOMPARE(call(*m_client, {"ZCARD", "r"}).toInteger(), 1);
        // Idle keys expire.
        QVERIFY(call(*m_client, {"PTTL", "w"}).toInteger() > 0);
    }

    // Sustained rejections: the retry set is trimmed once per window-length
    // period of slot times, not on every rejection, yet stays bounded (cap +
    // limit + 1) and never holds more than cap + 1 future slots.
    void retrySetStaysBoundedUnderSustainedRejections()
    {
        const int limit = 5;
        const int cap = 10;
        qint64 t = 1'700'000'000'123;
        int rejections = 0;
        qint64 mostPast = 0;
        for (int i = 0; i < 1500; ++i, t += 37) { // 27 requests/s against 5/s
            const RedisValue r = run(*m_client, lua("sliding_window"), {"w", "r"},
                                     {"5", "1000", QByteArray::number(t), "10"});
            QVERIFY2(r.isInteger(), qPrintable(r.toDebugString()));
            if (r.toInteger() >= 0)
                continue;
            ++rejections;
            const qint64 horizon = -r.toInteger();
            const qint64 stored = call(*m_client, {"ZCARD", "r"}).toInteger();
            const qint64 future
                = call(*m_client, {"ZCOUNT", "r", "(" + QByteArray::number(t), "+inf"}).toInteger();
            QVERIFY2(future <= cap + 1 && stored <= cap + limit + 1,
                     qPrintable(QStringLiteral("at %1: %2 slots, %3 in the future")
                                    .arg(i)
                                    .arg(stored)
                                    .arg(future)));
            // The horizon is the last slot: one interval per future slot.
            QCOMPARE(horizon, call(*m_client, {"ZRANGE", "r", "-1", "-1", "WITHSCORES"})
                                      .at(1)
                                      .bytes()
                                      .toLongLong()
                                  - t);
            mostPast = std::max(mostPast, stored - future);
        }
        QVERIFY(rejections > 1000);
        // Past slots are left between trims (that is the saving), and trimmed.
        QVERIFY(mostPast > 0);
        QVERIFY(mostPast <= cap + limit + 1);
    }

    // On the server's clock, with the expiry set once per period: after every
    // rejection the retry set outlives its last slot by at least a window.
    void retrySetOutlivesItsHorizon()
    {
        const qint64 window = 100;
        int rejections = 0;
        QElapsedTimer clock;
        clock.start();
        // 250 requests/s against 50/s, for 1.5 s and until 100 rejections were
        // checked (a loaded machine sends fewer per second).
        while ((clock.elapsed() < 1500 || rejections <= 100) && clock.elapsed() < 20000) {
            QElapsedTimer roundTrips; // script to PTTL: at least 5 ms, more under ASan
            roundTrips.start();
            const RedisValue r = run(*m_client, lua("sliding_window"), {"w", "r"},
                                     {"5", QByteArray::number(window), "", "10"});
            QVERIFY2(r.isInteger(), qPrintable(r.toDebugString()));
            if (r.toInteger() < 0) {
                ++rejections;
                const qint64 horizon = -r.toInteger();
                const qint64 ttl = call(*m_client, {"PTTL", "r"}).toInteger();
                const qint64 slack = std::max<qint64>(5, roundTrips.elapsed() + 1);
                QVERIFY2(ttl >= horizon + window - slack,
                         qPrintable(QStringLiteral("the retry set expires in %1 ms, before its "
                                                   "last slot plus a window (%2 ms)")
                                        .arg(ttl)
                                        .arg(horizon + window)));
                // + 1: the server's clock may tick between the script's TIME
                // and its PEXPIRE.
                QVERIFY2(ttl <= horizon + 2 * window + 1,
                         qPrintable(QStringLiteral("the retry set expires in %1 ms, more than two "
                                                   "windows after its last slot (%2 ms)")
                                        .arg(ttl)
                                        .arg(horizon)));
            }
            QTest::qSleep(4);
        }
        QVERIFY(rejections > 100);
    }

    // On the server's clock: once rejections stop, both keys expire within
    // the last horizon plus two windows.
    void idleLimiterKeysExpire()
    {
        const auto request = [&] {
            return run(*m_client, lua("sliding_window"), {"w", "r"}, {"1", "100", "", ""});
        };
        QCOMPARE(request(), RedisValue::integer(0)); // admitted, the window now full
        qint64 horizon = 0;
        for (int i = 0; i < 6; ++i)
            horizon = -request().toInteger();
        QVERIFY(horizon >= 500);
        QVERIFY(call(*m_client, {"PTTL", "r"}).toInteger() >= horizon + 100 - 50);
        QVERIFY(call(*m_client, {"PTTL", "r"}).toInteger() <= horizon + 200);
        QTRY_COMPARE_WITH_TIMEOUT(call(*m_client, {"EXISTS", "w", "r"}).toInteger(), 0,
                                  int(horizon) + 200 + 2000);
    }

    // A retry set whose members are not slot times (written by another tool)
    // is still read by its scores.
    void foreignRetryMembersAreReadByScore()
    {
        const qint64 t = 1'700'000'000'000;
        call(*m_client, {"ZADD", "r", QByteArray::number(t + 700), "someone-else"});
        const auto at = [&](qint64 now) {
            return run(*m_client, lua("sliding_window"), {"w", "r"},
                       {"1", "1000", QByteArray::number(now), ""});
        };
        QCOMPARE(at(t), RedisValue::integer(0));
        QCOMPARE(at(t), RedisValue::integer(-(700 + 1000))); // one interval after the last slot
    }

    // Many connections, server time: admitted requests never exceed the limit
    // in any window. The reply does not say when a request was admitted; the
    // window does (score: the server's time), read after every burst, before
    // anything of it can age out (a burst takes far less than a window).
    void hammeredLimiterNeverOverAdmits()
    {
        const int limit = 20;
        const qint64 window = 500;
        std::vector<std::unique_ptr<RedisClient>> clients;
        for (int i = 0; i < 6; ++i) {
            clients.push_back(connect());
            QVERIFY(clients.back());
        }
        QObject context;
        QHash<QByteArray, qint64> recorded; // window member -> its time
        int admitted = 0;
        int replies = 0;
        const int perRound = 100; // per connection
        for (int round = 0; round < 6; ++round) {
            QElapsedTimer burst;
            burst.start();
            for (auto &c : clients) {
                for (int i = 0; i < perRound; ++i) {
                    c->script(lua("sliding_window"), {"hot:w", "hot:r"},
                              {QByteArray::number(limit), QByteArray::number(window), "", ""},
                              &context, [&](const RedisValue &v) {
                                  ++replies;
                                  if (v.isInteger() && v.toInteger() >= 0)
                                      ++admitted;
                              });
                }
            }
            QTRY_COMPARE_WITH_TIMEOUT(replies, (round + 1) * perRound * 6, 20000);
            const RedisValue members
                = call(*m_client, {"ZRANGE", "hot:w", "0", "-1", "WITHSCORES"});
            QVERIFY2(burst.elapsed() < window,
                     "a burst took longer than a window: what it admitted may have aged out");
            for (qsizetype i = 0; i + 1 < members.size(); i += 2)
                recorded.insert(members.at(i).bytes(), members.at(i + 1).bytes().toLongLong());
            QTest::qWait(int(window / 2)); // let the window move between bursts
        }
        // Every admitted request is in the window once (members are unique
        // within a millisecond), and the window moved.
        QCOMPARE(recorded.size(), admitted);
        QVERIFY(admitted > limit);
        QList<qint64> admittedAt = recorded.values();
        std::sort(admittedAt.begin(), admittedAt.end());
        for (qsizetype i = 0; i < admittedAt.size(); ++i) {
            // Members in (t - window, t] count against a request at t.
            const qint64 t = admittedAt.at(i);
            const auto first = std::upper_bound(admittedAt.begin(), admittedAt.end(), t - window);
            const auto last = std::upper_bound(admittedAt.begin(), admittedAt.end(), t);
            QVERIFY2(last - first <= limit,
                     qPrintable(QStringLiteral("%1 admitted in the window ending %2")
                                    .arg(last - first)
                                    .arg(t)));
        }
    }

    void resourceAndConsumerWindow()
    {
        const RedisScript s = lua("resource_consumer_window");
        const QList<QByteArray> keys{"z:rl:resource:12{12}", "z:rl:resource:12:consumer:1{12}"};
        const QList<QByteArray> other{"z:rl:resource:12{12}", "z:rl:resource:12:consumer:2{12}"};
        const QByteArray now = "1700000000000";
        // Consumer 1 may do 2, the resource 3.
        QCOMPARE(run(*m_client, s, keys, {"3", "2", "1000", now}).at(0).toInteger(), 1);
        QCOMPARE(run(*m_client, s, keys, {"3", "2", "1000", now}).at(0).toInteger(), 1);
        const RedisValue consumerFull = run(*m_client, s, keys, {"3", "2", "1000", now});
        QCOMPARE(consumerFull.at(0).toInteger(), 0);
        QCOMPARE(consumerFull.at(4).bytes(), QByteArray("consumer"));
        QCOMPARE(consumerFull.at(3).toInteger(), 1000); // until the oldest leaves
        // A rejection by the consumer limit records nothing in the resource.
        QCOMPARE(call(*m_client, {"ZCARD", keys.at(0)}).toInteger(), 2);
        QCOMPARE(run(*m_client, s, other, {"3", "2", "1000", now}).at(0).toInteger(), 1);
        const RedisValue resourceFull = run(*m_client, s, other, {"3", "2", "1000", now});
        QCOMPARE(resourceFull.at(4).bytes(), QByteArray("resource"));
        QCOMPARE(call(*m_client, {"ZCARD", other.at(1)}).toInteger(), 1);
        // ">=": a window that somehow holds more than the limit still rejects.
        call(*m_client, {"ZADD", keys.at(0), now, "extra-a", now, "extra-b"});
        QCOMPARE(run(*m_client, s, keys, {"3", "9", "1000", now}).at(4).bytes(),
                 QByteArray("resource"));
    }

    void fixedWindow()
    {
        const RedisScript s = lua("fixed_window");
        for (int i = 1; i <= 3; ++i) {
            const RedisValue r = run(*m_client, s, {"fw"}, {"2", "5000"});
            QCOMPARE(r.at(0).toInteger(), i <= 2 ? 1 : 0);
            QCOMPARE(r.at(1).toInteger(), i);
            QVERIFY(r.at(2).toInteger() > 4000 && r.at(2).toInteger() <= 5000);
        }
        // A counter left without a TTL gets one back.
        call(*m_client, {"SET", "fw2", "7"});
        QVERIFY(run(*m_client, s, {"fw2"}, {"2", "5000"}).at(2).toInteger() > 0);
        QVERIFY(call(*m_client, {"PTTL", "fw2"}).toInteger() > 0);
    }

    void locks()
    {
        QCOMPARE(run(*m_client, lua("lock_acquire"), {"lk"}, {"A", "10000"}),
                 RedisValue::integer(1));
        QCOMPARE(run(*m_client, lua("lock_acquire"), {"lk"}, {"B", "10000"}),
                 RedisValue::bulk("A"));
        // Another holder's value comes back cut, with its full length.
        const RedisValue heldByA
            = RedisValue::array({RedisValue::bulk("A"), RedisValue::integer(1)});
        QCOMPARE(run(*m_client, lua("lock_extend"), {"lk"}, {"B", "50000"}), heldByA);
        QCOMPARE(run(*m_client, lua("lock_extend"), {"lk"}, {"A", "50000"}),
                 RedisValue::integer(1));
        QVERIFY(call(*m_client, {"PTTL", "lk"}).toInteger() > 10000);
        QCOMPARE(run(*m_client, lua("lock_release"), {"lk"}, {"B"}), heldByA);
        QCOMPARE(run(*m_client, lua("lock_release"), {"lk"}, {"A"}), RedisValue::integer(1));
        QVERIFY(run(*m_client, lua("lock_release"), {"lk"}, {"A"}).isNil());
        QVERIFY(run(*m_client, lua("lock_extend"), {"lk"}, {"A", "1000"}).isNil());
    }

    // 10,000 trials: an operator force-releases the token it was shown while
    // the lock expires and another holder takes it. A foreign lock is never
    // deleted.
    void forceReleaseNeverDeletesForeignLock()
    {
        const int trials = 10000;
        QList<RedisClient::Command> setup;
        for (int i = 0; i < trials; ++i)
            setup.append({"SET", "lock:" + QByteArray::number(i), "A" + QByteArray::number(i), "PX",
                          "60000"});
        QObject context;
        bool ready = false;
        m_client->pipeline(setup, &context, [&](const QList<RedisValue> &) { ready = true; });
        QTRY_VERIFY_WITH_TIMEOUT(ready, 30000);

        // Per trial, interleaved on two connections: holder B sees the lock
        // expire (PEXPIRE 0 deletes it) and acquires it; the operator
        // force-releases with the token it was shown (A's).
        const RedisScript release = lua("lock_release");
        call(*m_client, {"SCRIPT", "LOAD", release.source()});
        QList<bool> bAcquired(trials, false);
        QList<RedisValue> released(trials, RedisValue::failed(QStringLiteral("no reply")));
        int holderReplies = 0;
        int releaseReplies = 0;
        for (int i = 0; i < trials; ++i) {
            const QByteArray key = "lock:" + QByteArray::number(i);
            m_other->pipeline({{"PEXPIRE", key, "0"},
                               {"SET", key, "B" + QByteArray::number(i), "NX", "PX", "60000"}},
                              &context, [&, i](const QList<RedisValue> &r) {
                                  bAcquired[i] = r.at(1).isStatus();
                                  ++holderReplies;
                              });
            m_client->script(release, {key}, {"A" + QByteArray::number(i)}, &context,
                             [&, i](const RedisValue &v) {
                                 released[i] = v;
                                 ++releaseReplies;
                             });
        }
        QTRY_COMPARE_WITH_TIMEOUT(holderReplies, trials, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(releaseReplies, trials, 60000);

        QList<RedisClient::Command> reads;
        for (int i = 0; i < trials; ++i)
            reads.append({"GET", "lock:" + QByteArray::number(i)});
        QList<RedisValue> finalValues;
        m_client->pipeline(reads, &context, [&](const QList<RedisValue> &r) { finalValues = r; });
        QTRY_COMPARE_WITH_TIMEOUT(finalValues.size(), qsizetype(trials), 30000);
        int releasedByOperator = 0;
        for (int i = 0; i < trials; ++i) {
            if (released.at(i) == RedisValue::integer(1))
                ++releasedByOperator;
            if (bAcquired.at(i)) {
                QVERIFY2(finalValues.at(i) == RedisValue::bulk("B" + QByteArray::number(i)),
                         qPrintable(QStringLiteral("trial %1: B's lock was deleted").arg(i)));
            }
        }
        qInfo("%d of %d force-releases won the race; no foreign lock was deleted",
              releasedByOperator, trials);
    }

    void tokens()
    {
        QCOMPARE(run(*m_client, lua("token_issue"), {"code:x"}, {"{\"u\":1}", "60"}),
                 RedisValue::integer(1));
        QCOMPARE(run(*m_client, lua("token_issue"), {"code:x"}, {"{\"u\":2}", "60"}),
                 RedisValue::integer(0));
        QCOMPARE(call(*m_client, {"GET", "code:x"}), RedisValue::bulk("{\"u\":1}"));
        QVERIFY(call(*m_client, {"TTL", "code:x"}).toInteger() > 50);
        QCOMPARE(run(*m_client, lua("token_revoke"), {"code:x"}, {}), RedisValue::bulk("string"));
        QVERIFY(run(*m_client, lua("token_revoke"), {"code:x"}, {}).isNil());

        // Seed 002's counted variant: the first use passes, the second is counted and refused.
        call(*m_client, {"HSET", "user_token:t", "some_metadata", "m", "used_by", "0"});
        call(*m_client, {"EXPIRE", "user_token:t", "60"});
        const RedisScript counted = lua("token_consume_counted");
        QCOMPARE(run(*m_client, counted, {"user_token:t"}, {"used_by", "1"}).at(0).toInteger(), 1);
        const RedisValue second = run(*m_client, counted, {"user_token:t"}, {"used_by", "1"});
        QCOMPARE(second.at(0).toInteger(), 0);
        QCOMPARE(second.at(1).toInteger(), 2);
        // A missing token is refused and not recreated without a TTL.
        QCOMPARE(run(*m_client, counted, {"user_token:gone"}, {"used_by", "1"}).at(1).toInteger(),
                 0);
        QCOMPARE(call(*m_client, {"EXISTS", "user_token:gone"}).toInteger(), 0);
    }

    // Concurrent consumers on several connections: each token is used exactly once.
    void tokenConsumedExactlyOnce()
    {
        const int tokens = 500;
        for (int t = 0; t < tokens; ++t)
            call(*m_client, {"SET", "code:" + QByteArray::number(t), "v", "EX", "60"});
        std::vector<std::unique_ptr<RedisClient>> consumers;
        for (int i = 0; i < 6; ++i) {
            consumers.push_back(connect());
            QVERIFY(consumers.back());
        }
        QObject context;
        QList<int> wins(tokens, 0);
        int replies = 0;
        for (int t = 0; t < tokens; ++t) {
            for (auto &c : consumers) {
                c->script(lua("token_consume"), {"code:" + QByteArray::number(t)}, {}, &context,
                          [&, t](const RedisValue &v) {
                              ++replies;
                              if (v == RedisValue::bulk("v"))
                                  ++wins[t];
                          });
            }
        }
        QTRY_COMPARE_WITH_TIMEOUT(replies, tokens * 6, 30000);
        for (int t = 0; t < tokens; ++t)
            QCOMPARE(wins.at(t), 1);
    }

    void queueClaimAndStuck()
    {
        call(*m_client, {"LPUSH", "q", "j1", "j2", "j3"});
        const RedisScript claim = lua("queue_claim");
        QCOMPARE(run(*m_client, claim, {"q", "q:processing", "q:claims"}, {"1000"}),
                 RedisValue::bulk("j1"));
        QCOMPARE(run(*m_client, claim, {"q", "q:processing", "q:claims"}, {"5000"}),
                 RedisValue::bulk("j2"));
        QCOMPARE(call(*m_client, {"ZSCORE", "q:claims", "j1"}).toInteger(), 1000);
        QCOMPARE(call(*m_client, {"LLEN", "q:processing"}).toInteger(), 2);

        // Stuck longer than 3 s at t = 6000: only j1; bounded by the count.
        const RedisScript stuck = lua("queue_requeue_stuck");
        // {claims examined, jobs requeued, the jobs}
        QCOMPARE(run(*m_client, stuck, {"q", "q:processing", "q:claims"}, {"3000", "10", "6000"}),
                 RedisValue::array({RedisValue::integer(1), RedisValue::integer(1),
                                    RedisValue::array({RedisValue::bulk("j1")})}));
        QCOMPARE(call(*m_client, {"LINDEX", "q", "-1"}), RedisValue::bulk("j1")); // taken next
        QCOMPARE(run(*m_client, stuck, {"q", "q:processing", "q:claims"}, {"0", "1", "9000"}).at(1),
                 RedisValue::integer(1));
        QCOMPARE(call(*m_client, {"LLEN", "q:processing"}).toInteger(), 0);
        QVERIFY(run(*m_client, claim, {"empty", "empty:processing", "empty:claims"}, {""}).isNil());

        // A job not in flight (0) is told apart from a queue that is not
        // there at all (-1), so the reply can say the name is wrong.
        const RedisScript requeue = lua("queue_requeue");
        const RedisScript dead = lua("queue_dead_letter");
        QCOMPARE(run(*m_client, requeue, {"q", "q:processing", "q:claims"}, {"j9"}),
                 RedisValue::integer(0)); // q holds jobs, nothing in flight
        QCOMPARE(run(*m_client, requeue, {"nosuch", "nosuch:processing", "nosuch:claims"}, {"j9"}),
                 RedisValue::integer(-1));
        QCOMPARE(
            run(*m_client, dead, {"nosuch:processing", "nosuch:dead", "nosuch:claims"}, {"j9"}),
            RedisValue::integer(-1));
        QCOMPARE(
            call(*m_client, {"EXISTS", "nosuch", "nosuch:processing", "nosuch:dead"}).toInteger(),
            0);
    }

    // 10,000 trials each: a worker's ack races an operator's requeue (or
    // dead-letter) of the same job. Every job ends exactly once in exactly
    // one place.
    void ackRacingOperator_data()
    {
        QTest::addColumn<QString>("action");
        QTest::newRow("requeue") << QStringLiteral("queue_requeue");
        QTest::newRow("dead-letter") << QStringLiteral("queue_dead_letter");
    }

    void ackRacingOperator()
    {
        QFETCH(QString, action);
        const bool requeue = action == QLatin1String("queue_requeue");
        const int trials = 10000;
        QList<RedisClient::Command> setup;
        for (int i = 0; i < trials; ++i) {
            setup.append({"LPUSH", "q:processing", "job-" + QByteArray::number(i)});
            setup.append({"ZADD", "q:claims", "1", "job-" + QByteArray::number(i)});
        }
        QObject context;
        bool ready = false;
        m_client->pipeline(setup, &context, [&](const QList<RedisValue> &) { ready = true; });
        QTRY_VERIFY_WITH_TIMEOUT(ready, 30000);

        QList<std::pair<QList<QByteArray>, QList<QByteArray>>> acks;
        QList<std::pair<QList<QByteArray>, QList<QByteArray>>> ops;
        for (int i = 0; i < trials; ++i) {
            const QByteArray job = "job-" + QByteArray::number(i);
            acks.append({{"q:processing", "q:claims"}, {job}});
            if (requeue)
                ops.append({{"q", "q:processing", "q:claims"}, {job}});
            else
                ops.append({{"q:processing", "q:dead", "q:claims"}, {job}});
        }
        // Both scripts cached first, so neither side is slowed by a NOSCRIPT
        // round trip; then the calls go out interleaved on two connections.
        const RedisScript ack = lua("queue_ack");
        const RedisScript op = RedisScript::fromResource(action);
        call(*m_client, {"SCRIPT", "LOAD", ack.source()});
        call(*m_client, {"SCRIPT", "LOAD", op.source()});
        QList<RedisValue> ackReplies(trials);
        QList<RedisValue> opReplies(trials);
        for (int i = 0; i < trials; ++i) {
            m_other->script(ack, acks.at(i).first, acks.at(i).second, &context,
                            [&ackReplies, i](const RedisValue &v) { ackReplies[i] = v; });
            m_client->script(op, ops.at(i).first, ops.at(i).second, &context,
                             [&opReplies, i](const RedisValue &v) { opReplies[i] = v; });
        }
        const auto answered = [](const QList<RedisValue> &r) {
            return std::none_of(r.begin(), r.end(),
                                [](const RedisValue &v) { return v.isFailed() || v.isNil(); });
        };
        QTRY_VERIFY_WITH_TIMEOUT(answered(ackReplies) && answered(opReplies), 60000);

        const QByteArray target = requeue ? "q" : "q:dead";
        QCOMPARE(call(*m_client, {"LLEN", "q:processing"}).toInteger(), 0);
        QCOMPARE(call(*m_client, {"ZCARD", "q:claims"}).toInteger(), 0);
        const RedisValue landed = call(*m_client, {"LRANGE", target, "0", "-1"});
        QSet<QByteArray> seen;
        for (const RedisValue &v : landed.elements()) {
            QVERIFY2(!seen.contains(v.bytes()), "a job was duplicated");
            seen.insert(v.bytes());
        }
        int acked = 0;
        for (int i = 0; i < trials; ++i) {
            const qint64 a = ackReplies.at(i).toInteger();
            const qint64 o = opReplies.at(i).toInteger();
            // The operator's call after the last ack finds no processing
            // list at all (-1): not moved either.
            QVERIFY2(
                a + std::max<qint64>(o, 0) == 1 && o >= -1,
                qPrintable(QStringLiteral("trial %1: ack %2, operator %3").arg(i).arg(a).arg(o)));
            QCOMPARE(seen.contains("job-" + QByteArray::number(i)), o == 1);
            acked += int(a);
        }
        qInfo("%s: %d acked first, %d moved by the operator", qPrintable(action), acked,
              trials - acked);
    }

    void limiterReset()
    {
        run(*m_client, lua("sliding_window"), {"w", "r"}, {"1", "1000", "", ""});
        run(*m_client, lua("sliding_window"), {"w", "r"}, {"1", "1000", "", ""});
        QCOMPARE(run(*m_client, lua("limiter_reset"), {"w", "r"}, {"", "1", "times", "mstimes"}),
                 RedisValue::integer(2));
        QCOMPARE(call(*m_client, {"EXISTS", "w", "r"}).toInteger(), 0);
    }

    void badArgumentsAreClearErrors()
    {
        const RedisValue r
            = run(*m_client, lua("sliding_window"), {"w", "r"}, {"x", "1000", "", ""});
        QVERIFY(r.isError());
        QVERIFY2(r.errorMessage().contains(QLatin1String("limit and window must be positive")),
                 qPrintable(r.errorMessage()));
        // A wrong-type key gives Redis's WRONGTYPE, not a crash or a partial write.
        call(*m_client, {"SET", "str", "x"});
        QVERIFY(run(*m_client, lua("queue_ack"), {"str", "c"}, {"j"})
                    .errorMessage()
                    .contains(QLatin1String("WRONGTYPE")));
    }
};

QTEST_GUILESS_MAIN(tst_LuaScripts)
#include "tst_luascripts.moc"
