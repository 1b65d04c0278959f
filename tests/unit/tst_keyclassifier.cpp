// SPDX-License-Identifier: MIT
// How single keys are judged for autodetection, from what a bounded look shows.
#include <patterns/keyclassifier.h>

#include <QTest>

using namespace gatehouse;

Q_DECLARE_METATYPE(gatehouse::KeyShape)

namespace {
constexpr qint64 s_now = 1'763'800'000'000; // a server time in ms

KeyShape zset(const char *key, double first, double last)
{
    KeyShape s;
    s.key = key;
    s.type = "zset";
    s.size = 10;
    s.firstScore = first;
    s.lastScore = last;
    return s;
}

KeyShape str(const char *key, const char *head, qint64 pttl)
{
    KeyShape s;
    s.key = key;
    s.type = "string";
    s.head = head;
    s.pttlMs = pttl;
    return s;
}
} // namespace

class tst_KeyClassifier : public QObject
{
    Q_OBJECT

private slots:
    void classify_data()
    {
        QTest::addColumn<KeyShape>("shape");
        QTest::addColumn<int>("role");
        const double now = double(s_now);
        QTest::newRow("ms window") << zset("rl:api:u1", now - 5000, now) << int(KeyRole::WindowMs);
        QTest::newRow("s window (seed 003)")
            << zset("z:rl:resource:12{12}", now / 1000 - 5, now / 1000)
            << int(KeyRole::WindowSeconds);
        QTest::newRow("retry slots")
            << zset("rl:api:u1:retry", now + 10, now + 5000) << int(KeyRole::RetrySlots);
        QTest::newRow("claims") << zset("jobs:claims", now - 100, now) << int(KeyRole::ClaimsSet);
        QTest::newRow("leaderboard") << zset("scores", 1, 9000) << int(KeyRole::Unknown);
        // Holders and request times look alike: only the name says semaphore.
        QTest::newRow("semaphore sem:")
            << zset("sim:sem:gpu", now - 5000, now) << int(KeyRole::Semaphore);
        QTest::newRow("semaphore named so")
            << zset("Render-Semaphore:farm", now - 5000, now) << int(KeyRole::Semaphore);
        QTest::newRow("sem inside a word is no semaphore")
            << zset("rl:semester:u1", now - 5000, now) << int(KeyRole::WindowMs);
        QTest::newRow("semaphore with scores not times")
            << zset("sem:scores", 1, 9000) << int(KeyRole::Unknown);
        QTest::newRow("redisson permits")
            << zset("{lim}:permits", 1, 2) << int(KeyRole::RedissonPermits);
        QTest::newRow("counter") << str("throttle:u1", "17", 900) << int(KeyRole::Counter);
        QTest::newRow("counter without ttl") << str("visits", "17", -1) << int(KeyRole::Unknown);
        QTest::newRow("lock") << str("lock:orders", "3f9a1c2e-77b1-4c1d", 30000)
                              << int(KeyRole::Lock);
        QTest::newRow("lock by value")
            << str("mutex:orders", "a1b2c3d4e5f6", 30000) << int(KeyRole::Lock);
        QTest::newRow("legacy lock (s)")
            << str("lock.foo", QByteArray::number(s_now / 1000 + 10).constData(), -1)
            << int(KeyRole::LegacyLock);
        QTest::newRow("token") << str("code:x7Kp2mQ9zA", "{\"user\":1}", 60000)
                               << int(KeyRole::Token);
        QTest::newRow("cache entry") << str("cache:page", "<html>", 60000) << int(KeyRole::Unknown);
        QTest::newRow("plain string") << str("greeting", "hello", -1) << int(KeyRole::Unknown);
        QTest::newRow("redisson value")
            << str("{lim}:value", "3", -1) << int(KeyRole::RedissonValue);
        KeyShape config;
        config.key = "lim";
        config.type = "hash";
        config.hasRate = config.hasInterval = config.hasType = true;
        QTest::newRow("redisson config") << config << int(KeyRole::RedissonConfig);
        KeyShape counted;
        counted.key = "user_token:abc123def";
        counted.type = "hash";
        counted.hasCountField = true;
        QTest::newRow("counted token") << counted << int(KeyRole::CountedToken);
        KeyShape list;
        list.type = "list";
        list.key = "jobs:mail";
        QTest::newRow("list") << list << int(KeyRole::List);
        list.key = "jobs:mail:processing";
        QTest::newRow("processing") << list << int(KeyRole::ProcessingList);
    }

    void classify()
    {
        QFETCH(KeyShape, shape);
        QFETCH(int, role);
        QCOMPARE(int(classifyKey(shape, s_now)), role);
    }

    void tokenPrefixes()
    {
        QCOMPARE(tokenPrefix("code:x7Kp2mQ9zA"), QByteArray("code:"));
        QCOMPARE(tokenPrefix("user_token:0an3dks7000xcj201ls"), QByteArray("user_token:"));
        QCOMPARE(tokenPrefix("a:b:c9f0e1d2c3b4"), QByteArray("a:b:"));
        QCOMPARE(tokenPrefix("config:main"), QByteArray());
        QCOMPARE(tokenPrefix("nocolon"), QByteArray());
    }
};

QTEST_GUILESS_MAIN(tst_KeyClassifier)
#include "tst_keyclassifier.moc"
