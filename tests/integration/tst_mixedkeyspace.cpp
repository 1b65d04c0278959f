// SPDX-License-Identifier: MIT
// Autodetection on a keyspace like a production server's: about 95,000
// ordinary application keys (caches, sessions, dated counters, timelines,
// leaderboards, page caches, flags, logs, profiles, carts, ...) from three
// applications with their own prefixes, seeds and scales, and a few dozen
// real structures made by Gatehouse's own scripts (lua/): sliding windows
// with retry slots, fixed windows, locks (random tokens, and an integer,
// JSON or one name as the holder's value), one-time codes with short
// suffixes, a queue with work in flight, a stream read by a consumer group
// (beside event streams without one), a bee-queue queue, a Resque
// namespace, a Laravel queue with Horizon beside it and a Symfony Messenger
// transport with a delayed message (their layouts); and the real state of
// two limiter libraries, written by the libraries themselves
// (tests/libraries/): Python limits' fixed and moving windows, a
// redis-semaphore semaphore whose holder was killed. Every structure must be
// shown; at most 0.1 % of the ordinary keys may be.
#include <monitor/discovery.h>
#include <redis/redisclient.h>
#include <redis/redisscript.h>
#include <redis/serverinfo.h>

#include "libplanting.h"
#include "redisserver.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

using namespace gatehouse;
using gatehouse::test::call;

namespace {

// One application's keys: its prefix, its random seed, how many ordinary keys.
struct App
{
    QByteArray prefix;
    quint32 seed;
    int keys;
};

// What the fill planted: the structures by "<pattern> <key>", every key they
// use, and every ordinary key.
struct Planted
{
    QSet<QString> structures;
    QSet<QByteArray> structureKeys;
    QSet<QByteArray> ordinaryKeys;
};

QByteArray hexId(QRandomGenerator &rng, int len)
{
    static const char digits[] = "0123456789abcdef";
    QByteArray out(len, '0');
    for (int i = 0; i < len; ++i)
        out[i] = digits[rng.bounded(16)];
    return out;
}

QByteArray base62(QRandomGenerator &rng, int len)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    QByteArray out(len, '0');
    for (int i = 0; i < len; ++i)
        out[i] = digits[rng.bounded(62)];
    return out;
}

QByteArray day(QRandomGenerator &rng)
{
    return "2026-11-" + QByteArray::number(10 + rng.bounded(14));
}

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

// The ordinary keys of one application, as commands: each family a share of
// app.keys, its names and values the way applications write them.
void ordinaryKeys(const App &app, qint64 nowMs, QList<QList<QByteArray>> &cmds, Planted &planted)
{
    QRandomGenerator rng(app.seed);
    const QByteArray p = app.prefix;
    const auto share = [&](double f) {
        return std::max(1, int(app.keys * f));
    };
    const auto key = [&](const QByteArray &k) {
        planted.ordinaryKeys.insert(k);
        return k;
    };
    const QByteArray json = "{\"id\":17,\"name\":\"Ann\",\"plan\":\"pro\"}";
    for (int i = 0; i < share(0.12); ++i) // per-user caches
        cmds.append(
            {"SET", key(p + "cache:user:" + num(i)), json, "EX", num(300 + rng.bounded(3300))});
    for (int i = 0; i < share(0.08); ++i) // query caches keyed by a hash
        cmds.append({"SET", key(p + "cache:q:" + hexId(rng, 32)), "[" + json + "]", "EX", "600"});
    for (int i = 0; i < share(0.06); ++i) // page caches keyed by a hash
        cmds.append({"SET", key(p + "page:" + hexId(rng, 40)),
                     "<!doctype html><html><body>hello</body></html>", "EX", "600"});
    for (int i = 0; i < share(0.10); ++i) // sessions
        cmds.append({"SET", key(p + "session:" + base62(rng, 22)), json, "EX", "1800"});
    for (int i = 0; i < share(0.04); ++i) // session ids: random values that expire
        cmds.append({"SET", key(p + "user:" + num(i) + ":sid"),
                     QUuid::createUuid().toByteArray(QUuid::WithoutBraces), "EX", "86400"});
    for (int i = 0; i < share(0.15); ++i) // per-day stats counters
        cmds.append({"SET", key(p + "stats:views:" + day(rng) + ':' + num(i)),
                     num(1 + rng.bounded(900)), "EX", num(7 * 86400)});
    for (int i = 0; i < share(0.05); ++i) // per-day page views, compact dates
        cmds.append({"SET", key(p + "pv:" + num(i) + ":202611" + num(10 + rng.bounded(14))),
                     num(1 + rng.bounded(90)), "EX", num(2 * 86400)});
    for (int i = 0; i < share(0.05); ++i) // hourly counters: integers with a short TTL
        cmds.append({"SET",
                     key(p + "api_calls:20261123" + num(10 + rng.bounded(12)) + ':' + num(i)),
                     num(1 + rng.bounded(50)), "EX", "3600"});
    for (int i = 0; i < share(0.05); ++i) { // timelines: post ids by recent time (ms)
        const QByteArray k = key(p + "timeline:" + num(i));
        cmds.append({"ZADD", k, num(nowMs - rng.bounded(3600000)), "post:" + num(i),
                     num(nowMs - rng.bounded(60000)), "post:" + num(i + 1)});
    }
    for (int i = 0; i < share(0.03); ++i) { // recent activity that expires
        const QByteArray k = key(p + "activity:" + num(i));
        cmds.append({"ZADD", k, num(nowMs - rng.bounded(600000)), "login",
                     num(nowMs - rng.bounded(5000)), "view"});
        cmds.append({"EXPIRE", k, "86400"});
    }
    for (int i = 0; i < share(0.002); ++i) // leaderboards
        cmds.append({"ZADD", key(p + "leaderboard:game_" + num(i) + ':' + day(rng)),
                     num(rng.bounded(10000)), "ann", num(rng.bounded(10000)), "bob"});
    for (int i = 0; i < 40; ++i) // feature flags
        cmds.append({"SET", key(p + "feature:flag_" + num(i)), i % 3 ? "on" : "off"});
    for (int i = 0; i < share(0.01); ++i) // per-user flags
        cmds.append({"HSET", key(p + "flags:user:" + num(i)), "beta", "1"});
    for (int i = 0; i < share(0.005); ++i) // logs
        cmds.append({"RPUSH", key(p + "log:" + day(rng) + ':' + num(i)), "started", "done"});
    for (int i = 0; i < share(0.003); ++i) // event streams
        cmds.append({"XADD", key(p + "events:" + num(i)), "*", "type", "click"});
    for (int i = 0; i < share(0.12); ++i) // profiles
        cmds.append({"HSET", key(p + "user:" + num(i)), "name", "Ann", "plan", "pro"});
    for (int i = 0; i < share(0.05); ++i) // orders
        cmds.append({"HSET", key(p + "order:" + num(i)), "total", "17.50"});
    for (int i = 0; i < share(0.03); ++i) { // carts that expire
        const QByteArray k
            = key(p + "cart:" + QUuid::createUuid().toByteArray(QUuid::WithoutBraces));
        cmds.append({"HSET", k, "sku:1", "2"});
        cmds.append({"EXPIRE", k, "86400"});
    }
    for (int i = 0; i < share(0.02); ++i) // upload handles: random values, no telling name
        cmds.append({"SET", key(p + "u:" + num(i) + ":t"), hexId(rng, 16), "EX", "600"});
    for (int i = 0; i < share(0.02); ++i) // redirects keyed by a short id, no telling name
        cmds.append({"SET", key(p + "ref:" + hexId(rng, 8)), "{\"to\":\"/home\"}", "EX", "3600"});
    for (int i = 0; i < share(0.01); ++i) // counters kept for good
        cmds.append({"SET", key(p + "counter:" + num(i)), num(rng.bounded(100000))});
    // Most like a lock whose holder writes no random token (an integer, JSON
    // with an id, a short word, with a TTL), but named as what they are.
    for (int i = 0; i < share(0.02); ++i) // cached counts: small integers that expire
        cmds.append({"SET", key(p + "cache:posts:" + num(i)), num(rng.bounded(40)), "EX",
                     num(300 + rng.bounded(3300))});
    for (int i = 0; i < share(0.02); ++i) // sessions keyed by a UUID: JSON that expires
        cmds.append({"SET",
                     key(p + "session:" + QUuid::createUuid().toByteArray(QUuid::WithoutBraces)),
                     "{\"user\":" + num(i) + ",\"ts\":" + num(nowMs) + '}', "EX", "1800"});
    for (int i = 0; i < share(0.005); ++i) // blocked addresses ("lock" only as letters)
        cmds.append({"SET", key(p + "blocklist:ip:" + num(i)), "1", "EX", "600"});
    for (int i = 0; i < share(0.005); ++i) // per-user counters with a short TTL and a word
        cmds.append(
            {"SET", key(p + "counter:user:" + num(i) + ":hits"), num(rng.bounded(9)), "EX", "60"});
}

// Pipelined in batches: one round trip per batch.
bool run(RedisClient &client, const QList<QList<QByteArray>> &cmds, QString *error)
{
    constexpr qsizetype batch = 10000;
    QObject context;
    for (qsizetype at = 0; at < cmds.size(); at += batch) {
        gatehouse::test::ReplyWait wait;
        QString failure;
        client.pipeline(cmds.mid(at, batch), &context, [&](const QList<RedisValue> &replies) {
            for (const RedisValue &r : replies) {
                if (r.isError() && failure.isEmpty())
                    failure = r.errorMessage();
            }
            wait.finish();
        });
        if (!wait.wait(60000) || !failure.isEmpty()) {
            *error = failure.isEmpty() ? QStringLiteral("the fill timed out") : failure;
            return false;
        }
    }
    return true;
}

RedisValue eval(RedisClient &client, const char *script, const QList<QByteArray> &keys,
                const QList<QByteArray> &args)
{
    const RedisScript s = RedisScript::fromResource(QString::fromLatin1(script));
    QList<QByteArray> cmd{"EVAL", s.source(), num(keys.size())};
    cmd << keys << args;
    return call(client, cmd);
}

// The real structures of one application, made by Gatehouse's own scripts.
bool plantStructures(RedisClient &client, const App &app, Planted &planted)
{
    QRandomGenerator rng(app.seed + 1);
    const QByteArray p = app.prefix;
    // Windows and leases of ten minutes: a slow run (the sanitizer build) must
    // still find them standing when it snapshots.
    for (int i = 0; i < 6; ++i) { // sliding windows: 3 admitted, 2 rejected (retry slots)
        const QByteArray window = p + "ratelimit:api:" + num(i);
        for (int n = 0; n < 5; ++n) {
            if (eval(client, "sliding_window", {window, window + ":retry"}, {"3", "600000", ""})
                    .isError())
                return false;
        }
        planted.structures.insert(QStringLiteral("sliding-window ") + QString::fromUtf8(window));
        planted.structureKeys << window << window + ":retry";
    }
    for (int i = 0; i < 6; ++i) { // fixed windows
        const QByteArray counter = p + "throttle:login:" + num(i);
        for (int n = 0; n < 2; ++n) {
            if (eval(client, "fixed_window", {counter}, {"5", "600000"}).isError())
                return false;
        }
        planted.structures.insert(QStringLiteral("fixed-window ") + QString::fromUtf8(counter));
        planted.structureKeys << counter;
    }
    for (int i = 0; i < 5; ++i) { // locks
        const QByteArray lock = p + "lock:order:" + num(i);
        if (eval(client, "lock_acquire", {lock},
                 {QUuid::createUuid().toByteArray(QUuid::WithoutBraces), "600000"})
                .toInteger()
            != 1)
            return false;
        planted.structures.insert(QStringLiteral("lock ") + QString::fromUtf8(lock));
        planted.structureKeys << lock;
    }
    // Locks whose holders write no random token: an integer, JSON, one name.
    const QList<QByteArray> holders{"7", "{\"owner\":\"w-3\",\"ts\":1763800000000}", "tok"};
    for (int i = 0; i < int(holders.size()); ++i) {
        const QByteArray lock = p + "lock:job:" + num(i);
        if (eval(client, "lock_acquire", {lock}, {holders.at(i), "600000"}).toInteger() != 1)
            return false;
        planted.structures.insert(QStringLiteral("lock ") + QString::fromUtf8(lock));
        planted.structureKeys << lock;
    }
    for (int i = 0; i < 8; ++i) { // one-time codes with a six-character suffix
        const QByteArray code = p + "otp:" + hexId(rng, 6);
        if (eval(client, "token_issue", {code}, {"{\"user\":7}", "300"}).isError())
            return false;
        planted.structureKeys << code;
    }
    planted.structures.insert(QStringLiteral("token-family ") + QString::fromUtf8(p + "otp:"));
    const QByteArray queue = p + "jobs:email"; // a queue with two jobs in flight
    if (call(client, {"LPUSH", queue, "j1", "j2", "j3", "j4", "j5"}).isError())
        return false;
    for (int n = 0; n < 2; ++n) {
        if (eval(client, "queue_claim", {queue, queue + ":processing", queue + ":claims"}, {""})
                .isError())
            return false;
    }
    planted.structures.insert(QStringLiteral("reliable-queue ") + QString::fromUtf8(queue));
    planted.structureKeys << queue << queue + ":processing" << queue + ":claims";
    // A stream read by a consumer group, one entry pending (beside the
    // ordinary event streams, which have no group).
    const QByteArray stream = p + "orders:stream";
    for (const QList<QByteArray> &c : QList<QList<QByteArray>>{
             {"XADD", stream, "*", "order", "1"},
             {"XADD", stream, "*", "order", "2"},
             {"XGROUP", "CREATE", stream, "billing", "0"},
             {"XREADGROUP", "GROUP", "billing", "w1", "COUNT", "1", "STREAMS", stream, ">"}}) {
        if (call(client, c).isError())
            return false;
    }
    planted.structures.insert(QStringLiteral("stream-group ") + QString::fromUtf8(stream));
    planted.structureKeys << stream;
    // A bee-queue queue as its own scripts leave it (bee-queue 2.0.0's
    // lib/lua/addJob.lua, a worker's BRPOPLPUSH): three jobs, two waiting,
    // one active (no set: largeFamiliesJudgedOnTheirFirstKeys counts SCARDs).
    const QByteArray bee = p + "bq:mail";
    for (int id = 1; id <= 3; ++id) {
        const QByteArray n = QByteArray::number(id);
        if (call(client, {"INCR", bee + ":id"}).isError()
            || call(client, {"HSET", bee + ":jobs", n,
                             "{\"data\":{\"n\":" + n
                                 + "},\"options\":{\"timestamp\":1700000000000},"
                                   "\"status\":\"created\"}"})
                   .isError()
            || call(client, {"LPUSH", bee + ":waiting", n}).isError())
            return false;
    }
    if (call(client, {"LMOVE", bee + ":waiting", bee + ":active", "RIGHT", "LEFT"}).isError())
        return false;
    planted.structures.insert(QStringLiteral("bee-queue ") + QString::fromUtf8(bee));
    planted.structureKeys << bee + ":id" << bee + ":jobs" << bee + ":waiting" << bee + ":active";
    // A Resque namespace as node-resque 9 writes it (Queue#enqueue, a
    // worker's failure and counters): a queue, a failure, the stats.
    const QByteArray ns = p + "resque:";
    const QByteArray job = R"({"class":"Mail","queue":"mail","args":[7]})";
    for (const QList<QByteArray> &c : QList<QList<QByteArray>>{
             {"SADD", ns + "queues", "mail"},
             {"RPUSH", ns + "queue:mail", job},
             {"RPUSH", ns + "failed",
              R"({"worker":"h:1","queue":"mail","payload":)" + job
                  + R"(,"exception":"Error","error":"x","backtrace":[],"failed_at":"now"})"},
             {"INCR", ns + "stat:failed"},
             {"INCR", ns + "stat:processed"}}) {
        if (call(client, c).isError())
            return false;
    }
    planted.structures.insert(QStringLiteral("resque ") + QString::fromUtf8(ns + "queues"));
    planted.structureKeys << ns + "queues" << ns + "queue:mail" << ns + "failed"
                          << ns + "stat:failed" << ns + "stat:processed";
    // A Laravel queue as illuminate/queue 8.83's RedisQueue leaves it (push:
    // RPUSH the payload and a notification; pop: the payload, its attempts
    // counted, into :reserved scored by its expiry in s).
    const QByteArray laravel = p + "queues:default";
    const QByteArray payload = "{\"uuid\":\"6f1c\",\"displayName\":\"App\\\\Jobs\\\\Mail\","
                               "\"job\":\"Illuminate\\\\Queue\\\\CallQueuedHandler@call\","
                               "\"data\":{},\"id\":\"";
    const QByteArray expiry = QByteArray::number(QDateTime::currentSecsSinceEpoch() + 90);
    for (const QList<QByteArray> &c : QList<QList<QByteArray>>{
             {"RPUSH", laravel, payload + "j1\",\"attempts\":0}", payload + "j2\",\"attempts\":0}"},
             {"RPUSH", laravel + ":notify", "1", "1"},
             {"ZADD", laravel + ":reserved", expiry, payload + "j3\",\"attempts\":1}"}}) {
        if (call(client, c).isError())
            return false;
    }
    planted.structures.insert(QStringLiteral("laravel-queue ") + QString::fromUtf8(laravel));
    planted.structureKeys << laravel << laravel + ":notify" << laravel + ":reserved";
    // Laravel Horizon beside it under its default prefix ("<app>_horizon:"),
    // as Horizon 5 writes its jobs (libplanting.h): j1 pending, a job
    // completed and one failed; no supervisor (its heartbeat would go quiet
    // and its hash expire within a slow run).
    const QByteArray horizon = (p.isEmpty() ? QByteArray("laravel") : p.chopped(1)) + "_horizon:";
    QList<gatehouse::test::LibraryObject> objects;
    if (!gatehouse::test::plantHorizon(client, horizon, "default", "j1", false, objects).isEmpty())
        return false;
    planted.structures.insert(QStringLiteral("laravel-horizon ") + QString::fromUtf8(horizon));
    const RedisValue written
        = call(client, {"SCAN", "0", "MATCH", horizon + '*', "COUNT", "1000000"});
    if (written.at(0).bytes() != "0")
        return false;
    for (const RedisValue &k : written.at(1).elements())
        planted.structureKeys << k.bytes();
    // Symfony Messenger's Redis transport as 5.4's Connection leaves it
    // (setup: XGROUP CREATE ... MKSTREAM; add: XADD of {body, headers}, or a
    // delayed one ZADD NX to "<stream>__queue" scored by its due time in ms
    // with a uniqid): one message queued, one delayed ten minutes.
    const QByteArray messages = p + "messages";
    const QByteArray body = "{\"body\":\"{\\\"to\\\":\\\"ada\\\"}\",\"headers\":[]";
    for (const QList<QByteArray> &c :
         QList<QList<QByteArray>>{{"XGROUP", "CREATE", messages, "symfony", "0", "MKSTREAM"},
                                  {"XADD", messages, "*", "message", body + '}'},
                                  {"ZADD", messages + "__queue", "NX",
                                   QByteArray::number(QDateTime::currentMSecsSinceEpoch() + 600000),
                                   body + ",\"uniqid\":\"6743a1f2c3b4d5.12345678\"}"}}) {
        if (call(client, c).isError())
            return false;
    }
    planted.structures << QStringLiteral("stream-group ") + QString::fromUtf8(messages)
                       << QStringLiteral("symfony-delayed ") + QString::fromUtf8(messages)
                              + QStringLiteral("__queue");
    planted.structureKeys << messages << messages + "__queue";
    return true;
}

// The job libraries that cannot be installed here, laid out as their own
// scripts write them (tst_lib_asynq and tst_lib_dramatiq cite the sources):
// an asynq queue with a task active under a lease, a Dramatiq queue with a
// message fetched by a worker.
bool plantLibraryQueues(RedisClient &client, qint64 nowMs, Planted &planted)
{
    const QByteArray a = "asynq:{mail}:";
    // TaskMessage: type "send", id "a1", queue "mail" (protobuf fields 1, 3, 4).
    const QByteArray msg = "\x0a\x04"
                           "send"
                           "\x1a\x02"
                           "a1"
                           "\x22\x04"
                           "mail";
    const QByteArray d
        = R"({"queue_name":"mail","actor_name":"send","args":[],"kwargs":{},)"
          R"("options":{"redis_message_id":"%1"},"message_id":"m","message_timestamp":1})";
    const QList<QList<QByteArray>> cmds{
        {"SADD", "asynq:queues", "mail"},
        {"HSET", a + "t:a1", "msg", msg, "state", "active"},
        {"HSET", a + "t:a2", "msg", msg, "state", "pending", "pending_since", "1"},
        {"LPUSH", a + "pending", "a2"},
        {"LPUSH", a + "active", "a1"},
        {"ZADD", a + "lease", num(nowMs / 1000 + 600), "a1"},
        {"ZADD", "dramatiq:__heartbeats__", num(nowMs), "w1"},
        {"HSET", "dramatiq:mail.msgs", "d1", QByteArray(d).replace("%1", "d1"), "d2",
         QByteArray(d).replace("%1", "d2")},
        {"RPUSH", "dramatiq:mail", "d2"},
        {"SADD", "dramatiq:__acks__.w1.mail", "d1"}};
    for (const QList<QByteArray> &c : cmds) {
        if (call(client, c).isError())
            return false;
    }
    planted.structures << QStringLiteral("asynq asynq:{mail}:pending")
                       << QStringLiteral("dramatiq dramatiq:mail");
    planted.structureKeys << "asynq:queues" << a + "t:a1" << a + "t:a2" << a + "pending"
                          << a + "active" << a + "lease"
                          << "dramatiq:__heartbeats__"
                          << "dramatiq:mail.msgs"
                          << "dramatiq:mail"
                          << "dramatiq:__acks__.w1.mail";
    return true;
}

// The limiter libraries' own state, by their own code: Python limits (a
// fixed and a moving window of ten minutes) and a redis-semaphore holder of
// a ten-minute lock timeout, killed once it holds.
bool plantLibraries(const QString &url, Planted &planted)
{
    const QString dir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
    for (const QString &strategy : {QStringLiteral("fixed"), QStringLiteral("moving")}) {
        const QString who
            = strategy == QLatin1String("fixed") ? QStringLiteral("alice") : QStringLiteral("bob");
        if (QProcess::execute(QStringLiteral("/usr/bin/python3"),
                              {dir + QStringLiteral("/limits_app.py"), url, QStringLiteral("hit"),
                               strategy, QStringLiteral("5 per 10 minute"), QStringLiteral("3"),
                               QStringLiteral("api"), who})
            != 0)
            return false;
        const QByteArray key = "LIMITER/api/" + who.toUtf8() + "/5/10/minute";
        planted.structures.insert(QStringLiteral("python-limits ") + QString::fromUtf8(key));
        planted.structureKeys << key;
    }
    QProcess holder;
    holder.start(QStringLiteral("node"),
                 {dir + QStringLiteral("/semaphore-app.js"), url, QStringLiteral("hold"),
                  QStringLiteral("reports"), QStringLiteral("3"), QStringLiteral("0"),
                  QStringLiteral("600000")});
    const bool held = holder.waitForReadyRead(60000) && !holder.readLine().trimmed().isEmpty();
    holder.kill();
    holder.waitForFinished(10000);
    planted.structures.insert(QStringLiteral("redis-semaphore semaphore:reports"));
    planted.structureKeys << "semaphore:reports";
    return held;
}

} // namespace

class tst_MixedKeyspace : public QObject
{
    Q_OBJECT

private:
    gatehouse::test::RedisServer m_server{gatehouse::test::RedisServer::Options{}};
    std::unique_ptr<RedisClient> m_client;
    Planted m_planted;
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
        QElapsedTimer fill;
        fill.start();
        const qint64 now = serverTimeMs(call(*m_client, {"TIME"}));
        // Three applications: prefixes of ':' and '/', different seeds and scales.
        const QList<App> apps{{"shop:", 11, 54000}, {"", 23, 27000}, {"blog/", 37, 9000}};
        QList<QList<QByteArray>> cmds;
        for (const App &app : apps)
            ordinaryKeys(app, now, cmds, m_planted);
        QString error;
        QVERIFY2(run(*m_client, cmds, &error), qPrintable(error));
        for (const App &app : apps)
            QVERIFY(plantStructures(*m_client, app, m_planted));
        QVERIFY(plantLibraryQueues(*m_client, now, m_planted));
        QVERIFY(plantLibraries(m_server.url(), m_planted));
        const qint64 dbsize = call(*m_client, {"DBSIZE"}).toInteger();
        QCOMPARE(dbsize, qint64(m_planted.ordinaryKeys.size() + m_planted.structureKeys.size()));
        QVERIFY(m_planted.ordinaryKeys.size() >= 85000);
        qInfo("filled %lld keys (%lld ordinary, %lld structures) in %lld ms", dbsize,
              qint64(m_planted.ordinaryKeys.size()), qint64(m_planted.structures.size()),
              fill.elapsed());
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(gatehouse::test::RedisServer::runningChildren(), 0);
    }

    // Recall 100 %: every planted structure shown, with its reasons; at most
    // 0.1 % of the ordinary keys in a shown structure; the rest summarised.
    void structuresFoundOrdinaryKeysNot()
    {
        QElapsedTimer clock;
        clock.start();
        Discovery discovery(m_client.get(), std::nullopt);
        QSignalSpy finished(&discovery, &Discovery::finished);
        discovery.start();
        QVERIFY(finished.wait(60000));
        qInfo("autodetection of %lld keys: %lld ms", discovery.scannedKeys(), clock.elapsed());

        QSet<QString> shown;
        QStringList falseStructures;
        qint64 ordinaryShown = 0;
        for (const PatternObject &o : discovery.objects()) {
            const QString id = o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
            shown.insert(id);
            QVERIFY2(!o.evidence.isEmpty(), qPrintable(id));
            QVERIFY2(evidenceScore(o.evidence) >= AutoDetector::Threshold, qPrintable(id));
            qint64 ordinary = 0;
            for (const QByteArray &k : o.keys())
                ordinary += m_planted.ordinaryKeys.contains(k);
            if (ordinary > 0)
                falseStructures << QStringLiteral("%1 (%2 ordinary keys)").arg(id).arg(ordinary);
            ordinaryShown += ordinary;
        }
        for (const QString &s : std::as_const(m_planted.structures))
            QVERIFY2(shown.contains(s), qPrintable(QStringLiteral("not shown: ") + s));
        const qint64 ordinaryKeys = m_planted.ordinaryKeys.size();
        qInfo("shown: %lld objects; ordinary keys shown as structures: %lld of %lld",
              qint64(shown.size()), ordinaryShown, ordinaryKeys);
        QVERIFY2(ordinaryShown * 1000 <= ordinaryKeys,
                 qPrintable(falseStructures.mid(0, 20).join(QLatin1Char('\n'))));
        // The codes' family holds every code, whatever its six characters.
        for (const PatternObject &o : discovery.objects()) {
            if (o.kind.id() == QLatin1String("token-family"))
                QCOMPARE(o.members.size(), 8);
        }

        // The ordinary keys are seen, summarised by family, not lost.
        qint64 otherKeys = 0;
        QHash<QString, qint64> byKind;
        for (const OtherFamily &f : discovery.otherFamilies()) {
            otherKeys += f.keys;
            byKind[f.kind] += f.keys;
            QVERIFY(!f.sampleKeys.isEmpty());
        }
        qint64 candidateKeys = 0;
        for (const Candidate &c : discovery.candidates()) {
            QVERIFY(c.score > 0 && c.score < AutoDetector::Threshold);
            candidateKeys += c.keys;
        }
        qInfo("other: %lld keys in %lld families; candidates: %lld families", otherKeys,
              qint64(discovery.otherFamilies().size()), qint64(discovery.candidates().size()));
        QVERIFY(otherKeys + candidateKeys + ordinaryShown >= ordinaryKeys * 99 / 100);
        for (const char *kind : {"cache", "page-cache", "session", "dated-counter", "timeline",
                                 "leaderboard", "flag", "log", "counter"})
            QVERIFY2(byKind.value(QLatin1String(kind)) > 0, kind);
        // Families at scale: a few hundred rows, not tens of thousands.
        QVERIFY(discovery.otherFamilies().size() < 200);
    }

    // snapshot --json at this scale: each section cut to --limit with totals,
    // the evidence of each shown object, the candidates and other keys.
    void snapshotJsonWithLimit()
    {
        const gatehouse::test::CliRun run = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            {QStringLiteral("--url"), m_server.url(), QStringLiteral("snapshot"),
             QStringLiteral("--json"), QStringLiteral("--limit"), QStringLiteral("3")},
            {}, 90000);
        QCOMPARE(run.exitCode, 0);
        QJsonParseError error;
        const QJsonObject s = QJsonDocument::fromJson(run.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const QJsonObject totals = s.value(QLatin1String("totals")).toObject();
        QCOMPARE(totals.value(QLatin1String("limiters")).toInt(), 38); // 18 + 18 + 2 (limits)
        QCOMPARE(totals.value(QLatin1String("locks")).toInt(), 24);    // 15 + 9
        QCOMPARE(totals.value(QLatin1String("tokens")).toInt(), 3);
        // 3 lists + 3 streams + an asynq and a Dramatiq queue + 3 bee-queue
        // queues + 3 Resque deployments + 3 Laravel queues + 3 Horizons + 3
        // Symfony Messenger transports (a stream and a delayed set each)
        QCOMPARE(totals.value(QLatin1String("queues")).toInt(), 26);
        QCOMPARE(s.value(QLatin1String("limiters")).toArray().size(), 3);
        QCOMPARE(s.value(QLatin1String("limit")).toInt(), 3);
        for (const QJsonValue &v : s.value(QLatin1String("limiters")).toArray()) {
            const QJsonArray evidence = v.toObject().value(QLatin1String("evidence")).toArray();
            QVERIFY(!evidence.isEmpty());
            QVERIFY(
                !evidence.first().toObject().value(QLatin1String("reason")).toString().isEmpty());
        }
        QVERIFY(s.value(QLatin1String("candidates")).isArray());
        QVERIFY(totals.value(QLatin1String("candidates")).toInt() > 0);
        QCOMPARE(s.value(QLatin1String("other")).toArray().size(), 3);
        QVERIFY(totals.value(QLatin1String("otherKeys")).toDouble() > 80000);
        const QJsonObject biggest = s.value(QLatin1String("other")).toArray().first().toObject();
        QVERIFY(biggest.value(QLatin1String("keys")).toDouble() > 1000);
        QVERIFY(biggest.value(QLatin1String("estimatedBytes")).toDouble() > 0);
    }

    // A large family is judged on its first keys: once they are all
    // ordinary, its other keys are only counted (TYPE), not read (no PTTL,
    // no value), and every key still counts in its family. A key of another
    // TYPE in a settled family is read whole. (Runs last: it adds a key.)
    void largeFamiliesJudgedOnTheirFirstKeys()
    {
        // A set named like the per-user caches; the only other sets here are
        // asynq:queues, a Dramatiq ack set and the three Resque deployments'
        // "queues", so six SCARDs say it was read.
        call(*m_client, {"SADD", "shop:cache:user:999999", "odd"});
        const qint64 cacheKeys
            = std::count_if(m_planted.ordinaryKeys.cbegin(), m_planted.ordinaryKeys.cend(),
                            [](const QByteArray &k) { return k.startsWith("shop:cache:user:"); });
        call(*m_client, {"CONFIG", "RESETSTAT"});
        Discovery discovery(m_client.get(), std::nullopt);
        discovery.setScanCount(200); // at most a few pages read whole before a verdict
        QSignalSpy finished(&discovery, &Discovery::finished);
        discovery.start();
        QVERIFY(finished.wait(60000));
        const qint64 dbsize = call(*m_client, {"DBSIZE"}).toInteger();
        QCOMPARE(discovery.scannedKeys(), dbsize);
        const qint64 types = commandCalls("type");
        const qint64 pttls = commandCalls("pttl");
        const qint64 getranges = commandCalls("getrange");
        qInfo("%lld keys: TYPE %lld, PTTL %lld, GETRANGE %lld", dbsize, types, pttls, getranges);
        QCOMPARE(types, dbsize);
        QVERIFY2(pttls * 2 < dbsize, "most keys are in large ordinary families: counted only");
        QVERIFY(getranges * 2 < dbsize);
        QCOMPARE(commandCalls("scard"), 6);

        bool found = false;
        for (const OtherFamily &f : discovery.otherFamilies()) {
            if (f.family != "shop:cache:user:{int}")
                continue;
            found = true;
            // Every key counted (the set too), only the first read.
            QCOMPARE(f.keys, cacheKeys + 1);
            QVERIFY2(f.keysRead < f.keys / 2, qPrintable(QString::number(f.keysRead)));
            QVERIFY(f.keysRead >= AutoDetector::SettleSample);
            // Every cache key expires: estimated from the keys read, of which
            // the set (no TTL) is one.
            QVERIFY2(f.withTtl <= f.keys && f.withTtl >= f.keys - f.keys / f.keysRead - 2,
                     qPrintable(QStringLiteral("%1 of %2 with a TTL, %3 read")
                                    .arg(f.withTtl)
                                    .arg(f.keys)
                                    .arg(f.keysRead)));
            QVERIFY(f.minTtlMs > 0 && f.maxTtlMs <= 3600 * 1000);
            QCOMPARE(f.type, QByteArray("string"));
        }
        QVERIFY(found);
        // Recall is unchanged by it (structuresFoundOrdinaryKeysNot ran with
        // the same rule); the structures are all here again.
        QSet<QString> shown;
        for (const PatternObject &o : discovery.objects())
            shown.insert(o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key));
        for (const QString &s : std::as_const(m_planted.structures))
            QVERIFY2(shown.contains(s), qPrintable(QStringLiteral("not shown: ") + s));
    }

    // A family of bare lists (each could be a queue whose processing list is
    // in another family) is settled on its first keys like any other: its
    // later lists cost a TYPE each, and only one whose name a processing
    // list extends is read whole at the end of the scan, so that queue is
    // still shown, and shown without a queue word in its name (its 3,000
    // siblings count as lists alike). (Runs last: it adds keys.)
    void bareListFamiliesSettleUnlessAPartnerTurnsUp()
    {
        constexpr int lists = 3000;
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < lists; ++i)
            cmds.append({"RPUSH", "spool:" + num(i), "a", "b"});
        cmds.append({"RPUSH", "spool:2900:processing", "b"});
        QString error;
        QVERIFY2(run(*m_client, cmds, &error), qPrintable(error));
        call(*m_client, {"CONFIG", "RESETSTAT"});
        Discovery discovery(m_client.get(), std::nullopt);
        discovery.setScanCount(200);
        QSignalSpy finished(&discovery, &Discovery::finished);
        discovery.start();
        QVERIFY(finished.wait(60000));
        const qint64 lens = commandCalls("llen");
        qInfo("LLEN %lld for %d bare lists and the rest of the keyspace's lists", lens, lists);
        QVERIFY2(lens < lists / 2, "the spool lists are counted by TYPE, not read");

        const auto shown = discovery.objects();
        const auto queue = std::find_if(shown.cbegin(), shown.cend(), [](const PatternObject &o) {
            return o.key == "spool:2900";
        });
        QVERIFY2(queue != shown.cend(), "the queue whose processing list turned up is shown");
        QCOMPARE(queue->kind.id(), QStringLiteral("reliable-queue"));
        QCOMPARE(queue->relatedKey(0), QByteArray("spool:2900:processing"));
        bool found = false;
        for (const OtherFamily &f : discovery.otherFamilies()) {
            if (f.family != "spool:{int}")
                continue;
            found = true;
            QCOMPARE(f.keys, lists); // every list counted once
            QVERIFY2(f.keysRead < lists / 2, qPrintable(QString::number(f.keysRead)));
        }
        QVERIFY(found);
        for (const QString &s : std::as_const(m_planted.structures)) {
            QVERIFY2(std::any_of(shown.cbegin(), shown.cend(),
                                 [&s](const PatternObject &o) {
                                     return o.kind.id() + QLatin1Char(' ')
                                                + QString::fromUtf8(o.key)
                                            == s;
                                 }),
                     qPrintable(QStringLiteral("not shown: ") + s));
        }
    }

private:
    qint64 commandCalls(const char *command)
    {
        const QByteArray info = call(*m_client, {"INFO", "commandstats"}).bytes();
        const QByteArray tag = QByteArray("cmdstat_") + command + ":calls=";
        const qsizetype at = info.indexOf(tag);
        if (at < 0)
            return 0;
        const qsizetype from = at + tag.size();
        return info.mid(from, info.indexOf(',', from) - from).toLongLong();
    }
};

QTEST_GUILESS_MAIN(tst_MixedKeyspace)
#include "tst_mixedkeyspace.moc"
