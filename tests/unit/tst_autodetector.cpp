// SPDX-License-Identifier: MIT
// Autodetection without a server: canned keyspaces (the shapes a bounded look
// would show) go through every pattern's claims and grouping; the instances
// and the suggested profile are what an operator would be shown.
#include <monitor/autodetector.h>
#include <patterns/patternregistry.h>

#include "keyshapes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace gatehouse;

Q_DECLARE_METATYPE(QList<gatehouse::KeyShape>)

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
// A list of size entries that expires in pttl ms.
KeyShape listOf(const QByteArray &key, qint64 size, qint64 pttl)
{
    KeyShape k = list(key);
    k.size = size;
    k.pttlMs = pttl;
    return k;
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

// Everything autodetection fills in: kind, keys, parent, params, members.
QString describeFully(const PatternObject &o)
{
    QStringList members;
    for (const QByteArray &k : o.members)
        members << QString::fromUtf8(k);
    QString text = describe(o);
    if (!o.parent.isEmpty())
        text += QStringLiteral(" parent=") + QString::fromUtf8(o.parent);
    text += QStringLiteral(" window=%1ms unit=%2ms")
                .arg(o.params.windowMs)
                .arg(o.params.scoreUnitMs);
    if (o.params.limit)
        text += QStringLiteral(" limit=%1").arg(*o.params.limit);
    if (!members.isEmpty())
        text += QStringLiteral(" members=") + members.join(QLatin1Char(','));
    if (o.countedTokens)
        text += QStringLiteral(" counted");
    return text;
}

// A profile's rules as the JSON an operator saves, one compact object each.
QStringList rulesJson(const Profile &profile)
{
    QStringList out;
    const QJsonArray rules = QJsonDocument::fromJson(profile.toJson())
                                 .object()
                                 .value(QStringLiteral("rules"))
                                 .toArray();
    for (const QJsonValue &rule : rules)
        out << QString::fromUtf8(QJsonDocument(rule.toObject()).toJson(QJsonDocument::Compact));
    return out;
}

// A stream with its consumer groups' names as the shape probe samples them
// (XINFO GROUPS); none: an event log.
KeyShape stream(const QByteArray &key, const QList<QByteArray> &groups)
{
    KeyShape s = test::sizedShape(key, "stream", 40);
    s.sampleFields = groups;
    return s;
}

KeyShape hash(const QByteArray &key)
{
    KeyShape s;
    s.key = key;
    s.type = "hash";
    s.size = 3;
    return s;
}

KeyShape redissonConfig(const QByteArray &key, qint64 rate, qint64 intervalMs)
{
    KeyShape s = hash(key);
    s.hashFields = {{"rate", QByteArray::number(rate)},
                    {"interval", QByteArray::number(intervalMs)},
                    {"type", "0"}};
    return s;
}

// A Redisson lock HASH as discovery sees it: its sampled fields (HRANDFIELD
// 2 WITHVALUES) and "mode", with the lease as its TTL.
KeyShape redissonLock(const QByteArray &key, QList<QByteArray> fields, const QByteArray &mode = {})
{
    KeyShape s = hash(key);
    s.pttlMs = 30000;
    if (!mode.isEmpty())
        s.hashFields.insert("mode", mode);
    s.sampleFields = std::move(fields);
    return s;
}

KeyShape countedToken(const QByteArray &key)
{
    KeyShape s = hash(key);
    s.hashFields.insert("used_by", "0");
    return s;
}

// A hash of tokens on a server with per-field expiry: its two sampled fields
// each expire on their own (HPTTL).
KeyShape tokenHash(const QByteArray &key)
{
    KeyShape s = hash(key);
    s.sampleFields = {"x7Kp2mQ9zA", "user:1", "0aZ9bY8cX7", "user:2"};
    s.fieldTtlsMs = {240000, 590000};
    return s;
}

// A Resque namespace as node-resque 9 (delayed jobs, a working worker with
// its ping) or Resque 2 (its heartbeat hash) writes it.
QList<KeyShape> resqueShapes(const QByteArray &ns, bool node)
{
    const double s = double(s_now) / 1000;
    const QByteArray worker = ns + "worker:web-1:4242:mail";
    QList<KeyShape> keys{test::sizedShape(ns + "queues", "set", 2),
                         test::listShape(ns + "queue:mail"),
                         test::listShape(ns + "queue:sms"),
                         test::listShape(ns + "failed"),
                         test::sizedShape(ns + "workers", "set", 1),
                         test::stringShape(worker, "{\"run_at\":\"Wed Nov 25", -1),
                         test::stringShape(worker + ":started", "1764000000", -1),
                         test::stringShape(ns + "stat:processed", "12", -1),
                         test::stringShape(ns + "stat:failed", "3", -1),
                         test::stringShape(ns + "stat:processed:web-1:4242", "12", -1)};
    if (node)
        keys << test::zsetShape(ns + "delayed_queue_schedule", s + 60, s + 3600)
             << test::listShape(ns + "delayed:" + QByteArray::number(qint64(s) + 60))
             << test::sizedShape(
                    ns + "timestamps:{\"class\":\"add\",\"queue\":\"mail\",\"args\":[1]}", "set", 1)
             << test::stringShape(ns + "worker:ping:web-1:4242", "{\"time\":1764000000}", -1)
             << test::stringShape(ns + "resque_scheduler_leader_lock", "web-1", 3000);
    else
        keys << test::sizedShape(ns + "workers:heartbeat", "hash", 1);
    return keys;
}

// One keyspace per registered pattern, each yielding instances of it.
QMap<QString, QList<KeyShape>> samplePerPattern()
{
    const double now = double(s_now);
    const double s = now / 1000;
    return {
        {QStringLiteral("sliding-window"),
         {zset("rl:api:1", now - 4000, now - 10, 8000), zset("rl:api:1:retry", now + 9, now + 90),
          zset("rl:sec:7", s - 3, s, 2000), zset("rl:gone:retry", now + 50, now + 900)}},
        {QStringLiteral("resource-consumer"),
         {zset("z:rl:r:1{1}", s - 5, s, 1000), zset("z:rl:r:1{1}:consumer:0", s - 3, s, 1000)}},
        {QStringLiteral("fixed-window"), {str("throttle:user:1", "17", 25000)}},
        {QStringLiteral("redisson-limiter"),
         {redissonConfig("api", 10, 20000), str("{api}:value", "7", -1),
          zset("{api}:permits", 1, 2)}},
        {QStringLiteral("lock"), {str("lock:orders", "3f9a1c2e-77b1-4c1d", 30000)}},
        {QStringLiteral("legacy-lock"),
         {str("lock.report", QByteArray::number(s_now / 1000 + 30), -1)}},
        {QStringLiteral("token-family"),
         {str("code:x7Kp2mQ9zA", "{}", 60000), str("code:0aZ9bY8cX7", "{}", 60000),
          countedToken("user_token:0an3dks7000xcj201ls")}},
        {QStringLiteral("token-hash"), {tokenHash("otp:pending")}},
        {QStringLiteral("reliable-queue"),
         {list("jobs:mail"), list("jobs:mail:processing"),
          zset("jobs:mail:claims", now - 60000, now - 10), list("jobs:mail:dead"),
          list("work-processing")}},
        {QStringLiteral("sorted-set-semaphore"), {zset("sim:sem:gpu", now - 4000, now - 100)}},
        {QStringLiteral("redis-semaphore"),
         {zset("semaphore:reports", now - 4000, now - 100, 9000)}},
        {QStringLiteral("python-limits"),
         {str("LIMITER/api/alice/10/1/minute", "4", 50000),
          listOf("LIMITER/api/bob/5/1/minute", 3, 40000)}},
        {QStringLiteral("bullmq"), test::bullMqQueueShapes("bull:emails", now)},
        {QStringLiteral("bull"), test::bullQueueShapes("bull:legacy", now)},
        {QStringLiteral("rq"), test::rqQueueShapes("emails", now)},
        {QStringLiteral("bee-queue"), test::beeQueueShapes("bq:emails", now)},
        {QStringLiteral("celery"), test::celeryShapes(now)},
        {QStringLiteral("sidekiq"), test::sidekiqShapes("", now)},
        {QStringLiteral("resque"), resqueShapes("resque:", true)},
        {QStringLiteral("redisson-lock"),
         {redissonLock("reports", {"1b4e28ba-2ca1-41d2-a5c6-3d3f3c7c1a5e:41", "2"}),
          list("redisson_lock_queue:{fair:res}"),
          zset("redisson_lock_timeout:{fair:res}", now + 60000, now + 90000)}},
        {QStringLiteral("redisson-semaphore"),
         {str("perm:api", "2", -1), zset("{perm:api}:timeout", now - 50, 922337203685477.0)}},
        {QStringLiteral("redisson-delayed-queue"),
         {zset("redisson_delay_queue_timeout:{mail}", now - 2000, now + 60000),
          list("redisson_delay_queue:{mail}"), list("mail")}},
        {QStringLiteral("asynq"),
         {test::sizedShape("asynq:queues", "set", 1), list("asynq:{mail}:pending"),
          list("asynq:{mail}:active"), zset("asynq:{mail}:lease", s + 600, s + 600),
          test::sizedShape("asynq:{mail}:t:a1", "hash", 2)}},
        // A worker's ack sets carry its id in their names: the scan finds
        // them (tst_lib_dramatiq, tst_mixedkeyspace), no rule names them.
        {QStringLiteral("dramatiq"),
         {zset("dramatiq:__heartbeats__", now, now),
          test::sizedShape("dramatiq:mail.msgs", "hash", 2), list("dramatiq:mail")}},
        {QStringLiteral("stream-group"),
         {stream("orders", {"billing", "audit"}), stream("orders:dead", {}),
          stream("audit:events", {})}},
        {QStringLiteral("laravel-queue"),
         {list("laravel_database_queues:default"), list("laravel_database_queues:default:notify"),
          zset("laravel_database_queues:default:reserved", s - 5, s + 90),
          zset("laravel_database_queues:default:delayed", s + 600, s + 900)}},
        {QStringLiteral("laravel-horizon"),
         {zset("laravel_horizon:recent_jobs", -s, -(s - 100)),
          zset("laravel_horizon:failed_jobs", -s, -(s - 50)),
          zset("laravel_horizon:supervisors", s - 3, s)}},
        {QStringLiteral("symfony-delayed"),
         {zset("messages__queue", now + 60000, now + 90000), stream("messages", {})}},
    };
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

    // Redisson's locks are one object each, found by their holder fields or
    // their fair-lock keys; its bookkeeping keys (read-lock timeouts, unlock
    // latches) are nobody's objects; an application's own "x:lock" stays a
    // generic lock and ordinary hashes (even with a TTL and "a:1" -> 2
    // fields) are nothing.
    void redissonLocksAreOneObjectEach()
    {
        const double now = double(s_now);
        const QByteArray uuid = "6fa459ea-ee8a-4ca4-894e-db77e160355e";
        const QList<KeyShape> keys{
            redissonLock("reports", {uuid + ":41", "2"}),
            redissonLock("rw:doc", {"mode", "read", uuid + ":7", "1"}, "read"),
            str("{rw:doc}:" + uuid + ":7:rwlock_timeout:1", "1", 30000),
            str("redisson_unlock_latch:{reports}:9f8e7d6c5b4a39281706f5e4d3c2b1a0", "1", 5000),
            list("redisson_lock_queue:{fair:res}"),
            zset("redisson_lock_timeout:{fair:res}", now + 60000, now + 90000),
            str("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000),
            redissonLock("session:9", {"a:1", "2"}),
            redissonLock("two:holders", {uuid + ":1", "1", uuid + ":2", "1"}),
            redissonLock("bad:mode", {"mode", "x", uuid + ":1", "1"}, "x"),
        };
        QStringList kinds;
        for (const PatternObject &o : detect(keys))
            kinds << o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
        kinds.sort();
        QCOMPARE(kinds, (QStringList{"lock app:order:7:lock", "redisson-lock fair:res",
                                     "redisson-lock reports", "redisson-lock rw:doc"}));
    }

    // A BullMQ queue is one object under its library, whatever prefix: its
    // finished sets are not sliding windows, its stall guard not a fixed
    // window, its jobs' locks not locks; an application's lock beside it,
    // and lone keys that merely share a BullMQ name, keep their own pattern.
    void bullMqQueuesAreOneObjectEach()
    {
        const double now = double(s_now);
        QList<KeyShape> keys = test::bullMqQueueShapes("bull:emails", now);
        keys << test::bullMqQueueShapes("{bull}:reports", now);
        keys << test::bullQueueShapes("bull:legacy", now);
        keys << str("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000)
             << zset("rl:api:completed", now - 4000, now - 10, 8000);
        const QList<PatternObject> found = detect(keys);
        QStringList kinds;
        for (const PatternObject &o : found)
            kinds << o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
        kinds.sort();
        QCOMPARE(kinds,
                 (QStringList{"bull bull:legacy", "bullmq bull:emails", "bullmq {bull}:reports",
                              "lock app:order:7:lock", "sliding-window rl:api:completed"}));
    }

    // A bee-queue queue is its own library's, never Bull's: it shares the
    // names id, active and delayed with Bull, but its jobs hash and stall
    // check's stalling set and stallBlock guard are only its own. A base with
    // Bull's id counter, active and delayed alone is neither library's.
    void beeQueueIsNotBull()
    {
        const double now = double(s_now);
        QList<KeyShape> keys = test::beeQueueShapes("bq:emails", now);
        keys << test::bullQueueShapes("bull:legacy", now);
        keys << str("jobs:bare:id", "3", -1) << list("jobs:bare:active")
             << zset("jobs:bare:delayed", now + 60000, now + 3600000);
        QStringList kinds;
        for (const PatternObject &o : detect(keys))
            kinds << o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
        kinds.sort();
        QVERIFY2(kinds.contains(QLatin1String("bee-queue bq:emails")),
                 qPrintable(kinds.join(u',')));
        QVERIFY2(kinds.contains(QLatin1String("bull bull:legacy")), qPrintable(kinds.join(u',')));
        for (const QString &k : std::as_const(kinds)) {
            QVERIFY2(!k.startsWith(QLatin1String("bull bq:"))
                         && !k.contains(QLatin1String("bq:emails:")),
                     qPrintable(k));
            QVERIFY2(!k.startsWith(QLatin1String("bull jobs:bare"))
                         && !k.startsWith(QLatin1String("bee-queue jobs:bare")),
                     qPrintable(k));
        }
    }

    // RQ's queues are one object each, named by their list: its registries
    // are not sliding windows, its cleaning guard not a fixed window, its
    // scheduler lock not a lock, its job hashes not tokens; an application's
    // lock and window beside them keep their own pattern.
    void rqQueuesAreOneObjectEach()
    {
        const double now = double(s_now);
        QList<KeyShape> keys = test::rqQueueShapes("emails", now);
        keys << test::rqQueueShapes("reports", now);
        keys << str("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000)
             << zset("rl:api:failed", now - 4000, now - 10, 8000);
        const QList<PatternObject> found = detect(keys);
        QStringList kinds;
        for (const PatternObject &o : found)
            kinds << o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
        kinds.sort();
        QCOMPARE(kinds, (QStringList{"lock app:order:7:lock", "rq rq:queue:emails",
                                     "rq rq:queue:reports", "sliding-window rl:api:failed"}));
    }

    // RQ 2's own keys (rq/executions.py, rq/intermediate_queue.py of 2.10,
    // as tst_lib_rq's RQ 2 run leaves them): an execution's hash, a job's
    // executions ZSET, the queue's intermediate list and its first-seen
    // guard, its groups (rq/group.py) belong to RQ; none is a queue, lock,
    // window or token.
    void rq2KeysBelongToTheirQueue()
    {
        const double now = double(s_now);
        const double s = now / 1000;
        QList<KeyShape> keys = test::rqQueueShapes("emails", now);
        keys << test::sizedShape("rq:execution:job-1:4e16fcd022bb4345b21912265d41785a", "hash", 3)
             << zset("rq:executions:job-1", s + 120, s + 120, 121000)
             << list("rq:queue:emails:intermediate")
             << str("rq:queue:emails:intermediate:first_seen:job-2", "1795503990.5", 86400000)
             << zset("rq:groups", s + 600, s + 900) << test::sizedShape("rq:group:g1", "set", 2);
        QCOMPARE(describeAll(detect(keys)).size(), 1);
        QCOMPARE(detect(keys).first().key, QByteArray("rq:queue:emails"));
    }

    // A plain Redisson RSemaphore (an integer STRING, no partner) is found
    // by its name: shown with no TTL, a candidate with one; integer
    // counters of the same shape stay ordinary when their name carries no
    // semaphore word, an ordinary-data word, or a date.
    void plainRedissonSemaphoresByName()
    {
        AutoDetector kept;
        const QList<PatternObject> found
            = detect({str("semaphore:api", "3", -1), str("mySemaphore", "10", -1),
                      str("billing:permits", "0", -1), str("jobs:sema", "-1", -1),
                      str("semaphore:exports", "4", 600000), str("sem:plain", "2", -1),
                      str("stats:semaphore_waits", "7", -1), str("views:semaphore", "7", -1),
                      str("semaphore:2026-11-24", "7", -1), str("semantic:count", "7", -1),
                      str("parking:permit:7", "7", -1), str("semaphore:name", "api", -1),
                      str("throttle:permits:7", "7", 60000)},
                     &kept);
        // A limiter's counter whose name says permits stays the limiter's.
        QStringList shown;
        bool throttleIsAWindow = false;
        for (const PatternObject &o : found) {
            if (o.key.startsWith("throttle:"))
                throttleIsAWindow = o.kind.id() == QLatin1String("fixed-window");
            else
                shown << describe(o);
        }
        QVERIFY2(throttleIsAWindow, "throttle:permits:7 is not shown as a fixed window");
        shown.sort();
        QCOMPARE(shown,
                 (QStringList{"redisson-semaphore billing:permits [{billing:permits}:timeout]",
                              "redisson-semaphore jobs:sema [{jobs:sema}:timeout]",
                              "redisson-semaphore mySemaphore [{mySemaphore}:timeout]",
                              "redisson-semaphore semaphore:api [{semaphore:api}:timeout]"}));
        QStringList candidates;
        for (const Candidate &c : kept.detect().candidates)
            candidates << c.kind.id() + QLatin1Char(' ') + QString::fromUtf8(c.family);
        QCOMPARE(candidates, QStringList{"redisson-semaphore semaphore:exports"});
    }

    // A Celery deployment is one queue object: its bindings, unacked keys,
    // mutex and results are not sets, windows, locks or tokens; an app's own
    // lock beside it stays a lock, and a lone "unacked" hash without kombu's
    // keys is not taken.
    void celeryDeploymentIsOneQueue()
    {
        const double now = double(s_now);
        QList<KeyShape> keys = test::celeryShapes(now);
        keys << str("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000);
        QStringList kinds;
        for (const PatternObject &o : detect(keys))
            kinds << o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
        kinds.sort();
        QCOMPARE(kinds, (QStringList{"celery celery", "lock app:order:7:lock"}));
        kinds.clear();
        for (const PatternObject &o : detect({test::sizedShape("unacked", "hash", 1)}))
            kinds << o.kind.id();
        QVERIFY(!kinds.contains(QStringLiteral("celery")));
    }

    // A Sidekiq deployment is one object per namespace, keyed by its queues
    // SET, with every key of it: its sets are not sliding windows, its
    // counters not fixed windows or tokens, its heartbeat hashes not token
    // families. An application's own "queues" SET, "retry" ZSET and lock with
    // nothing of Sidekiq beside them keep their own pattern (or none).
    void sidekiqDeploymentsAreOneObjectEach()
    {
        const double now = double(s_now);
        QList<KeyShape> keys = test::sidekiqShapes("", now);
        keys << test::sidekiqShapes("myapp:", now);
        keys << str("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000)
             << zset("other:retry", now + 100, now + 3000);
        const QList<PatternObject> found = detect(keys);
        QStringList kinds;
        for (const PatternObject &o : found) {
            kinds << o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
            if (o.kind.id() == QLatin1String("sidekiq")) {
                const QByteArray ns = o.key.chopped(6);
                QCOMPARE(o.members,
                         (QList<QByteArray>{ns + "queue:default", ns + "web-1:4242:8266484eb2cf"}));
            }
        }
        kinds.sort();
        QCOMPARE(kinds, (QStringList{"lock app:order:7:lock", "sidekiq myapp:queues",
                                     "sidekiq queues", "sliding-window other"}));
    }

    // A Resque namespace is one deployment, never a Sidekiq one, beside
    // Sidekiq's and RQ's own keys (which are not taken for Resque); its
    // workers' strings, stats and scheduler lock are not locks, counters or
    // tokens. Resque's queues and queue lists alone (no failed list, worker,
    // heartbeat or delayed schedule) are not called Resque.
    void resqueDeploymentsAreOneObjectEach()
    {
        const double now = double(s_now);
        QList<KeyShape> keys = resqueShapes("resque:", true);
        keys << resqueShapes("app:jobs:", false) << test::sidekiqShapes("", now)
             << test::sidekiqShapes("myapp:", now) << test::rqQueueShapes("emails", now)
             << test::sizedShape("bare:queues", "set", 1) << test::listShape("bare:queue:q");
        QStringList kinds;
        for (const PatternObject &o : detect(keys))
            kinds << o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
        kinds.sort();
        QCOMPARE(kinds, (QStringList{"resque app:jobs:queues", "resque resque:queues",
                                     "rq rq:queue:emails", "sidekiq bare:queues",
                                     "sidekiq myapp:queues", "sidekiq queues"}));
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

    // One canned keyspace per case: the exact instances, and the profile an
    // operator would be offered for them.
    void keyspaces_data()
    {
        QTest::addColumn<QList<KeyShape>>("shapes");
        QTest::addColumn<QStringList>("objects"); // describeFully, in output order
        QTest::addColumn<QStringList>("rules");   // the suggested profile's rules, as JSON
        const double now = double(s_now);
        const double s = now / 1000;

        QTest::newRow("ms window with its retry set")
            << QList<KeyShape>{zset("rl:api:1", now - 4000, now - 10, 8000),
                               zset("rl:api:1:retry", now + 100, now + 3000)}
            << QStringList{"sliding-window rl:api:1 [rl:api:1:retry] window=10000ms unit=1ms"}
            << QStringList{R"({"limit":null,"match":"rl:api:*","pattern":"sliding-window",)"
                           R"("retryKey":"{key}:retry","scoreUnit":"ms","window":10,)"
                           R"("windowUnit":"s"})"};
        QTest::newRow("ms window alone")
            << QList<KeyShape>{zset("rl:api:2", now - 900, now - 5, 60000)}
            << QStringList{"sliding-window rl:api:2 [] window=60000ms unit=1ms"}
            << QStringList{R"({"limit":null,"match":"rl:api:*","pattern":"sliding-window",)"
                           R"("scoreUnit":"ms","window":60,"windowUnit":"s"})"};
        QTest::newRow("ms windows of one glob: widest window, retry seen once")
            << QList<KeyShape>{zset("rl:api:1", now - 4000, now - 10, 8000),
                               zset("rl:api:1:retry", now + 100, now + 3000),
                               zset("rl:api:2", now - 900, now - 5, 60000)}
            << QStringList{"sliding-window rl:api:1 [rl:api:1:retry] window=10000ms unit=1ms",
                           "sliding-window rl:api:2 [] window=60000ms unit=1ms"}
            << QStringList{R"({"limit":null,"match":"rl:api:*","pattern":"sliding-window",)"
                           R"("retryKey":"{key}:retry","scoreUnit":"ms","window":60,)"
                           R"("windowUnit":"s"})"};
        QTest::newRow("retry set whose window expired")
            << QList<KeyShape>{zset("rl:api:3:retry", now + 50, now + 900)}
            << QStringList{"sliding-window rl:api:3 [rl:api:3:retry] window=0ms unit=1ms"}
            << QStringList{R"({"limit":null,"match":"rl:api:*","pattern":"sliding-window",)"
                           R"("retryKey":"{key}:retry","scoreUnit":"ms","window":0,)"
                           R"("windowUnit":"s"})"};
        QTest::newRow("seconds window")
            << QList<KeyShape>{zset("rl:sec:7", s - 3, s, 2000)}
            << QStringList{"sliding-window rl:sec:7 [] window=2000ms unit=1000ms"}
            << QStringList{R"({"limit":null,"match":"rl:sec:*","pattern":"sliding-window",)"
                           R"("scoreUnit":"s","window":2,"windowUnit":"s"})"};
        QTest::newRow("resource with consumers")
            << QList<KeyShape>{zset("z:rl:resource:4{4}", s - 5, s, 1000),
                               zset("z:rl:resource:4{4}:consumer:0", s - 3, s, 1000),
                               zset("z:rl:resource:4{4}:consumer:1", s - 2, s, 5000)}
            << QStringList{"resource-consumer z:rl:resource:4{4} [] window=1000ms unit=1000ms",
                           "resource-consumer z:rl:resource:4{4}:consumer:0 [] "
                           "parent=z:rl:resource:4{4} window=1000ms unit=1000ms",
                           "resource-consumer z:rl:resource:4{4}:consumer:1 [] "
                           "parent=z:rl:resource:4{4} window=5000ms unit=1000ms"}
            << QStringList{R"({"consumerLimit":null,"consumerMarker":":consumer:","limit":null,)"
                           R"("match":"z:rl:resource:*","pattern":"resource-consumer",)"
                           R"("scoreUnit":"s","window":5,"windowUnit":"s"})"};
        QTest::newRow("fixed-window counter")
            << QList<KeyShape>{str("throttle:user:1", "17", 25000)}
            << QStringList{"fixed-window throttle:user:1 [] window=30000ms unit=1ms"}
            << QStringList{R"({"limit":null,"match":"throttle:user:*","pattern":"fixed-window",)"
                           R"("window":30,"windowUnit":"s"})"};
        QTest::newRow("Redisson limiter")
            << QList<KeyShape>{redissonConfig("api", 10, 20000), str("{api}:value", "7", -1),
                               zset("{api}:permits", 1, 2)}
            << QStringList{"redisson-limiter api [{api}:value,{api}:permits] window=20000ms "
                           "unit=1ms limit=10"}
            << QStringList{R"({"match":"api","pattern":"redisson-limiter"})"};
        QTest::newRow("lock") << QList<KeyShape>{str("lock:orders", "3f9a1c2e-77b1-4c1d", 30000)}
                              << QStringList{"lock lock:orders [] window=0ms unit=1ms"}
                              << QStringList{R"({"match":"lock:*","pattern":"lock"})"};
        QTest::newRow("legacy lock")
            << QList<KeyShape>{str("lock.report", QByteArray::number(s_now / 1000 + 30), -1)}
            << QStringList{"legacy-lock lock.report [] window=0ms unit=1ms"}
            << QStringList{R"({"match":"lock.report","pattern":"legacy-lock"})"};
        QTest::newRow("token families")
            << QList<KeyShape>{str("code:x7Kp2mQ9zA", "{\"user\":1}", 60000),
                               str("code:0aZ9bY8cX7", "{\"user\":2}", 60000),
                               countedToken("user_token:0an3dks7000xcj201ls"),
                               countedToken("user_token:1bm4elt8111ydk312mt")}
            << QStringList{"token-family code: [] window=0ms unit=1ms "
                           "members=code:0aZ9bY8cX7,code:x7Kp2mQ9zA",
                           "token-family user_token: [] window=0ms unit=1ms "
                           "members=user_token:0an3dks7000xcj201ls,"
                           "user_token:1bm4elt8111ydk312mt counted"}
            << QStringList{R"({"pattern":"token-family","prefix":"code:"})",
                           R"({"countField":"used_by","counted":true,"pattern":"token-family",)"
                           R"("prefix":"user_token:"})"};
        QTest::newRow("reliable queue")
            << QList<KeyShape>{list("jobs:mail"), list("jobs:mail:processing"),
                               zset("jobs:mail:claims", now - 60000, now - 10),
                               list("jobs:mail:dead")}
            << QStringList{"reliable-queue jobs:mail "
                           "[jobs:mail:processing,jobs:mail:claims,jobs:mail:dead] "
                           "window=0ms unit=1ms"}
            << QStringList{R"({"claimsKey":"{key}:claims","deadKey":"{key}:dead",)"
                           R"("match":"jobs:*","pattern":"reliable-queue",)"
                           R"("processingKey":"{key}:processing","stuckAfter":60000})"};
        QTest::newRow("stream with consumer groups")
            << QList<KeyShape>{stream("orders", {"billing"}), stream("orders:dead", {}),
                               stream("audit:events", {})}
            << QStringList{"stream-group orders [orders:dead] window=0ms unit=1ms"}
            << QStringList{R"({"deadKey":"{key}:dead","match":"orders","pattern":"stream-group",)"
                           R"("stuckAfter":300000})"};
        QTest::newRow("stream without groups is an event log")
            << QList<KeyShape>{stream("audit:events", {}), stream("app:log", {})} << QStringList()
            << QStringList();
        QTest::newRow("sorted-set semaphore")
            << QList<KeyShape>{zset("sim:sem:gpu", now - 4000, now - 100)}
            << QStringList{"sorted-set-semaphore sim:sem:gpu [] window=0ms unit=1ms"}
            << QStringList{R"({"limit":null,"match":"sim:sem:*","pattern":"sorted-set-semaphore",)"
                           R"("timeout":0})"};

        // Keys no pattern's evidence fits.
        QTest::newRow("string without TTL")
            << QList<KeyShape>{str("greeting", "hello", -1), str("visits", "17", -1)}
            << QStringList() << QStringList();
        QTest::newRow("hash without the fields")
            << QList<KeyShape>{hash("user:42")} << QStringList() << QStringList();
        QTest::newRow("list alone")
            << QList<KeyShape>{list("plain:list")} << QStringList() << QStringList();
        QTest::newRow("zset of non-time scores")
            << QList<KeyShape>{zset("leaderboard", 1, 9000), zset("sem:scores", 1, 9000)}
            << QStringList() << QStringList();

        // Where two patterns' evidence meets, the one that says more wins.
        QTest::newRow("semaphore named like a consumer stays a semaphore")
            << QList<KeyShape>{zset("sim:sem:gpu", now - 4000, now - 100),
                               zset("sim:sem:gpu:consumer:0", now - 4000, now - 100)}
            << QStringList{"sorted-set-semaphore sim:sem:gpu [] window=0ms unit=1ms",
                           "sorted-set-semaphore sim:sem:gpu:consumer:0 [] window=0ms unit=1ms"}
            << QStringList{R"({"limit":null,"match":"sim:sem:*","pattern":"sorted-set-semaphore",)"
                           R"("timeout":0})",
                           R"({"limit":null,"match":"sim:sem:gpu:consumer:*",)"
                           R"("pattern":"sorted-set-semaphore","timeout":0})"};
        QTest::newRow("claims set named like a consumer stays the queue's")
            << QList<KeyShape>{list("jobs:consumer:1:processing"),
                               zset("jobs:consumer:1:claims", now - 60000, now - 10)}
            << QStringList{"reliable-queue jobs:consumer:1 "
                           "[jobs:consumer:1:processing,jobs:consumer:1:claims,] "
                           "window=0ms unit=1ms"}
            << QStringList{R"({"claimsKey":"{key}:claims","match":"jobs:consumer:*",)"
                           R"("pattern":"reliable-queue","processingKey":"{key}:processing",)"
                           R"("stuckAfter":60000})"};
        QTest::newRow("counter named like a retry set stays a counter")
            << QList<KeyShape>{zset("rl:x", now - 4000, now - 10, 8000),
                               str("rl:x:retry", "5", 1000)}
            << QStringList{"sliding-window rl:x [rl:x:retry] window=10000ms unit=1ms",
                           "fixed-window rl:x:retry [] window=1000ms unit=1ms"}
            << QStringList{R"({"limit":null,"match":"rl:*","pattern":"sliding-window",)"
                           R"("retryKey":"{key}:retry","scoreUnit":"ms","window":10,)"
                           R"("windowUnit":"s"})",
                           R"({"limit":null,"match":"rl:x:*","pattern":"fixed-window",)"
                           R"("window":1,"windowUnit":"s"})"};
        QTest::newRow("seconds consumer named ':retry' is a consumer")
            << QList<KeyShape>{zset("z:r{1}:consumer:0:retry", s - 3, s, 1000)}
            << QStringList{"resource-consumer z:r{1}:consumer:0:retry [] parent=z:r{1} "
                           "window=1000ms unit=1000ms"}
            << QStringList{R"({"consumerLimit":null,"consumerMarker":":consumer:","limit":null,)"
                           R"("match":"z:*","pattern":"resource-consumer","scoreUnit":"s",)"
                           R"("window":1,"windowUnit":"s"})"};
    }

    void keyspaces()
    {
        QFETCH(QList<KeyShape>, shapes);
        QFETCH(QStringList, objects);
        QFETCH(QStringList, rules);
        AutoDetector detector;
        const QList<PatternObject> found = detect(shapes, &detector);
        QStringList described;
        for (const PatternObject &o : found) {
            QCOMPARE(o.source, QStringLiteral("autodetected"));
            described << describeFully(o);
        }
        QCOMPARE(described, objects);
        QCOMPARE(rulesJson(detector.suggestedProfile()), rules);
        QCOMPARE(detector.objects().size(), found.size()); // asking again finds the same
    }

    // Every registered pattern's hooks agree: what it groups, its rule
    // describes, the profile loader accepts that rule, and the loaded profile
    // finds the same instance again. (Windows are asserted in keyspaces():
    // Redisson's is read from its config hash, not from the rule.)
    void everyPatternsRuleRoundTrips()
    {
        const QMap<QString, QList<KeyShape>> samples = samplePerPattern();
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            const QString id = unit->kind().id();
            QVERIFY2(samples.contains(id), qPrintable(id + QStringLiteral(": no sample keyspace")));
            const QList<PatternObject> found = detect(samples.value(id));
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
    // profile rule accepts.
    void everyClaimingPatternGroups()
    {
        const double now = double(s_now);
        KeyShape config;
        config.key = "api";
        config.type = "hash";
        config.hashFields = {{"rate", "10"}, {"interval", "1000"}, {"type", "0"}};
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
            zset("sim:sem:gpu", now - 4000, now - 100),
            tokenHash("otp:pending")};
        const QList<PatternObject> found = detect(
            shapes + test::bullMqQueueShapes("bull:q", now) + test::bullQueueShapes("bull:old", now)
            + test::rqQueueShapes("q", now) + test::beeQueueShapes("bq:q", now)
            + test::celeryShapes(now) + test::sidekiqShapes("", now)
            + samplePerPattern().value(QStringLiteral("redisson-lock"))
            + samplePerPattern().value(QStringLiteral("redisson-semaphore"))
            + samplePerPattern().value(QStringLiteral("redisson-delayed-queue"))
            + samplePerPattern().value(QStringLiteral("stream-group"))
            + resqueShapes("resque:", false)
            + samplePerPattern().value(QStringLiteral("laravel-queue"))
            + samplePerPattern().value(QStringLiteral("laravel-horizon"))
            + samplePerPattern().value(QStringLiteral("symfony-delayed"))
            + samplePerPattern().value(QStringLiteral("redis-semaphore"))
            + samplePerPattern().value(QStringLiteral("python-limits"))
            + samplePerPattern().value(QStringLiteral("asynq"))
            + samplePerPattern().value(QStringLiteral("dramatiq")));
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
        const QMap<QString, QList<KeyShape>> samples = samplePerPattern();
        for (auto it = samples.cbegin(); it != samples.cend(); ++it) {
            for (const PatternObject &o : detect(it.value())) {
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
    }

    // Each pattern's evidence for and against, as an operator reads it.
    void patternEvidence_data()
    {
        QTest::addColumn<QList<KeyShape>>("shapes");
        QTest::addColumn<QStringList>("shown");      // "<pattern> <key>"
        QTest::addColumn<QStringList>("candidates"); // "<pattern> <family> <count>"
        QTest::addColumn<QString>("reason"); // in the first shown's (or candidate's) evidence
        const double now = double(s_now);
        QList<KeyShape> codes;
        for (const char *id : {"3fa9c1", "0b7e22", "483920", "c0ffee", "9d1e07"})
            codes << str(QByteArray("code:") + id, "{\"user\":1}", 60000);
        QTest::newRow("one-time codes with a short suffix (one of digits)")
            << codes << QStringList{"token-family code:"} << QStringList()
            << QStringLiteral("\"code\" in its name");
        QList<KeyShape> refs;
        for (const char *id : {"3fa9c1", "0b7e22", "c0ffee", "9d1e07"})
            refs << str(QByteArray("ref:") + id, "{\"to\":\"/home\"}", 60000);
        QTest::newRow("ids that expire, no word: only a candidate")
            << refs << QStringList() << QStringList{"token-family ref:{hex} 1"}
            << QStringLiteral("expiring");
        QList<KeyShape> pages;
        for (const char *id : {"3fa9c1d2", "0b7e22aa", "c0ffee11", "9d1e07bb"})
            pages << str(QByteArray("page:") + id, "<html>", 60000);
        QTest::newRow("page cache keyed by a hash is no token family")
            << pages << QStringList() << QStringList() << QString();
        QTest::newRow("limiter word: a fixed window")
            << QList<KeyShape>{str("throttle:login:7", "3", 60000)}
            << QStringList{"fixed-window throttle:login:7"} << QStringList()
            << QStringLiteral("\"throttle\" in its name");
        QTest::newRow("counter that expires, no word: a candidate")
            << QList<KeyShape>{str("tries:7", "3", 60000), str("tries:8", "1", 60000)}
            << QStringList() << QStringList{"fixed-window tries:{int} 2"}
            << QStringLiteral("integer counter");
        QTest::newRow("dated counter with a limiter word: a candidate at most")
            << QList<KeyShape>{str("quota:user:7:2026-11-23", "3", 3600000)} << QStringList()
            << QStringList{"fixed-window quota:user:{int}:{date} 1"}
            << QStringLiteral("a date in its name");
        QTest::newRow("counter kept for days is no window")
            << QList<KeyShape>{str("rl:user:7", "3", 3LL * 86400000)} << QStringList()
            << QStringList{"fixed-window rl:user:{int} 1"} << QStringLiteral("longer than");
        QList<KeyShape> handles;
        for (int i = 0; i < 60; ++i)
            handles << str("u:" + QByteArray::number(i) + ":t",
                           "a1b2c3d4e5f6" + QByteArray::number(i), 600000);
        QTest::newRow("random values that expire in a large family, no word: candidates")
            << handles << QStringList() << QStringList{"lock u:{int}:t 60"}
            << QStringLiteral("none with a word");
        QTest::newRow("lock named so")
            << QList<KeyShape>{str("lock:order:7", "3f9a1c2e-77b1-4c1d", 30000)}
            << QStringList{"lock lock:order:7"} << QStringList() << QStringLiteral("random token");
        QTest::newRow("window with a word and its TTL")
            << QList<KeyShape>{zset("ratelimit:api:7", now - 4000, now - 10, 10000)}
            << QStringList{"sliding-window ratelimit:api:7"} << QStringList()
            << QStringLiteral("within its 10.0 s TTL");
        QTest::newRow("recent times without a word: a candidate")
            << QList<KeyShape>{zset("seen:7", now - 4000, now - 10)} << QStringList()
            << QStringList{"sliding-window seen:{int} 1"} << QStringLiteral("recent times");
        QTest::newRow("a family mostly of other keys") << [&] {
            QList<KeyShape> keys;
            for (int i = 0; i < 9; ++i)
                keys << str("item:" + QByteArray::number(i), "{}", -1);
            keys << str("item:9", "17", 5000);
            return keys;
        }() << QStringList() << QStringList() << QString();
    }
    void patternEvidence()
    {
        QFETCH(QList<KeyShape>, shapes);
        QFETCH(QStringList, shown);
        QFETCH(QStringList, candidates);
        QFETCH(QString, reason);
        AutoDetector detector;
        for (const KeyShape &k : shapes)
            detector.add(k, s_now);
        const Detection d = detector.detect();
        QStringList gotShown;
        for (const PatternObject &o : d.objects)
            gotShown << o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
        QStringList gotCandidates;
        for (const Candidate &c : d.candidates)
            gotCandidates << QStringLiteral("%1 %2 %3")
                                 .arg(c.kind.id(), QString::fromUtf8(c.family))
                                 .arg(c.count);
        QCOMPARE(gotShown, shown);
        QCOMPARE(gotCandidates, candidates);
        const QList<Evidence> evidence = !d.objects.isEmpty()      ? d.objects.first().evidence
                                         : !d.candidates.isEmpty() ? d.candidates.first().evidence
                                                                   : QList<Evidence>();
        QStringList reasons;
        for (const Evidence &e : evidence)
            reasons << QStringLiteral("%1 %2: %3")
                           .arg(evidenceKindId(e.kind))
                           .arg(e.weight)
                           .arg(e.reason);
        if (!reason.isEmpty())
            QVERIFY2(reasons.join(QLatin1Char('\n')).contains(reason),
                     qPrintable(reasons.join(QLatin1Char('\n'))));
        for (const Candidate &c : d.candidates) {
            QVERIFY(c.score > 0 && c.score < AutoDetector::Threshold);
            QVERIFY(!c.sampleKeys.isEmpty());
        }
    }

    // A lock is found by every sign an operator uses, not only a random
    // value: a lock's word in its name, a PX TTL, and any value a holder
    // writes (a token, one name for all, a process identity, an integer, a
    // UUID, JSON, random letters). Every one of the family's 30 keys is a lock.
    void lockFamiliesByEveryValueShape_data()
    {
        QTest::addColumn<QByteArray>("shape");
        QTest::addColumn<QByteArray>("prefix");
        QTest::addColumn<QString>("reason"); // in every lock's evidence
        QTest::newRow("tok<n>") << QByteArray("tok") << QByteArray("lock:c:")
                                << QStringLiteral("different values among the 30 keys");
        QTest::newRow("the literal tok")
            << QByteArray("literal") << QByteArray("lock:c:")
            << QStringLiteral("every one of the 30 keys named lock:c:{int} holds \"tok\"");
        QTest::newRow("host-<n>:<pid>") << QByteArray("host-pid") << QByteArray("app:job_lock:")
                                        << QStringLiteral("random token");
        QTest::newRow("small integers")
            << QByteArray("integer") << QByteArray("lock:c:") << QStringLiteral("holds an integer");
        QTest::newRow("UUIDs") << QByteArray("uuid") << QByteArray("mutex:report:")
                               << QStringLiteral("random token");
        QTest::newRow("JSON") << QByteArray("json") << QByteArray("lease:shard:")
                              << QStringLiteral("holds JSON");
        QTest::newRow("random letters") << QByteArray("letters") << QByteArray("lock:c:")
                                        << QStringLiteral("\"lock\" in its name");
        QTest::newRow("leader election, integers")
            << QByteArray("integer") << QByteArray("leader:scheduler:")
            << QStringLiteral("holds an integer");
    }
    void lockFamiliesByEveryValueShape()
    {
        QFETCH(QByteArray, shape);
        QFETCH(QByteArray, prefix);
        QFETCH(QString, reason);
        AutoDetector detector;
        for (const KeyShape &k : test::lockFamilyShapes(shape, prefix, 30))
            detector.add(k, s_now);
        const Detection d = detector.detect();
        QVERIFY2(d.candidates.isEmpty(),
                 qPrintable(QString::fromUtf8(d.candidates.value(0).family)));
        QVERIFY2(d.other.isEmpty(), qPrintable(QString::fromUtf8(d.other.value(0).family)));
        QCOMPARE(d.objects.size(), 30);
        for (const PatternObject &o : d.objects) {
            QCOMPARE(o.kind.id(), QStringLiteral("lock"));
            QVERIFY(evidenceScore(o.evidence) >= AutoDetector::Threshold);
            QStringList reasons;
            for (const Evidence &e : o.evidence)
                reasons << QStringLiteral("%1 %2").arg(e.weight).arg(e.reason);
            QVERIFY2(reasons.join(QLatin1Char('\n')).contains(reason),
                     qPrintable(reasons.join(QLatin1Char('\n'))));
        }
    }

    // Keys that hold what a holder writes, with a TTL, but whose name has no
    // lock's word ("blocklist", "clock" and "lockout" contain one's letters):
    // no lock, shown or candidate. A value no holder writes (text, markup) or
    // a TTL of days is none either, whatever the name.
    void lockLookalikesAreNotLocks_data()
    {
        QTest::addColumn<QList<KeyShape>>("shapes");
        const auto family = [](const QByteArray &prefix, const auto &value, qint64 pttl) {
            QList<KeyShape> out;
            for (int i = 0; i < 30; ++i)
                out << str(prefix + QByteArray::number(i), value(i), pttl);
            return out;
        };
        const auto one = [](int) {
            return QByteArray("1");
        };
        QTest::newRow("blocklist") << family("blocklist:ip:", one, 600000);
        QTest::newRow("clock skew") << family(
            "clock:skew:", [](int i) { return QByteArray::number(i * 3); }, 600000);
        QTest::newRow("lockout") << family("lockout:user:", one, 900000);
        QTest::newRow("cached ids") << family(
            "cache:user:", [](int i) { return QByteArray::number(i + 7); }, 600000);
        QTest::newRow("JSON sessions") << family(
            "session:",
            [](int i) -> QByteArray { return "{\"user\":" + QByteArray::number(i) + '}'; },
            1800000);
        QTest::newRow("worker heartbeats (short tokens, no word)") << family(
            "worker:", [](int i) -> QByteArray { return "w" + QByteArray::number(i); }, 30000);
        QTest::newRow("text under a lock's name") << family(
            "lock:note:", [](int) { return QByteArray("held by the nightly job"); }, 600000);
        QTest::newRow("markup under a lock's name") << family(
            "lock:page:", [](int) { return QByteArray("<div>locked</div>"); }, 600000);
        QTest::newRow("a lock's name kept for days") << family("lock:user:", one, 3LL * 86400000);
    }
    void lockLookalikesAreNotLocks()
    {
        QFETCH(QList<KeyShape>, shapes);
        AutoDetector detector;
        for (const KeyShape &k : shapes)
            detector.add(k, s_now);
        const Detection d = detector.detect();
        for (const PatternObject &o : d.objects)
            QVERIFY2(o.kind.id() != QLatin1String("lock"), qPrintable(describe(o)));
        for (const Candidate &c : d.candidates)
            QVERIFY2(c.kind.id() != QLatin1String("lock"), c.family.constData());
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
