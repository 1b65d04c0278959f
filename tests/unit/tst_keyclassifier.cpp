// SPDX-License-Identifier: MIT
// How single keys are judged for autodetection, from what a bounded look
// shows: every pattern claims what its evidence fits, the strongest claim wins.
#include <patterns/keyclassifier.h>
#include <patterns/patternregistry.h>

#include "keyshapes.h"

#include <QTest>

using namespace gatehouse;

Q_DECLARE_METATYPE(gatehouse::KeyShape)

namespace {
constexpr qint64 s_now = gatehouse::test::ShapeNowMs;
using gatehouse::test::stringShape;
using gatehouse::test::zsetShape;
KeyShape zset(const char *key, double first, double last)
{
    return zsetShape(key, first, last);
}
KeyShape str(const char *key, const char *head, qint64 pttl)
{
    return stringShape(key, head, pttl);
}
} // namespace

class tst_KeyClassifier : public QObject
{
    Q_OBJECT

private slots:
    void classify_data()
    {
        QTest::addColumn<KeyShape>("shape");
        QTest::addColumn<QString>("claim"); // "<pattern>/<role>" of the winning claim
        const double now = double(s_now);
        QTest::newRow("ms window") << zset("rl:api:u1", now - 5000, now)
                                   << QString(QStringLiteral("sliding-window/window"));
        QTest::newRow("s window (seed 003)")
            << zset("z:rl:resource:12{12}", now / 1000 - 5, now / 1000)
            << QString(QStringLiteral("sliding-window/window-seconds"));
        QTest::newRow("retry slots") << zset("rl:api:u1:retry", now + 10, now + 5000)
                                     << QString(QStringLiteral("sliding-window/retry"));
        QTest::newRow("claims") << zset("jobs:claims", now - 100, now)
                                << QString(QStringLiteral("reliable-queue/claims"));
        QTest::newRow("leaderboard") << zset("scores", 1, 9000) << QString(QStringLiteral(""));
        // Holders and request times look alike: only the name says semaphore.
        QTest::newRow("semaphore sem:") << zset("sim:sem:gpu", now - 5000, now)
                                        << QString(QStringLiteral("sorted-set-semaphore/holders"));
        QTest::newRow("semaphore named so")
            << zset("Render-Semaphore:farm", now - 5000, now)
            << QString(QStringLiteral("sorted-set-semaphore/holders"));
        QTest::newRow("sem inside a word is no semaphore")
            << zset("rl:semester:u1", now - 5000, now)
            << QString(QStringLiteral("sliding-window/window"));
        QTest::newRow("semaphore with scores not times")
            << zset("sem:scores", 1, 9000) << QString(QStringLiteral(""));
        QTest::newRow("consumer window")
            << zset("z:rl:resource:4{4}:consumer:0", now / 1000 - 5, now / 1000)
            << QString(QStringLiteral("resource-consumer/consumer-seconds"));
        // A semaphore's name says more than a consumer's marker.
        QTest::newRow("semaphore named like a consumer")
            << zset("sim:sem:gpu:consumer:0", now - 5000, now)
            << QString(QStringLiteral("sorted-set-semaphore/holders"));
        QTest::newRow("redisson permits")
            << zset("{lim}:permits", 1, 2) << QString(QStringLiteral("redisson-limiter/permits"));
        QTest::newRow("counter") << str("throttle:u1", "17", 900)
                                 << QString(QStringLiteral("fixed-window/counter"));
        QTest::newRow("counter without ttl")
            << str("visits", "17", -1) << QString(QStringLiteral(""));
        QTest::newRow("lock") << str("lock:orders", "3f9a1c2e-77b1-4c1d", 30000)
                              << QString(QStringLiteral("lock/holder-token"));
        QTest::newRow("lock by value") << str("mutex:orders", "a1b2c3d4e5f6", 30000)
                                       << QString(QStringLiteral("lock/holder-token"));
        QTest::newRow("legacy lock (s)")
            << str("lock.foo", QByteArray::number(s_now / 1000 + 10).constData(), -1)
            << QString(QStringLiteral("legacy-lock/expiry"));
        QTest::newRow("token") << str("code:x7Kp2mQ9zA", "{\"user\":1}", 60000)
                               << QString(QStringLiteral("token-family/token"));
        QTest::newRow("cache entry")
            << str("cache:page", "<html>", 60000) << QString(QStringLiteral(""));
        QTest::newRow("plain string")
            << str("greeting", "hello", -1) << QString(QStringLiteral(""));
        QTest::newRow("redisson value")
            << str("{lim}:value", "3", -1) << QString(QStringLiteral("redisson-limiter/value"));
        KeyShape config;
        config.key = "lim";
        config.type = "hash";
        config.hashFields = {{"rate", "10"}, {"interval", "1000"}, {"type", "0"}};
        QTest::newRow("redisson config")
            << config << QString(QStringLiteral("redisson-limiter/config"));
        KeyShape counted;
        counted.key = "user_token:abc123def";
        counted.type = "hash";
        counted.hashFields.insert("used_by", "0");
        QTest::newRow("counted token")
            << counted << QString(QStringLiteral("token-family/counted-token"));
        KeyShape list;
        list.type = "list";
        list.key = "jobs:mail";
        QTest::newRow("list") << list << QString(QStringLiteral("reliable-queue/list"));
        list.key = "jobs:mail:processing";
        QTest::newRow("processing") << list << QString(QStringLiteral("reliable-queue/processing"));
    }

    void classify()
    {
        QFETCH(KeyShape, shape);
        QFETCH(QString, claim);
        const auto claims = claimsOn(shape, s_now);
        const QString won = claims.isEmpty() ? QString()
                                             : claims.first().first.id() + QLatin1Char('/')
                                                   + claims.first().second.role;
        QCOMPARE(won, claim);
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
