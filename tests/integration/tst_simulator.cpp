// SPDX-License-Identifier: MIT
// `gatehouse-cli simulate` against a fresh redis-server leaves every pattern,
// and what it reports is what Redis holds.
#include <redis/redisclient.h>
#include <redis/serverinfo.h>

#include "redisserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::runCli;
using gatehouse::test::waitReady;

class tst_Simulator : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QJsonObject m_report;

    QList<QByteArray> keysOf(const char *pattern) const
    {
        QList<QByteArray> keys;
        const auto array = m_report.value(QLatin1String("patterns"))
                               .toObject()
                               .value(QLatin1String(pattern))
                               .toObject()
                               .value(QLatin1String("keys"))
                               .toArray();
        for (const auto &v : array)
            keys.append(v.toString().toUtf8());
        return keys;
    }

    QByteArray type(const QByteArray &key) { return call(*m_client, {"TYPE", key}).bytes(); }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);

        const auto run
            = runCli(QStringLiteral(GATEHOUSE_CLI),
                     {QStringLiteral("--url"), m_server.url(), QStringLiteral("simulate"),
                      QStringLiteral("--seconds"), QStringLiteral("3"), QStringLiteral("--scale"),
                      QStringLiteral("2"), QStringLiteral("--seed"), QStringLiteral("7"),
                      QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QJsonParseError error;
        m_report = QJsonDocument::fromJson(run.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(run.out));
        QVERIFY(m_report.value(QLatin1String("commands")).toInteger() > 50);
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void everyPatternLeft_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<int>("count");
        QTest::addColumn<QByteArray>("type");
        // scale 2: 8 sliding windows, 2 resources x 3 consumers, 4 counters,
        // 2 Redisson limiters, 2 legacy locks, 2 + 1 queues, 2 token families,
        // 6 semaphores.
        QTest::newRow("sliding-window") << "sliding-window" << 8 << QByteArray("zset");
        QTest::newRow("resource-consumer") << "resource-consumer" << 8 << QByteArray("zset");
        QTest::newRow("fixed-window") << "fixed-window" << 4 << QByteArray("string");
        QTest::newRow("redisson-limiter") << "redisson-limiter" << 2 << QByteArray("hash");
        QTest::newRow("legacy-lock") << "legacy-lock" << 2 << QByteArray("string");
        QTest::newRow("reliable-queue") << "reliable-queue" << 3 << QByteArray();
        QTest::newRow("token-family") << "token-family" << 2 << QByteArray();
        QTest::newRow("sorted-set-semaphore") << "sorted-set-semaphore" << 6 << QByteArray("zset");
    }

    void everyPatternLeft()
    {
        QFETCH(QString, pattern);
        QFETCH(int, count);
        QFETCH(QByteArray, type);
        const QList<QByteArray> keys = keysOf(pattern.toLatin1().constData());
        QCOMPARE(keys.size(), count);
        if (!type.isEmpty()) {
            for (const QByteArray &key : keys)
                QCOMPARE(this->type(key), type);
        }
    }

    // Crashed lock holders leave locks that expire on their own.
    void crashedLocksLeft()
    {
        const QList<QByteArray> locks = keysOf("lock");
        QVERIFY(!locks.isEmpty());
        for (const QByteArray &key : locks) {
            const qint64 pttl = call(*m_client, {"PTTL", key}).toInteger();
            QVERIFY2(pttl > 0 && pttl <= 20000, key.constData());
        }
        // The crashed holder of the first SETNX lock left an expiry in the past.
        const qint64 expiry = call(*m_client, {"GET", "sim:lock.legacy:0"}).toInteger();
        const qint64 nowS = call(*m_client, {"TIME"}).at(0).toInteger();
        QVERIFY(expiry < nowS);
    }

    // Limiter clients above their limit were rejected and given retry slots.
    void limitersMoved()
    {
        int withRetry = 0;
        for (const QByteArray &key : keysOf("sliding-window")) {
            if (call(*m_client, {"EXISTS", key + ":retry"}).toInteger() == 1)
                ++withRetry;
            QVERIFY(call(*m_client, {"PTTL", key}).toInteger() > 0); // idle windows expire
        }
        QVERIFY(withRetry > 0);
        QVERIFY(call(*m_client, {"ZCARD", "{sim:redisson:0}:permits"}).toInteger() > 0);
    }

    // Workers that crashed left jobs in processing, with claim times.
    void stuckJobsLeft()
    {
        QVERIFY(call(*m_client, {"LLEN", "sim:jobs:mail:processing"}).toInteger() > 0);
        QVERIFY(call(*m_client, {"ZCARD", "sim:jobs:mail:claims"}).toInteger() > 0);
        QVERIFY(call(*m_client, {"LLEN", "sim:legacyq:0:processing"}).toInteger() > 0);
        QCOMPARE(call(*m_client, {"EXISTS", "sim:legacyq:0:claims"}).toInteger(), 0);
    }

    // Semaphore holders that crashed keep their slots: every semaphore has
    // holders, acquired at server times (ms), never more than the demo
    // profile's limit, and the set expires once nobody acquires.
    void semaphoresHeld()
    {
        const QList<QByteArray> semaphores = keysOf("sorted-set-semaphore");
        QVERIFY(semaphores.contains("sim:sem:exports"));
        const qint64 nowMs = serverTimeMs(call(*m_client, {"TIME"}));
        for (const QByteArray &key : semaphores) {
            QVERIFY2(key.startsWith("sim:sem:"), key.constData());
            const qint64 holders = call(*m_client, {"ZCARD", key}).toInteger();
            QVERIFY2(holders >= 1 && holders <= 5, key.constData());
            const RedisValue held = call(*m_client, {"ZRANGE", key, "0", "-1", "WITHSCORES"});
            for (qsizetype i = 0; i + 1 < held.size(); i += 2) {
                const qint64 acquired = held.at(i + 1).bytes().toLongLong();
                QVERIFY2(acquired <= nowMs && acquired > nowMs - 60000, key.constData());
            }
            const qint64 pttl = call(*m_client, {"PTTL", key}).toInteger();
            QVERIFY2(pttl > 0 && pttl <= 120000, key.constData());
        }
    }

    // The monitor, with the demo profile, finds them as semaphores with the
    // profile's limit and timeout, and each holder with its acquire time.
    void monitorFindsSemaphores()
    {
        const auto run = runCli(QStringLiteral(GATEHOUSE_CLI),
                                {QStringLiteral("--url"), m_server.url(),
                                 QStringLiteral("--profile"), QStringLiteral("demo"),
                                 QStringLiteral("snapshot"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonArray found = QJsonDocument::fromJson(run.out.toUtf8())
                                     .object()
                                     .value(QLatin1String("semaphores"))
                                     .toArray();
        QList<QByteArray> keys;
        for (const auto &v : found) {
            const QJsonObject s = v.toObject();
            const QByteArray key = s.value(QLatin1String("key")).toString().toUtf8();
            keys.append(key);
            QCOMPARE(s.value(QLatin1String("pattern")).toString(),
                     QStringLiteral("sorted-set-semaphore"));
            QCOMPARE(s.value(QLatin1String("limit")).toDouble(), 5.0);
            QCOMPARE(s.value(QLatin1String("timeoutMs")).toDouble(), 60000.0);
            const QJsonArray holders = s.value(QLatin1String("holderList")).toArray();
            QCOMPARE(s.value(QLatin1String("holders")).toDouble(), double(holders.size()));
            QVERIFY2(!holders.isEmpty(), key.constData());
            for (const auto &h : holders) {
                const QJsonObject holder = h.toObject();
                const RedisValue score
                    = call(*m_client, {"ZSCORE", key,
                                       holder.value(QLatin1String("holder")).toString().toUtf8()});
                QCOMPARE(qint64(holder.value(QLatin1String("acquiredAtMs")).toDouble()),
                         score.bytes().toLongLong());
                QVERIFY(!holder.value(QLatin1String("expired")).toBool());
            }
        }
        std::sort(keys.begin(), keys.end());
        QList<QByteArray> expected = keysOf("sorted-set-semaphore");
        std::sort(expected.begin(), expected.end());
        QCOMPARE(keys, expected);
    }

    void tokensLeft()
    {
        const auto live = m_report.value(QLatin1String("liveTokens")).toObject();
        QVERIFY(live.value(QLatin1String("sim:code:")).toInteger() > 0);
        QVERIFY(live.value(QLatin1String("sim:user_token:")).toInteger() > 0);
        QCOMPARE(
            this->type(call(*m_client, {"SCAN", "0", "MATCH", "sim:user_token:*", "COUNT", "1000"})
                           .at(1)
                           .at(0)
                           .bytes()),
            QByteArray("hash"));
    }

    // --rate multiplies the traffic.
    void rateMultipliesTraffic()
    {
        auto commands = [&](const char *rate) {
            const auto run
                = runCli(QStringLiteral(GATEHOUSE_CLI),
                         {QStringLiteral("--url"), m_server.url(), QStringLiteral("simulate"),
                          QStringLiteral("--seconds"), QStringLiteral("2"),
                          QStringLiteral("--rate"), QLatin1String(rate), QStringLiteral("--json")});
            return QJsonDocument::fromJson(run.out.toUtf8())
                .object()
                .value(QLatin1String("commands"))
                .toInteger();
        };
        const qint64 slow = commands("0.5");
        const qint64 fast = commands("4");
        QVERIFY2(slow > 0 && fast > 3 * slow,
                 qPrintable(QStringLiteral("%1 vs %2").arg(slow).arg(fast)));
    }

    // simulate writes only where it was asked to: never under --read-only,
    // never into a database holding other keys unless --allow-nonempty.
    void refusesToWriteBesideOtherKeys()
    {
        auto simulate = [&](int db, QStringList extra) {
            QString url = m_server.url() + QStringLiteral("/%1").arg(db);
            QStringList args{QStringLiteral("--url"), url, QStringLiteral("simulate"),
                             QStringLiteral("--seconds"), QStringLiteral("1")};
            args << extra;
            return runCli(QStringLiteral(GATEHOUSE_CLI), args);
        };
        auto keysIn = [&](int db) {
            call(*m_client, {"SELECT", QByteArray::number(db)});
            const qint64 n = call(*m_client, {"DBSIZE"}).toInteger();
            call(*m_client, {"SELECT", "0"});
            return n;
        };
        // Application data in db 3: a user's keys.
        call(*m_client, {"SELECT", "3"});
        call(*m_client, {"SET", "user:1", "alice"});
        call(*m_client, {"HSET", "session:9", "uid", "1"});
        call(*m_client, {"SELECT", "0"});

        auto run = simulate(3, {});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("2 keys"))
                     && run.err.contains(QLatin1String("--allow-nonempty"))
                     && run.err.contains(QLatin1String("Nothing was written")),
                 qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("user:1"))
                     || run.err.contains(QLatin1String("session:9")),
                 qPrintable(run.err));
        QCOMPARE(keysIn(3), 2);

        run = simulate(3, {QStringLiteral("--read-only")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("--read-only")), qPrintable(run.err));
        QCOMPARE(keysIn(3), 2);

        // An empty database, and one holding only the simulator's keys
        // (a second run), are its own.
        run = simulate(4, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const qint64 first = keysIn(4);
        QVERIFY(first > 10);
        run = simulate(4, {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));

        // --read-only refuses even there.
        run = simulate(5, {QStringLiteral("--read-only")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(keysIn(5), 0);

        // Asked for explicitly: beside the user's keys, which stay as they were.
        run = simulate(3, {QStringLiteral("--allow-nonempty")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(keysIn(3) > 2);
        call(*m_client, {"SELECT", "3"});
        QCOMPARE(call(*m_client, {"GET", "user:1"}).bytes(), QByteArray("alice"));
        call(*m_client, {"FLUSHDB"});
        call(*m_client, {"SELECT", "4"});
        call(*m_client, {"FLUSHDB"});
        call(*m_client, {"SELECT", "0"});
    }

    void badArguments()
    {
        const auto rate
            = runCli(QStringLiteral(GATEHOUSE_CLI),
                     {QStringLiteral("--url"), m_server.url(), QStringLiteral("simulate"),
                      QStringLiteral("--rate"), QStringLiteral("0")});
        QCOMPARE(rate.exitCode, 2);
        QVERIFY2(rate.err.contains(QLatin1String("--rate")), qPrintable(rate.err));
        auto run = runCli(QStringLiteral(GATEHOUSE_CLI),
                          {QStringLiteral("--url"), m_server.url(), QStringLiteral("simulate"),
                           QStringLiteral("--seconds"), QStringLiteral("soon")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QLatin1String("--seconds")), qPrintable(run.err));
        run = runCli(QStringLiteral(GATEHOUSE_CLI),
                     {QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:1"),
                      QStringLiteral("simulate"), QStringLiteral("--seconds"),
                      QStringLiteral("1")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QLatin1String("127.0.0.1:1")), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(tst_Simulator)
#include "tst_simulator.moc"
