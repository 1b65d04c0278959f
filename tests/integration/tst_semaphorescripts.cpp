// SPDX-License-Identifier: MIT
// The sorted-set semaphore's scripts (lua/sorted-set-semaphore/), specified
// against a real redis-server: what an operator relies on when acting on one.
#include <actions/actionengine.h>
#include <redis/redisclient.h>
#include <redis/redisscript.h>

#include "redisserver.h"

#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::waitReady;

namespace {

const QByteArray s_key = "sem:{jobs}";

RedisScript acquireScript()
{
    return RedisScript::fromResource(QStringLiteral("semaphore_acquire"));
}

RedisScript releaseScript()
{
    return RedisScript::fromResource(QStringLiteral("semaphore_release"));
}

// Runs a script (EVALSHA, NOSCRIPT fallback) and waits for its reply.
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

// Every byte a reply carries (strings, errors, integers as digits).
qsizetype replyBytes(const RedisValue &v)
{
    if (v.isArray()) {
        qsizetype n = 0;
        for (const RedisValue &e : v.elements())
            n += replyBytes(e);
        return n;
    }
    return v.isInteger() ? QByteArray::number(v.toInteger()).size() : v.bytes().size();
}

RedisValue reply(std::initializer_list<RedisValue> elements)
{
    return RedisValue::array(QList<RedisValue>(elements));
}

} // namespace

class tst_SemaphoreScripts : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;

    // The server's clock in ms (the scripts' clock).
    qint64 serverNowMs()
    {
        const RedisValue t = call(*m_client, {"TIME"});
        return t.at(0).toInteger() * 1000 + t.at(1).toInteger() / 1000;
    }

    RedisValue acquire(const QByteArray &holder, int limit, qint64 timeoutMs,
                       const QByteArray &key = s_key)
    {
        return run(*m_client, acquireScript(), {key},
                   {holder, QByteArray::number(limit), QByteArray::number(timeoutMs)});
    }

    RedisValue release(const QByteArray &holder, const QByteArray &shownScore,
                       const QByteArray &key = s_key)
    {
        return run(*m_client, releaseScript(), {key}, {holder, shownScore});
    }

    // The dry run's command, exactly as ActionEngine::run sends it.
    RedisValue releaseReadOnly(const QByteArray &holder, const QByteArray &shownScore)
    {
        return call(*m_client,
                    {"EVAL_RO", releaseScript().source(), "1", s_key, holder, shownScore});
    }

    RedisValue members(const QByteArray &key = s_key)
    {
        return call(*m_client, {"ZRANGE", key, "0", "-1", "WITHSCORES"});
    }

    QByteArray scoreOf(const QByteArray &holder)
    {
        return call(*m_client, {"ZSCORE", s_key, holder}).bytes();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = test::connectedClient(m_server);
        QVERIFY(m_client);
        // Both scripts are embedded from lua/<pattern>/ and load by that path.
        QVERIFY(acquireScript().isValid());
        QVERIFY(releaseScript().isValid());
        QVERIFY(acquireScript().source().contains("KEYS[1]"));
        QCOMPARE(releaseScript().name(), QStringLiteral("semaphore_release"));
    }

    void init() { QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK")); }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void acquireUpToTheLimitThenRefused()
    {
        const qint64 timeout = 60000;
        const qint64 before = serverNowMs();
        QCOMPARE(acquire("a", 3, timeout), reply({RedisValue::integer(1), RedisValue::integer(1)}));
        QCOMPARE(acquire("b", 3, timeout), reply({RedisValue::integer(1), RedisValue::integer(2)}));
        QCOMPARE(acquire("c", 3, timeout), reply({RedisValue::integer(1), RedisValue::integer(3)}));
        const qint64 after = serverNowMs();
        // Full: refused, and the refused holder is not added.
        QCOMPARE(acquire("d", 3, timeout), reply({RedisValue::integer(0), RedisValue::integer(3)}));
        QCOMPARE(call(*m_client, {"ZCARD", s_key}).toInteger(), 3);
        QVERIFY(call(*m_client, {"ZSCORE", s_key, "d"}).isNil());
        // Scores are the server's time in ms.
        for (const char *holder : {"a", "b", "c"}) {
            const qint64 score = scoreOf(holder).toLongLong();
            QVERIFY2(score >= before && score <= after, holder);
        }
        // An abandoned semaphore vanishes: the key expires after about twice the timeout.
        const qint64 ttl = call(*m_client, {"PTTL", s_key}).toInteger();
        QVERIFY2(ttl > timeout && ttl <= 2 * timeout, qPrintable(QString::number(ttl)));
        // A holder that holds already is told so; its score is kept.
        const QByteArray scoreA = scoreOf("a");
        QCOMPARE(acquire("a", 3, timeout), reply({RedisValue::integer(1), RedisValue::integer(3)}));
        QCOMPARE(scoreOf("a"), scoreA);
        // Limit 0: always full.
        QCOMPARE(acquire("z", 0, timeout, "sem:zero"),
                 reply({RedisValue::integer(0), RedisValue::integer(0)}));
        QCOMPARE(call(*m_client, {"EXISTS", "sem:zero"}).toInteger(), 0);
    }

    void expiredHoldersAreTrimmedAndDoNotCount()
    {
        const qint64 timeout = 5000;
        const qint64 now = serverNowMs();
        const QByteArray old = QByteArray::number(now - timeout - 1000);
        const QByteArray live = QByteArray::number(now);
        QCOMPARE(
            call(*m_client, {"ZADD", s_key, old, "old1", old, "old2", live, "live"}).toInteger(),
            3);
        // Limit 2 with two expired holders and one live one: one slot is free.
        QCOMPARE(acquire("new", 2, timeout),
                 reply({RedisValue::integer(1), RedisValue::integer(2)}));
        QVERIFY(call(*m_client, {"ZSCORE", s_key, "old1"}).isNil());
        QVERIFY(call(*m_client, {"ZSCORE", s_key, "old2"}).isNil());
        QCOMPARE(call(*m_client, {"ZCARD", s_key}).toInteger(), 2);
        QCOMPARE(acquire("more", 2, timeout),
                 reply({RedisValue::integer(0), RedisValue::integer(2)}));

        // A full semaphore of expired holders only: all trimmed, then acquired.
        QCOMPARE(call(*m_client, {"ZADD", "sem:stale", old, "x", old, "y"}).toInteger(), 2);
        QCOMPARE(acquire("fresh", 2, timeout, "sem:stale"),
                 reply({RedisValue::integer(1), RedisValue::integer(1)}));
        QCOMPARE(call(*m_client, {"ZRANGE", "sem:stale", "0", "-1"}),
                 reply({RedisValue::bulk("fresh")}));
    }

    // A score of exactly now - timeout has expired (<=). The script's "now" is
    // the new holder's score; tries until it lands in the ms the edge was
    // written for (a local server answers well within a ms).
    void holderAtExactlyTheTimeoutHasExpired()
    {
        const qint64 timeout = 60000;
        int sameMs = 0;
        for (int i = 0; i < 500 && sameMs < 3; ++i) {
            (void)call(*m_client, {"DEL", s_key});
            const qint64 now = serverNowMs();
            QCOMPARE(call(*m_client, {"ZADD", s_key, QByteArray::number(now - timeout), "edge"})
                         .toInteger(),
                     1);
            QCOMPARE(acquire("h", 2, timeout).at(0), RedisValue::integer(1));
            if (scoreOf("h").toLongLong() != now)
                continue; // a later ms: the edge is past the timeout either way
            ++sameMs;
            QVERIFY2(call(*m_client, {"ZSCORE", s_key, "edge"}).isNil(),
                     "a holder at exactly now - timeout still counts");
        }
        if (sameMs == 0)
            QSKIP("the script never ran in the ms the edge was written for (a loaded machine)");
    }

    void acquireRejectsBadArguments_data()
    {
        QTest::addColumn<QByteArray>("limit");
        QTest::addColumn<QByteArray>("timeout");
        QTest::newRow("limit not a number") << QByteArray("x") << QByteArray("1000");
        QTest::newRow("negative limit") << QByteArray("-1") << QByteArray("1000");
        QTest::newRow("fractional limit") << QByteArray("1.5") << QByteArray("1000");
        QTest::newRow("zero timeout") << QByteArray("1") << QByteArray("0");
        QTest::newRow("empty timeout") << QByteArray("1") << QByteArray("");
    }

    void acquireRejectsBadArguments()
    {
        QFETCH(QByteArray, limit);
        QFETCH(QByteArray, timeout);
        const RedisValue r = run(*m_client, acquireScript(), {s_key}, {"h", limit, timeout});
        QVERIFY2(r.isError() && r.bytes().startsWith("ERR semaphore_acquire:"),
                 qPrintable(r.toDebugString()));
        QCOMPARE(call(*m_client, {"EXISTS", s_key}).toInteger(), 0);
    }

    void releaseWithTheShownScoreRemovesExactlyThatHolder()
    {
        const qint64 now = serverNowMs();
        const QByteArray s1 = QByteArray::number(now - 3);
        const QByteArray s2 = QByteArray::number(now - 2);
        const QByteArray s3 = QByteArray::number(now - 1);
        QCOMPARE(call(*m_client, {"ZADD", s_key, s1, "a", s2, "b", s3, "c"}).toInteger(), 3);
        QCOMPARE(call(*m_client, {"PEXPIRE", s_key, "600000"}).toInteger(), 1);
        const qint64 expiresAt = call(*m_client, {"PEXPIRETIME", s_key}).toInteger();

        QCOMPARE(release("b", s2), reply({RedisValue::integer(1), RedisValue::bulk("released")}));
        QCOMPARE(members(), reply({RedisValue::bulk("a"), RedisValue::bulk(s1),
                                   RedisValue::bulk("c"), RedisValue::bulk(s3)}));
        QCOMPARE(call(*m_client, {"PEXPIRETIME", s_key}).toInteger(), expiresAt);
        // Released once: a second release of the same slot finds it gone.
        QCOMPARE(release("b", s2), reply({RedisValue::integer(0), RedisValue::bulk("gone")}));

        // The last holder: the key goes with it (Redis deletes an empty ZSET).
        QCOMPARE(release("a", s1).at(0), RedisValue::integer(1));
        QCOMPARE(release("c", s3).at(0), RedisValue::integer(1));
        QCOMPARE(call(*m_client, {"EXISTS", s_key}).toInteger(), 0);
    }

    // The holder released and acquired again (a new score): the operator's
    // view is stale, nothing is removed, and the reply carries the new score.
    void releaseWithAStaleScoreReportsChanged()
    {
        QCOMPARE(acquire("a", 5, 60000).at(0), RedisValue::integer(1));
        QCOMPARE(acquire("b", 5, 60000).at(0), RedisValue::integer(1));
        const QByteArray shown = scoreOf("a");
        const QByteArray current = QByteArray::number(shown.toLongLong() + 1234);
        QCOMPARE(call(*m_client, {"ZADD", s_key, "XX", current, "a"}).toInteger(), 0);
        const RedisValue before = members();
        const qint64 ttlBefore = call(*m_client, {"PEXPIRETIME", s_key}).toInteger();

        QCOMPARE(release("a", shown), reply({RedisValue::integer(0), RedisValue::bulk("changed"),
                                             RedisValue::bulk(current)}));
        QCOMPARE(members(), before);
        QCOMPARE(call(*m_client, {"PEXPIRETIME", s_key}).toInteger(), ttlBefore);
        // With the score it reported, the operator can release it.
        QCOMPARE(release("a", current),
                 reply({RedisValue::integer(1), RedisValue::bulk("released")}));
    }

    // The shown score must be a whole number of ms; it is compared as a number.
    void releaseComparesTheScoreAsANumber()
    {
        QCOMPARE(call(*m_client, {"ZADD", s_key, "1700000000123", "a"}).toInteger(), 1);
        for (const QByteArray &bad : {QByteArray(""), QByteArray("abc"), QByteArray("1.7e12"),
                                      QByteArray("1700000000123.0"), QByteArray(" 1700000000123"),
                                      QByteArray("0x18BCFE56800"), QByteArray(16, '1')}) {
            const RedisValue r = release("a", bad);
            QVERIFY2(r.isError() && r.bytes().startsWith("ERR semaphore_release:"),
                     qPrintable(r.toDebugString()));
        }
        QCOMPARE(call(*m_client, {"ZCARD", s_key}).toInteger(), 1);
        // One ms off is another score.
        QCOMPARE(release("a", "1700000000124"),
                 reply({RedisValue::integer(0), RedisValue::bulk("changed"),
                        RedisValue::bulk("1700000000123")}));
        // A fractional score (written by another client) never equals a shown whole number.
        QCOMPARE(call(*m_client, {"ZADD", s_key, "XX", "1700000000123.5", "a"}).toInteger(), 0);
        QCOMPARE(release("a", "1700000000123"),
                 reply({RedisValue::integer(0), RedisValue::bulk("changed"),
                        RedisValue::bulk("1700000000123.5")}));
        QCOMPARE(call(*m_client, {"ZADD", s_key, "XX", "1700000000123", "a"}).toInteger(), 0);
        QCOMPARE(release("a", "1700000000123").at(0), RedisValue::integer(1));
    }

    void releaseOfAnAbsentHolderWritesNothing()
    {
        // The key does not exist: it is not created.
        QCOMPARE(release("nobody", "1700000000000"),
                 reply({RedisValue::integer(0), RedisValue::bulk("gone")}));
        QCOMPARE(call(*m_client, {"EXISTS", s_key}).toInteger(), 0);

        // The key exists without that holder: its members and expiry stay.
        QCOMPARE(acquire("a", 5, 60000).at(0), RedisValue::integer(1));
        const RedisValue before = members();
        const qint64 expiresAt = call(*m_client, {"PEXPIRETIME", s_key}).toInteger();
        QCOMPARE(release("nobody", scoreOf("a")),
                 reply({RedisValue::integer(0), RedisValue::bulk("gone")}));
        QCOMPARE(members(), before);
        QCOMPARE(call(*m_client, {"PEXPIRETIME", s_key}).toInteger(), expiresAt);
    }

    void wrongTypeIsRefusedAndUntouched_data()
    {
        QTest::addColumn<QList<QByteArray>>("layout"); // the command that writes the key
        QTest::addColumn<QByteArray>("type");
        QTest::addColumn<QByteArray>("dump");
        QTest::newRow("string") << QList<QByteArray>{"SET", s_key, "a token"}
                                << QByteArray("string") << QByteArray("GET");
        QTest::newRow("list") << QList<QByteArray>{"RPUSH", s_key, "j1", "j2"} << QByteArray("list")
                              << QByteArray("LRANGE");
        QTest::newRow("hash") << QList<QByteArray>{"HSET", s_key, "f", "v", "g", "w"}
                              << QByteArray("hash") << QByteArray("HGETALL");
    }

    void wrongTypeIsRefusedAndUntouched()
    {
        QFETCH(QList<QByteArray>, layout);
        QFETCH(QByteArray, type);
        QFETCH(QByteArray, dump);
        QVERIFY(!call(*m_client, layout).isError());
        const qint64 expiresAt = serverNowMs() + 600000;
        QCOMPARE(call(*m_client, {"PEXPIREAT", s_key, QByteArray::number(expiresAt)}).toInteger(),
                 1);
        const auto content = [&] {
            QList<QByteArray> cmd{dump, s_key};
            if (dump == "LRANGE")
                cmd << "0"
                    << "-1";
            return call(*m_client, cmd);
        };
        const RedisValue before = content();
        const RedisValue expected = RedisValue::error("GHTYPE 1 " + type + " zset");

        QCOMPARE(acquire("h", 5, 60000), expected);
        QCOMPARE(release("h", "1700000000000"), expected);
        QCOMPARE(releaseReadOnly("h", "1700000000000"), expected); // the dry run says so too
        // Even with a bad shown score: the type is checked first.
        QCOMPARE(release("h", "not a number"), expected);

        QCOMPARE(call(*m_client, {"TYPE", s_key}), RedisValue::status(type));
        QCOMPARE(content(), before);
        QCOMPARE(call(*m_client, {"PEXPIRETIME", s_key}).toInteger(), expiresAt);
    }

    // ActionEngine's dry run sends EVAL_RO: a matching holder passes every
    // check and fails at the write (ZREM) with the server's read-only error,
    // which interpretDryRun reads as "the checks pass"; a holder that is gone
    // or changed comes back with the reply a real run would give.
    void dryRunUnderEvalRo()
    {
        QCOMPARE(acquire("a", 5, 60000).at(0), RedisValue::integer(1));
        QCOMPARE(acquire("b", 5, 60000).at(0), RedisValue::integer(1));
        const QByteArray scoreA = scoreOf("a");
        const RedisValue before = members();

        const RedisValue matching = releaseReadOnly("a", scoreA);
        QVERIFY2(matching.isError(), qPrintable(matching.toDebugString()));
        QVERIFY2(matching.bytes().contains("Write commands are not allowed from read-only scripts"),
                 qPrintable(matching.toDebugString()));
        QCOMPARE(members(), before);
        ScriptCall dry;
        dry.action = QStringLiteral("semaphore.release");
        dry.script = QStringLiteral("semaphore_release");
        dry.keys = {s_key};
        dry.args = {"a", scoreA};
        const ActionOutcome outcome = ActionEngine::interpretDryRun(dry, matching);
        QCOMPARE(outcome.result, ActionOutcome::Result::DryRun);
        QCOMPARE(outcome.wouldBe, ActionOutcome::Result::Done);

        const QByteArray stale = QByteArray::number(scoreA.toLongLong() - 1);
        QCOMPARE(
            releaseReadOnly("a", stale),
            reply({RedisValue::integer(0), RedisValue::bulk("changed"), RedisValue::bulk(scoreA)}));
        QCOMPARE(releaseReadOnly("nobody", scoreA),
                 reply({RedisValue::integer(0), RedisValue::bulk("gone")}));
        QCOMPARE(members(), before);

        // And then for real: exactly what the dry run predicted.
        QCOMPARE(release("a", scoreA),
                 reply({RedisValue::integer(1), RedisValue::bulk("released")}));
        QCOMPARE(call(*m_client, {"ZRANGE", s_key, "0", "-1"}), reply({RedisValue::bulk("b")}));
    }

    // Neither script echoes the holder id: a 100 KB id gets a reply of a few
    // bytes, whatever the outcome.
    void hugeHolderIdGetsABoundedReply()
    {
        const QByteArray huge(100 * 1024, 'h');
        const QByteArray other = QByteArray(100 * 1024, 'o');
        const RedisValue taken = acquire(huge, 1, 60000);
        QCOMPARE(taken, reply({RedisValue::integer(1), RedisValue::integer(1)}));
        const RedisValue full = acquire(other, 1, 60000);
        QCOMPARE(full, reply({RedisValue::integer(0), RedisValue::integer(1)}));

        const QByteArray score = scoreOf(huge);
        const QByteArray stale = QByteArray::number(score.toLongLong() + 1);
        for (const RedisValue &r : {release(huge, stale), release(other, score),
                                    releaseReadOnly(huge, stale), releaseReadOnly(other, score)}) {
            QVERIFY2(r.isArray() && replyBytes(r) <= 64, qPrintable(r.toDebugString().left(200)));
        }
        const RedisValue released = release(huge, score);
        QCOMPARE(released, reply({RedisValue::integer(1), RedisValue::bulk("released")}));
        QCOMPARE(call(*m_client, {"EXISTS", s_key}).toInteger(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_SemaphoreScripts)
#include "tst_semaphorescripts.moc"
