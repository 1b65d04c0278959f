// SPDX-License-Identifier: MIT
// Autodetection without a server: canned keyspaces (the shapes a bounded look
// would show) go through every pattern's claims and grouping; the instances
// and the suggested profile are what an operator would be shown.
#include <monitor/autodetector.h>
#include <patterns/patternregistry.h>

#include "keyshapes.h"

#include <QtTest>

using namespace gatehouse;

namespace {

constexpr qint64 s_now = gatehouse::test::ShapeNowMs;

KeyShape zset(const QByteArray &key, double first, double last, qint64 pttl = -1)
{
    return gatehouse::test::zsetShape(key, first, last, pttl);
}
KeyShape str(const QByteArray &key, const QByteArray &head, qint64 pttl)
{
    return gatehouse::test::stringShape(key, head, pttl);
}
KeyShape list(const QByteArray &key)
{
    return gatehouse::test::listShape(key);
}

QList<PatternObject> detect(const QList<KeyShape> &shapes, AutoDetector *keep = nullptr)
{
    AutoDetector detector;
    for (const KeyShape &s : shapes)
        detector.add(s, s_now);
    if (keep)
        *keep = detector;
    return detector.objects();
}

QString describe(const PatternObject &o)
{
    QStringList related;
    for (const QByteArray &k : o.related)
        related << QString::fromUtf8(k);
    return QStringLiteral("%1 %2 [%3]")
        .arg(o.kind.id(), QString::fromUtf8(o.key), related.join(QLatin1Char(',')));
}

QStringList describeAll(const QList<PatternObject> &objects)
{
    QStringList out;
    for (const PatternObject &o : objects)
        out << describe(o);
    return out;
}

} // namespace

class tst_AutoDetector : public QObject
{
    Q_OBJECT

private slots:
    void slidingWindows()
    {
        const double now = double(s_now);
        const QList<PatternObject> found
            = detect({zset("rl:api:1", now - 4000, now - 10, 8000),
                      zset("rl:api:1:retry", now + 100, now + 3000),
                      zset("rl:api:2", now - 900, now - 5, 60000),
                      // A retry set whose window expired still tells of a limiter.
                      zset("rl:api:3:retry", now + 50, now + 900),
                      // Seconds (seed 003 style), no consumers: a window of its own.
                      zset("rl:sec:7", now / 1000 - 3, now / 1000, 2000)});
        QCOMPARE(describeAll(found), (QStringList{"sliding-window rl:api:1 [rl:api:1:retry]",
                                                  "sliding-window rl:api:2 []",
                                                  "sliding-window rl:api:3 [rl:api:3:retry]",
                                                  "sliding-window rl:sec:7 []"}));
        QCOMPARE(found.at(0).params.windowMs, 10000); // from the TTL, rounded up
        QCOMPARE(found.at(0).params.scoreUnitMs, 1);
        QCOMPARE(found.at(1).params.windowMs, 60000);
        QCOMPARE(found.at(3).params.scoreUnitMs, 1000);
        QCOMPARE(found.at(3).params.windowMs, 2000);
        QCOMPARE(found.at(0).source, QStringLiteral("autodetected"));
    }

    // Seed 003: a resource shows itself by its consumers; they are its parts.
    void resourceWithConsumers()
    {
        const double s = double(s_now) / 1000;
        const QList<PatternObject> found
            = detect({zset("z:rl:resource:4{4}", s - 5, s, 1000),
                      zset("z:rl:resource:4{4}:consumer:0", s - 3, s, 1000),
                      zset("z:rl:resource:4{4}:consumer:1", s - 2, s, 1000)});
        QCOMPARE(found.size(), 3);
        for (const PatternObject &o : found) {
            QCOMPARE(o.kind.id(), QStringLiteral("resource-consumer"));
            QCOMPARE(o.params.scoreUnitMs, 1000);
        }
        QCOMPARE(found.at(0).key, QByteArray("z:rl:resource:4{4}"));
        QVERIFY(found.at(0).parent.isEmpty());
        QCOMPARE(found.at(1).parent, QByteArray("z:rl:resource:4{4}"));
        QCOMPARE(found.at(2).key, QByteArray("z:rl:resource:4{4}:consumer:1"));
    }

    void stringsAndHashes()
    {
        KeyShape config; // Redisson: the name is the config hash's key
        config.key = "api";
        config.type = "hash";
        config.hasRate = config.hasInterval = config.hasType = true;
        config.rate = 10;
        config.interval = 20000;
        KeyShape counted;
        counted.key = "user_token:0an3dks7000xcj201ls";
        counted.type = "hash";
        counted.hasCountField = true;
        const QList<PatternObject> found
            = detect({str("throttle:user:1", "17", 25000), config, str("{api}:value", "7", -1),
                      zset("{api}:permits", 1, 2), str("lock:orders", "3f9a1c2e-77b1-4c1d", 30000),
                      str("job:9", "a1b2c3d4e5f6", 30000), // a random token that expires: a lock
                      str("lock.report", QByteArray::number(s_now / 1000 + 30), -1),
                      str("code:x7Kp2mQ9zA", "{\"user\":1}", 60000),
                      str("code:0aZ9bY8cX7", "{\"user\":2}", 60000), counted});
        QCOMPARE(describeAll(found),
                 (QStringList{"fixed-window throttle:user:1 []",
                              "redisson-limiter api [{api}:value,{api}:permits]", "lock job:9 []",
                              "lock lock:orders []", "legacy-lock lock.report []",
                              "token-family code: []", "token-family user_token: []"}));
        QCOMPARE(found.at(0).params.windowMs, 30000);
        QCOMPARE(found.at(1).params.windowMs, 20000);
        QCOMPARE(found.at(1).params.limit, std::optional<qint64>(10));
        QCOMPARE(found.at(5).members, (QList<QByteArray>{"code:0aZ9bY8cX7", "code:x7Kp2mQ9zA"}));
        QVERIFY(!found.at(5).countedTokens);
        QVERIFY(found.at(6).countedTokens);
    }

    void queuesAndSemaphores()
    {
        const double now = double(s_now);
        const QList<PatternObject> found
            = detect({list("jobs:mail"), list("jobs:mail:processing"),
                      zset("jobs:mail:claims", now - 60000, now - 10), list("jobs:mail:dead"),
                      list("work-processing"), list("plain:list"),
                      zset("sim:sem:gpu", now - 4000, now - 100)});
        QCOMPARE(describeAll(found),
                 (QStringList{"reliable-queue jobs:mail "
                              "[jobs:mail:processing,jobs:mail:claims,jobs:mail:dead]",
                              "reliable-queue work [work-processing,,]",
                              "sorted-set-semaphore sim:sem:gpu []"}));
    }

    // Keys no pattern's evidence fits are not shown as anything.
    void ordinaryKeysIgnored()
    {
        KeyShape plainHash;
        plainHash.key = "user:42";
        plainHash.type = "hash";
        const QList<PatternObject> found
            = detect({str("greeting", "hello", -1), str("visits", "17", -1),
                      str("cache:page", "<html>", 60000), zset("leaderboard", 1, 9000),
                      [] {
                          KeyShape empty = zset("empty", s_now, s_now);
                          empty.size = 0;
                          return empty;
                      }(),
                      plainHash, list("plain:list"), zset("rl:semester:u1", 1, 2)});
        QVERIFY2(found.isEmpty(), qPrintable(describeAll(found).join(QLatin1Char('\n'))));
    }

    // The suggested profile finds the same instances again, and it loads.
    void suggestedProfileRoundTrips()
    {
        const double now = double(s_now);
        AutoDetector detector;
        const QList<PatternObject> found = detect(
            {zset("rl:api:1", now - 4000, now - 10, 8000),
             zset("rl:api:1:retry", now + 100, now + 3000),
             zset("rl:api:2", now - 900, now - 5, 60000), list("jobs:mail:processing"),
             zset("jobs:mail:claims", now - 60000, now - 10), str("code:x7Kp2mQ9zA", "{}", 60000),
             str("lock:orders", "3f9a1c2e-77b1-4c1d", 30000)},
            &detector);
        const Profile suggested = detector.suggestedProfile();
        QString error;
        const std::optional<Profile> loaded
            = Profile::fromJson(suggested.toJson(), QStringLiteral("suggested.json"), &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->rules.size(), 4); // rl:api:* widened to one rule
        for (const PatternObject &o : found) {
            // A family is found by its members' keys.
            const std::optional<PatternObject> again
                = loaded->objectFor(o.members.isEmpty() ? o.key : o.members.first());
            QVERIFY2(again, qPrintable(describe(o)));
            QCOMPARE(again->kind, o.kind);
            QCOMPARE(again->key, o.key);
        }
        const std::optional<PatternObject> window = loaded->objectFor("rl:api:2");
        QCOMPARE(window->params.windowMs, 60000); // the widest window of the group
        QCOMPARE(window->relatedKey(0), QByteArray("rl:api:2:retry"));
        QCOMPARE(loaded->objectFor("jobs:mail")->relatedKey(1), QByteArray("jobs:mail:claims"));
    }

    // Every pattern that claims keys groups them into instances its own
    // profile rule accepts.
    void everyClaimingPatternGroups()
    {
        const double now = double(s_now);
        KeyShape config;
        config.key = "api";
        config.type = "hash";
        config.hasRate = config.hasInterval = config.hasType = true;
        const QList<KeyShape> shapes{
            zset("rl:api:1", now - 4000, now - 10, 8000),
            zset("z:rl:r:1{1}", now / 1000 - 5, now / 1000, 1000),
            zset("z:rl:r:1{1}:consumer:0", now / 1000 - 3, now / 1000, 1000),
            str("throttle:user:1", "17", 25000),
            config,
            str("lock:orders", "3f9a1c2e-77b1-4c1d", 30000),
            str("lock.report", QByteArray::number(s_now / 1000 + 30), -1),
            str("code:x7Kp2mQ9zA", "{}", 60000),
            list("jobs:mail:processing"),
            zset("sim:sem:gpu", now - 4000, now - 100)};
        const QList<PatternObject> found = detect(shapes);
        QSet<QString> kinds;
        for (const PatternObject &o : found)
            kinds.insert(o.kind.id());
        for (const PatternUnit *unit : PatternRegistry::instance().units())
            QVERIFY2(kinds.contains(unit->kind().id()), qPrintable(unit->kind().id()));
    }
};

QTEST_GUILESS_MAIN(tst_AutoDetector)
#include "tst_autodetector.moc"
