// SPDX-License-Identifier: MIT
// Autodetection without a server: canned keyspaces (the shapes a bounded look
// would show) go through every pattern's claims and grouping; the instances
// and the suggested profile are what an operator would be shown. Each
// pattern's own keyspaces and cases are in tests/patterns/<pattern>/.
#include <monitor/autodetector.h>
#include <patterns/patternregistry.h>

#include "bee-queue/beequeueshapes.h"
#include "bull/bullshapes.h"
#include "bullmq/bullmqshapes.h"
#include "celery/celeryshapes.h"
#include "keyshapes.h"
#include "kit/shapecases.h"
#include "resque/resqueshapes.h"
#include "rq/rqshapes.h"
#include "sidekiq/sidekiqshapes.h"
#include "token-hash/tokenhashshapes.h"

#include <QtTest>

using namespace gatehouse;
using test::describe;
using test::describeAll;
using test::describeFully;
using test::detect;

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
KeyShape hash(const QByteArray &key)
{
    return gatehouse::test::sizedShape(key, "hash", 3);
}

} // namespace

class tst_AutoDetector : public QObject
{
    Q_OBJECT

private slots:
    // A hash's shape: the fields the patterns declare (PatternUnit::
    // shapeHashFields), sampled with one HMGET; the autodetector names none.
    void hashFieldsAreThePatterns()
    {
        const QList<QByteArray> &fields = PatternRegistry::instance().shapeHashFields();
        for (const char *f : {"rate", "interval", "type", "used_by", "mode"})
            QVERIFY2(fields.contains(f), f);
        QCOMPARE(QSet<QByteArray>(fields.cbegin(), fields.cend()).size(), fields.size());
        const QList<QList<QByteArray>> cmds = AutoDetector::shapeCommands("api", "hash");
        QCOMPARE(cmds.size(), 2);
        QCOMPARE(cmds.first(), QList<QByteArray>({"HMGET", "api"}) + fields);
        QCOMPARE(cmds.last().first(), QByteArray("HRANDFIELD"));

        // The replies: present fields with their values, absent ones left out.
        QList<RedisValue> values;
        for (const QByteArray &f : fields)
            values << (f == "rate"       ? RedisValue::bulk("10")
                       : f == "interval" ? RedisValue::bulk("20000")
                       : f == "type"     ? RedisValue::bulk("0")
                                         : RedisValue::nil());
        KeyShape s = hash("api"); // Redisson's config hash is the limiter's name
        AutoDetector::readShape(
            s, {RedisValue::array(values),
                RedisValue::array({RedisValue::bulk("rate"), RedisValue::bulk("10")})});
        QCOMPARE(s.hashFields.size(), 3);
        QCOMPARE(s.hashFieldInteger("interval"), 20000);
        QVERIFY(!s.hasHashField("mode"));
        QCOMPARE(s.sampleFields, QList<QByteArray>({"rate", "10"}));
        const QList<PatternObject> found = detect({s, str("{api}:value", "7", -1)});
        QCOMPARE(found.size(), 1);
        QCOMPARE(found.first().kind.id(), QStringLiteral("redisson-limiter"));
        QCOMPARE(found.first().key, QByteArray("api"));
        QVERIFY(found.first().related.contains("{api}:value"));
        QCOMPARE(found.first().params.windowMs, 20000);
        QCOMPARE(found.first().params.limit, std::optional<qint64>(10));
    }

    // Every pattern's cases (tests/patterns/<pattern>/): what autodetection
    // makes of its canned keyspaces, one row each.
    void registeredShapes_data() { test::addShapeCaseRows(); }
    void registeredShapes()
    {
        QFETCH(QString, pattern);
        QFETCH(int, index);
        test::verifyShapeCase(pattern, index);
    }

    // Keys no pattern's evidence fits: no object and no rule to offer (for a
    // family mostly of other keys, no candidate either).
    void noPatternShapes_data()
    {
        QTest::addColumn<test::ShapeCase>("shapes");
        const QList<test::ShapeCase> cases{
            test::profileCase("string without TTL",
                              {str("greeting", "hello", -1), str("visits", "17", -1)}, {}, {}),
            test::profileCase("hash without the fields", {hash("user:42")}, {}, {}),
            test::profileCase("list alone", {list("plain:list")}, {}, {}),
            test::profileCase("zset of non-time scores",
                              {zset("leaderboard", 1, 9000), zset("sem:scores", 1, 9000)}, {}, {}),
            test::evidenceCase("a family mostly of other keys",
                               [] {
                                   QList<KeyShape> keys;
                                   for (int i = 0; i < 9; ++i)
                                       keys << str("item:" + QByteArray::number(i), "{}", -1);
                                   keys << str("item:9", "17", 5000);
                                   return keys;
                               }(),
                               {}, {}, {})};
        for (const test::ShapeCase &c : cases)
            QTest::newRow(qPrintable(c.name)) << c;
    }
    void noPatternShapes()
    {
        QFETCH(test::ShapeCase, shapes);
        test::verifyShapeCase(shapes);
    }

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
        config.hashFields = {{"rate", "10"}, {"interval", "20000"}, {"type", "0"}};
        KeyShape counted;
        counted.key = "user_token:0an3dks7000xcj201ls";
        counted.type = "hash";
        counted.hashFields.insert("used_by", "0");
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

    // Every registered pattern's hooks agree: what it groups, its rule
    // describes, the profile loader accepts that rule, and the loaded profile
    // finds the same instance again, on the keyspace its folder registers
    // (tests/patterns/<pattern>/). (Windows are asserted in the cases:
    // Redisson's is read from its config hash, not from the rule.)
    void everyPatternsRuleRoundTrips()
    {
        QStringList ids;
        for (const PatternUnit *unit : PatternRegistry::instance().units())
            ids << unit->kind().id();
        ids.sort();
        QCOMPARE(test::shapePatterns(), ids); // no folder for a pattern that is not one
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            const QString id = unit->kind().id();
            const QList<KeyShape> sample = test::sampleOf(id);
            QVERIFY2(!sample.isEmpty(), qPrintable(id + QStringLiteral(": no sample keyspace")));
            const QList<PatternObject> found = detect(sample);
            QVERIFY2(!found.isEmpty(), qPrintable(id));
            for (const PatternObject &o : found) {
                const QString what = describeFully(o);
                QCOMPARE(o.kind, unit->kind());
                Profile profile;
                profile.name = QStringLiteral("roundtrip");
                profile.rules = {unit->suggestRule(o)};
                QString error;
                const std::optional<Profile> loaded
                    = Profile::fromJson(profile.toJson(), QStringLiteral("roundtrip.json"), &error);
                QVERIFY2(loaded, qPrintable(what + QStringLiteral(": ") + error));
                QCOMPARE(loaded->toJson(), profile.toJson());
                // Found again from a key discovery would SCAN: the
                // instance's own, a family's member, or (an instance named
                // by a base that is no key, a BullMQ queue) its first related.
                const QByteArray scanned = !o.members.isEmpty() ? o.members.first()
                                           : unit->keyType().isEmpty() && !o.related.isEmpty()
                                               ? o.related.first()
                                               : o.key;
                const std::optional<PatternObject> again = loaded->objectFor(scanned);
                QVERIFY2(again, qPrintable(what));
                QCOMPARE(again->kind, o.kind);
                QCOMPARE(again->key, o.key);
                QCOMPARE(again->parent, o.parent);
                QCOMPARE(again->params.scoreUnitMs, o.params.scoreUnitMs);
                // Every partner key seen is one the rule names.
                for (qsizetype i = 0; i < o.related.size(); ++i) {
                    if (!o.related.at(i).isEmpty())
                        QCOMPARE(again->relatedKey(int(i)), o.related.at(i));
                }
            }
        }
    }

    // Every pattern that claims keys groups them into instances its own
    // profile rule accepts, in one keyspace holding every pattern's sample
    // (each registered beside its pattern, tests/patterns/<pattern>/): a new
    // pattern is checked here without this test naming it.
    void everyClaimingPatternGroups()
    {
        QList<KeyShape> shapes;
        QSet<QByteArray> keys;
        for (const QString &pattern : test::shapePatterns()) {
            for (const KeyShape &shape : test::sampleOf(pattern)) {
                // Two samples writing one key would make a keyspace no
                // application has.
                QVERIFY2(!keys.contains(shape.key),
                         qPrintable(pattern + QStringLiteral(": ") + QString::fromUtf8(shape.key)));
                keys.insert(shape.key);
                shapes.append(shape);
            }
        }
        const QList<PatternObject> found = detect(shapes);
        QSet<QString> kinds;
        for (const PatternObject &o : found)
            kinds.insert(o.kind.id());
        for (const PatternUnit *unit : PatternRegistry::instance().units())
            QVERIFY2(kinds.contains(unit->kind().id()), qPrintable(unit->kind().id()));
    }

    // Names by their shape: the variable segments recognised, the words kept.
    void familiesOfNames_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("family");
        QTest::newRow("short hex") << QByteArray("code:3fa9c1") << QByteArray("code:{hex}");
        QTest::newRow("digits") << QByteArray("user:42") << QByteArray("user:{int}");
        QTest::newRow("day and id")
            << QByteArray("stats:views:2026-11-23:17") << QByteArray("stats:views:{date}:{int}");
        QTest::newRow("compact day")
            << QByteArray("pv:17:20261123") << QByteArray("pv:{int}:{date}");
        QTest::newRow("hour") << QByteArray("api_calls:2026112314:9")
                              << QByteArray("api_calls:{date}:{int}");
        QTest::newRow("epoch seconds is a number")
            << QByteArray("rl:1763800000") << QByteArray("rl:{int}");
        QTest::newRow("uuid") << QByteArray("job:0f9a1c2e-77b1-4c1d-9e2a-77b1f0c3d4e5")
                              << QByteArray("job:{uuid}");
        QTest::newRow("ip") << QByteArray("ban:10.0.12.7") << QByteArray("ban:{ip}");
        QTest::newRow("e-mail") << QByteArray("invite:ann@example.com")
                                << QByteArray("invite:{email}");
        QTest::newRow("base-62") << QByteArray("session:x7Kp2mQ9zA") << QByteArray("session:{b62}");
        QTest::newRow("word and number")
            << QByteArray("cache:page_17") << QByteArray("cache:page_{int}");
        QTest::newRow("hash tag") << QByteArray("z:rl:r:1{1}") << QByteArray("z:rl:r:{int}{{int}}");
        QTest::newRow("words stay words")
            << QByteArray("cafe:menu:added") << QByteArray("cafe:menu:added");
        QTest::newRow("slashes") << QByteArray("blog/post/17") << QByteArray("blog/post/{int}");
    }

    void familiesOfNames()
    {
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, family);
        QCOMPARE(familyOf(key), family);
        QCOMPARE(familyOf(family), family); // a family names itself
    }

    // Every shown instance says why, and its evidence reaches the threshold.
    void everyShownObjectCarriesEvidence()
    {
        for (const QString &pattern : test::shapePatterns()) {
            for (const PatternObject &o : detect(test::sampleOf(pattern))) {
                QVERIFY2(!o.evidence.isEmpty(), qPrintable(describe(o)));
                QVERIFY2(evidenceScore(o.evidence) >= AutoDetector::Threshold,
                         qPrintable(describe(o)));
                for (const Evidence &e : o.evidence)
                    QVERIFY2(!e.reason.isEmpty(), qPrintable(describe(o)));
            }
        }
    }

    // Production keyspaces are mostly ordinary keys: none of them is shown
    // as a structure; each family is summarised as what it is.
    void ordinaryFamiliesAreNotStructures_data()
    {
        QTest::addColumn<QByteArray>("kind");   // test::ordinaryShapes
        QTest::addColumn<QString>("summary");   // OtherFamily::kind
        QTest::addColumn<QByteArray>("family"); // for prefix "app:"
        QTest::newRow("cache") << QByteArray("cache") << "cache"
                               << QByteArray("app:cache:user:{int}");
        QTest::newRow("cache keyed by a hash")
            << QByteArray("hash-cache") << "cache" << QByteArray("app:cache:q:{hex}");
        QTest::newRow("page cache keyed by a hash")
            << QByteArray("page-cache") << "page-cache" << QByteArray("app:page:{hex}");
        QTest::newRow("sessions") << QByteArray("session") << "session"
                                  << QByteArray("app:session:{b62}");
        QTest::newRow("session ids (random values that expire)")
            << QByteArray("session-id") << "session" << QByteArray("app:user:{int}:sid");
        QTest::newRow("dated counters") << QByteArray("dated-counter") << "dated-counter"
                                        << QByteArray("app:stats:views:{date}:{int}");
        QTest::newRow("hourly counters (short TTL)")
            << QByteArray("hourly-counter") << "dated-counter"
            << QByteArray("app:api_calls:{date}:{int}");
        QTest::newRow("timelines (recent times)")
            << QByteArray("timeline") << "timeline" << QByteArray("app:timeline:{int}");
        QTest::newRow("activity (recent times, TTL)")
            << QByteArray("activity") << "timeline" << QByteArray("app:activity:{int}");
        QTest::newRow("leaderboards") << QByteArray("leaderboard") << "leaderboard"
                                      << QByteArray("app:leaderboard:game_{int}:{date}");
        QTest::newRow("flags") << QByteArray("flag") << "flag"
                               << QByteArray("app:feature:flag_{int}");
        QTest::newRow("logs") << QByteArray("log") << "log" << QByteArray("app:log:{date}:{int}");
        QTest::newRow("profiles") << QByteArray("profile-hash") << "data"
                                  << QByteArray("app:user:{int}");
        QTest::newRow("counters") << QByteArray("counter") << "counter"
                                  << QByteArray("app:counter:{int}");
        // "pageviews" counts pages: a counter, not a cached page.
        QTest::newRow("page view counters") << QByteArray("pageview-counter") << "counter"
                                            << QByteArray("app:counter:pageviews:{int}");
        // What looks most like a lock whose holder writes no random token:
        // small integers and JSON with UUIDs, with TTLs, but no lock's name.
        QTest::newRow("cached counts (integers with a TTL)")
            << QByteArray("integer-cache") << "cache" << QByteArray("app:cache:uid:{int}");
        QTest::newRow("sessions keyed by a UUID (JSON with a TTL)")
            << QByteArray("uuid-session") << "session" << QByteArray("app:session:{uuid}");
    }

    void ordinaryFamiliesAreNotStructures()
    {
        QFETCH(QByteArray, kind);
        QFETCH(QString, summary);
        QFETCH(QByteArray, family);
        const QList<KeyShape> shapes = test::ordinaryShapes(kind, "app:", 120, double(s_now));
        QCOMPARE(shapes.size(), 120);
        AutoDetector detector;
        for (const KeyShape &k : shapes)
            detector.add(k, s_now);
        const Detection d = detector.detect();
        QVERIFY2(d.objects.isEmpty(), qPrintable(describeAll(d.objects).join(QLatin1Char('\n'))));
        QVERIFY2(d.candidates.isEmpty(),
                 qPrintable(QString::fromUtf8(d.candidates.value(0).family)));
        QCOMPARE(d.other.size(), 1);
        QCOMPARE(d.other.first().family, family);
        QCOMPARE(d.other.first().kind, summary);
        QCOMPARE(d.other.first().keys, 120);
        // Why it is that kind, in words (snapshot --json's "reason").
        const QString reason = d.other.first().reason;
        QVERIFY2(!reason.isEmpty(), qPrintable(summary));
        if (kind == "pageview-counter")
            QCOMPARE(reason, QStringLiteral("\"counter\" in its name, integer values"));
        if (kind == "page-cache")
            QCOMPARE(reason, QStringLiteral("\"page\" in its name"));
    }

    // The members of a family mostly say the same (20,000 locks holding
    // tokens of one length, set with one TTL): each object keeps its
    // evidence for as long as it is shown, so equal lists are one shared
    // copy, and a member that differs (another TTL) still shares the
    // sentences it has in common. The text is what it was.
    void equalEvidenceIsShared()
    {
        QList<KeyShape> keys;
        for (int i = 0; i < 40; ++i)
            keys << str("lock:order:" + QByteArray::number(i), "3f9a1c2e-77b1-4c1d", 30000);
        keys << str("lock:order:40", "3f9a1c2e-77b1-4c1d", 45000);
        const QList<PatternObject> objects = detect(keys);
        QCOMPARE(objects.size(), 41);
        const PatternObject *odd = nullptr;
        const PatternObject *first = nullptr;
        for (const PatternObject &o : objects) {
            if (o.key == "lock:order:40")
                odd = &o;
            else if (!first)
                first = &o;
        }
        QVERIFY(odd && first);
        QStringList reasons;
        for (const Evidence &e : first->evidence)
            reasons << e.reason;
        QVERIFY2(reasons.contains(QStringLiteral("holds a random token (18 bytes, not a number "
                                                 "or a date) and expires in 30.0 s: SET NX PX")),
                 qPrintable(reasons.join(QLatin1Char('\n'))));
        QVERIFY2(reasons.contains(QStringLiteral("\"lock\" in its name argues for a lock")),
                 qPrintable(reasons.join(QLatin1Char('\n'))));
        for (const PatternObject &o : objects) {
            if (&o == odd)
                continue;
            QVERIFY2(o.evidence.isSharedWith(first->evidence), o.key.constData());
        }
        QVERIFY(!odd->evidence.isSharedWith(first->evidence));
        QCOMPARE(odd->evidence.size(), first->evidence.size());
        int sharedSentences = 0;
        for (qsizetype i = 0; i < odd->evidence.size(); ++i) {
            const QString &a = odd->evidence.at(i).reason;
            const QString &b = first->evidence.at(i).reason;
            if (a == b) {
                QVERIFY2(a.isSharedWith(b), qPrintable(a));
                ++sharedSentences;
            }
        }
        QVERIFY(sharedSentences >= 1); // the name's sentence
        QVERIFY(odd->evidence.first().reason.contains(QStringLiteral("expires in 45.0 s")));
    }

    // An operator's verdicts: an accepted candidate is shown, a rejected
    // instance's keys are ordinary.
    void verdictsFromTheProfile()
    {
        const QList<KeyShape> keys{str("tries:7", "3", 60000), str("tries:8", "1", 60000),
                                   str("lock:order:7", "3f9a1c2e-77b1-4c1d", 30000)};
        Profile verdicts;
        verdicts.name = QStringLiteral("mine");
        verdicts.autodetect = true;
        ProfileRule rule;
        rule.kind = *patternFromId(QStringLiteral("fixed-window"));
        rule.match = "tries:*";
        rule.params.limit = 5; // the operator's figures, not discovery's guesses
        rule.params.windowMs = 90000;
        verdicts.rules << rule;
        verdicts.rejected << "lock:order:*";
        AutoDetector detector;
        detector.setHints(verdicts);
        for (const KeyShape &k : keys)
            detector.add(k, s_now);
        const Detection d = detector.detect();
        QCOMPARE(describeAll(d.objects),
                 (QStringList{"fixed-window tries:7 []", "fixed-window tries:8 []"}));
        QCOMPARE(d.objects.first().evidence.last().kind, Evidence::Kind::Profile);
        for (const PatternObject &o : d.objects) {
            QCOMPARE(o.params.limit, std::optional<qint64>(5));
            QCOMPARE(o.params.windowMs, qint64(90000));
        }
        QVERIFY(d.candidates.isEmpty());
        QCOMPARE(d.other.size(), 1);
        QCOMPARE(d.other.first().family, QByteArray("lock:order:{int}"));
        // The verdicts survive the profile file.
        QString error;
        const auto reloaded
            = Profile::fromJson(verdicts.toJson(), QStringLiteral("v.json"), &error);
        QVERIFY2(reloaded, qPrintable(error));
        QVERIFY(reloaded->autodetect);
        QCOMPARE(reloaded->rejected, (QList<QByteArray>{"lock:order:*"}));
        QVERIFY(reloaded->rejects("lock:order:9"));
        QVERIFY(!reloaded->objectFor("lock:order:9"));
    }

    // The Other keys summary: counts, TTL range, sampled memory per family.
    void otherKeysSummary()
    {
        AutoDetector detector;
        qint64 asked = 0;
        for (int i = 0; i < 10; ++i) {
            const QByteArray key = "cache:user:" + QByteArray::number(i);
            if (detector.wantsMemorySample(key)) {
                ++asked;
                detector.addMemorySample(key, 100 + i);
            }
            detector.add(str(key, "{}", 1000 * (i + 1)), s_now);
        }
        detector.add(test::sizedShape("user:1", "hash", 3), s_now);
        QCOMPARE(asked, ClaimPool::MemorySamples);
        const Detection d = detector.detect();
        QCOMPARE(d.other.size(), 2);
        const OtherFamily &cache = d.other.first();
        QCOMPARE(cache.family, QByteArray("cache:user:{int}"));
        QCOMPARE(cache.kind, QStringLiteral("cache"));
        QCOMPARE(cache.type, QByteArray("string"));
        QCOMPARE(cache.keys, 10);
        QCOMPARE(cache.withTtl, 10);
        QCOMPARE(cache.minTtlMs, 1000);
        QCOMPARE(cache.maxTtlMs, 10000);
        QCOMPARE(cache.sampledKeys, 3);
        QCOMPARE(cache.estimatedBytes, 1010); // mean of 100, 101, 102 times 10 keys
        QCOMPARE(cache.sampleKeys.size(), 3);
        QCOMPARE(d.other.at(1).kind, QStringLiteral("data"));
    }

    // A family is judged on its first SettleSample keys: settled as ordinary
    // only when none of them is shown or a candidate and every claimed one
    // was judged (a key waiting for a partner in another family is not).
    void familiesSettleOnTheirFirstKeys()
    {
        AutoDetector detector;
        const int n = AutoDetector::SettleSample;
        // Caches with a TTL (claimed as locks by their shape, judged ordinary by their name).
        for (int i = 0; i < n; ++i)
            detector.add(str("cache:product:" + QByteArray::number(i), "{\"id\":1}", 600000),
                         s_now);
        // Keys nobody claims.
        for (int i = 0; i < n; ++i)
            detector.add(test::sizedShape("user:" + QByteArray::number(i) + ":profile", "hash", 2),
                         s_now);
        // Real windows, and bare lists that may be queues whose processing
        // lists are in another family.
        const double now = double(s_now);
        for (int i = 0; i < n; ++i) {
            detector.add(test::zsetShape("ratelimit:api:" + QByteArray::number(i), now - 2800,
                                         now - 10, 60000),
                         s_now);
            detector.add(test::listShape("jobs:mail:" + QByteArray::number(i)), s_now);
        }
        // One key short of the sample: undecided.
        for (int i = 0; i + 1 < n; ++i)
            detector.add(str("cache:tiny:" + QByteArray::number(i), "{}", 600000), s_now);

        QVERIFY(detector.settled("cache:product:{int}"));
        QVERIFY(detector.settledWith("cache:product:{int}", "string"));
        QVERIFY(!detector.settledWith("cache:product:{int}", "zset")); // another TYPE: read it
        QVERIFY(detector.settled("user:{int}:profile"));
        QVERIFY(!detector.settled("ratelimit:api:{int}"));
        // Bare lists: settled provisionally, their later keys' names kept
        // (familyOfBareListsSettlesUnlessAPartnerTurnsUp).
        QVERIFY(detector.settled("jobs:mail:{int}"));
        QVERIFY(!detector.settled("cache:tiny:{int}"));

        // The rest of a settled family is counted, its TTL estimated from the read.
        for (int i = n; i < 10 * n; ++i)
            QVERIFY(detector.count("cache:product:{int}", "string",
                                   "cache:product:" + QByteArray::number(i)));
        QVERIFY(!detector.count("cache:product:{int}", "zset", "cache:product:x")); // read it
        QVERIFY(!detector.count("ratelimit:api:{int}", "zset", "ratelimit:api:x"));
        QCOMPARE(detector.countedKeys(), 9 * n);
        const Detection d = detector.takeDetection();
        QCOMPARE(d.objects.size(), qsizetype(n)); // the windows
        bool seen = false;
        for (const OtherFamily &f : d.other) {
            if (f.family != "cache:product:{int}")
                continue;
            seen = true;
            QCOMPARE(f.keys, 10 * n);
            QCOMPARE(f.keysRead, n);
            QCOMPARE(f.withTtl, 10 * n);
            QCOMPARE(f.kind, QStringLiteral("cache"));
        }
        QVERIFY(seen);
    }

    // A family of bare lists (each a possible queue whose processing list
    // lives in another family) is settled on its first keys: the later ones
    // are counted by TYPE, and at the end of the scan only those whose name
    // a claimed key extends (a processing list "<list>:processing") are read
    // whole, so the queue is still found.
    void familyOfBareListsSettlesUnlessAPartnerTurnsUp()
    {
        const int n = 5000;
        const auto listKey = [](const char *prefix, int i) -> QByteArray {
            return QByteArray(prefix) + QByteArray::number(i);
        };
        // No partner anywhere: 5,000 logs, one decision for the family.
        {
            AutoDetector detector;
            int read = 0;
            for (int i = 0; i < n; ++i) {
                const QByteArray key = listKey("log:checkout:", i);
                if (detector.count(detector.familyOf(key), "list", key))
                    continue;
                detector.add(test::listShape(key), s_now);
                ++read;
            }
            QCOMPARE(read, AutoDetector::SettleSample); // the rest: TYPE only
            QCOMPARE(detector.deferredKeys(), n - AutoDetector::SettleSample);
            QVERIFY(detector.takeDeferred().isEmpty()); // nobody extends their names
            QCOMPARE(detector.countedKeys(), n - AutoDetector::SettleSample);
            const Detection d = detector.takeDetection();
            QVERIFY(d.objects.isEmpty());
            QVERIFY(d.candidates.isEmpty());
            QCOMPARE(d.other.size(), 1);
            QCOMPARE(d.other.at(0).family, QByteArray("log:checkout:{int}"));
            QCOMPARE(d.other.at(0).keys, n);
            QCOMPARE(d.other.at(0).keysRead, AutoDetector::SettleSample);
            QCOMPARE(d.other.at(0).kind, QStringLiteral("log"));
        }
        // The same, with the processing list of one of them in another
        // family, met last by the scan: that list is read whole after all
        // ("spool:41" is not: "spool:4100:processing" does not extend its
        // name at a separator), and its queue is found, though no word in
        // its name says queue: its 5,000 siblings count as lists alike, as
        // when each was read.
        {
            AutoDetector detector;
            for (int i = 0; i < n; ++i) {
                const QByteArray key = listKey("spool:", i);
                if (!detector.count(detector.familyOf(key), "list", key))
                    detector.add(test::listShape(key), s_now);
            }
            detector.add(test::listShape("spool:4100:processing"), s_now);
            const QList<QByteArray> read = detector.takeDeferred();
            QCOMPARE(read, QList<QByteArray>{"spool:4100"});
            QCOMPARE(detector.countedKeys(), n - AutoDetector::SettleSample - 1);
            detector.add(test::listShape(read.first()), s_now);
            const Detection d = detector.takeDetection();
            QCOMPARE(d.objects.size(), 1);
            QCOMPARE(QByteArray(d.objects.at(0).kind.name()), QByteArray("reliable-queue"));
            QCOMPARE(d.objects.at(0).key, QByteArray("spool:4100"));
            QCOMPARE(evidenceScore(d.objects.at(0).evidence), AutoDetector::Threshold);
            qint64 keys = 0;
            for (const OtherFamily &f : d.other)
                keys += f.family == "spool:{int}" ? f.keys : 0;
            // Every list counted once, the one read twice too (a queue's
            // list, untaken, is counted in its family as before).
            QCOMPARE(keys, n);
        }
        // A later key of a TYPE the sample did not have is read whole.
        {
            AutoDetector detector;
            for (int i = 0; i < AutoDetector::SettleSample; ++i)
                detector.add(test::listShape(listKey("log:checkout:", i)), s_now);
            QVERIFY(detector.count("log:checkout:{int}", "list", "log:checkout:900"));
            QVERIFY(!detector.count("log:checkout:{int}", "zset", "log:checkout:901"));
        }
    }
};

QTEST_GUILESS_MAIN(tst_AutoDetector)
#include "tst_autodetector.moc"
