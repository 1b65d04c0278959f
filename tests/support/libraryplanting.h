// SPDX-License-Identifier: MIT
#pragma once
// The state of libraries that cannot be installed here, written the way
// their own code writes it (used by tst_lib_asynq, tst_lib_dramatiq and
// tst_librarybrowsergui).
//
// asynq:
// asynq (Go, github.com/hibiken/asynq) cannot be installed here, so its
// state is written by AsynqState below, command for command as asynq
// v0.25.1 writes it (read from its source, not run):
//   internal/base/base.go   key names (QueueKeyPrefix .. FailedKey, lines 105-186)
//   internal/rdb/rdb.go     Enqueue: SADD asynq:queues + enqueueCmd (98-140),
//                           Dequeue: dequeueCmd (227-242), Done: doneCmd (285-316),
//                           MarkAsComplete: markAsCompleteCmd (382-417),
//                           Schedule: scheduleCmd (647-656), Retry: retryCmd (772-802),
//                           Archive: archiveCmd (861-904), WriteServerState (1379-1414)
//   internal/proto/asynq.proto  TaskMessage's field numbers (the "msg" field)
// A worker "killed mid-task" is a task Dequeue moved to active whose lease
// nobody extends (the server's heartbeater stops with its process). The
// counts are compared with what asynq's Inspector.GetQueueInfo reads
// (currentStatsCmd in internal/rdb/inspect.go, lines 80-137: LLEN/ZCARD of
// each state, GET of the day's and the total counters), read here with the
// same commands.
//
// Dramatiq:
// Dramatiq's Redis broker cannot be installed here, so its state is written
// by DramatiqState below, command for command as Dramatiq 1.17.1's
// dramatiq/brokers/redis/dispatch.lua writes it (read from its source, not
// run): every call ZADDs the caller's id to "<ns>:__heartbeats__" with the
// time in ms (lines 54-56); "enqueue" HSETs "<q>.msgs" and RPUSHes "<q>"
// (151-157); "fetch" LPOPs ids and SADDs them to
// "<ns>:__acks__.<worker>.<q>" (160-177); "ack" SREMs and HDELs (194-200);
// "nack" SREMs, ZADDs "<q>.XQ" and moves the message to "<q>.XQ.msgs"
// (203-215). The messages are Message.encode's JSON (dramatiq/message.py)
// with the broker's "redis_message_id" option (brokers/redis.py, enqueue,
// lines 154-188; a delayed message goes to "<q>.DQ" with an "eta"). A
// worker "killed mid-message" is one whose heartbeat stopped with messages
// in its ack set; dispatch.lua's maintenance (114-146) is the rule that
// makes them orphans.
//
// Laravel Horizon:
// Horizon 5 is not in Debian: HorizonState writes its bookkeeping as
// laravel/horizon v5.29.1 writes it (the planting of tst_lib_laravel's
// horizonBesideItsQueue): src/Repositories/RedisJobRepository.php pushed,
// completed and failed ZADD the job id to their sets scored by minus the
// microtime (storeJobReference), HMSET the job hash (id, connection, queue,
// name, status, payload, created_at; failed: exception, context,
// failed_at) and EXPIREAT it.

#include "redisserver.h"

#include <redis/redisclient.h>

#include <QByteArray>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <memory>

namespace gatehouse::test {

// protobuf wire format: a varint, and a field of either kind.
QByteArray varint(quint64 v);
QByteArray field(int number, const QByteArray &bytes);
QByteArray field(int number, qint64 v);
// asynq's TaskMessage (asynq.proto: type 1, payload 2, id 3, queue 4,
// retry 5, retried 6, timeout 8).
QByteArray taskMessage(const QByteArray &id, const QByteArray &queue, const QByteArray &type);

struct AsynqState
{
    RedisServer server;
    std::unique_ptr<RedisClient> client;
    qint64 now = 0; // server time, s

    bool start()
    {
        if (!server.start())
            return false;
        client = gatehouse::test::connectedClient(server);
        if (!client)
            return false;
        now = call({"TIME"}).at(0).bytes().toLongLong();
        return true;
    }
    RedisValue call(const QList<QByteArray> &command)
    {
        return gatehouse::test::call(*client, command);
    }
    static QByteArray q(const QByteArray &queue) { return "asynq:{" + queue + "}:"; }
    QByteArray day() const
    {
        return QDateTime::fromSecsSinceEpoch(now, Qt::UTC)
            .toString(QStringLiteral("yyyy-MM-dd"))
            .toLatin1();
    }
    // RDB.Enqueue
    void enqueue(const QByteArray &queue, const QByteArray &id)
    {
        call({"SADD", "asynq:queues", queue});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "email:send"), "state",
              "pending", "pending_since", QByteArray::number(now * 1000000000LL)});
        call({"LPUSH", q(queue) + "pending", id});
    }
    // RDB.Dequeue: the lease runs 30 s from the dequeue (rdb.LeaseDuration).
    QByteArray dequeue(const QByteArray &queue, qint64 leaseExpiry)
    {
        const QByteArray id
            = call({"RPOPLPUSH", q(queue) + "pending", q(queue) + "active"}).bytes();
        call({"HSET", q(queue) + "t:" + id, "state", "active"});
        call({"HDEL", q(queue) + "t:" + id, "pending_since"});
        call({"ZADD", q(queue) + "lease", QByteArray::number(leaseExpiry), id});
        return id;
    }
    void stats(const QByteArray &queue, bool failed)
    {
        const QByteArray expireAt = QByteArray::number(now + 90 * 24 * 3600);
        for (const QByteArray &k :
             failed ? QList<QByteArray>{"processed", "failed"} : QList<QByteArray>{"processed"}) {
            if (call({"INCR", q(queue) + k + ":" + day()}).toInteger() == 1)
                call({"EXPIREAT", q(queue) + k + ":" + day(), expireAt});
            call({"INCR", q(queue) + k});
        }
    }
    void leave(const QByteArray &queue, const QByteArray &id)
    {
        call({"LREM", q(queue) + "active", "0", id});
        call({"ZREM", q(queue) + "lease", id});
    }
    // RDB.Done (no retention: the task hash is deleted)
    void done(const QByteArray &queue, const QByteArray &id)
    {
        leave(queue, id);
        call({"DEL", q(queue) + "t:" + id});
        stats(queue, false);
    }
    // RDB.MarkAsComplete (with retention)
    void complete(const QByteArray &queue, const QByteArray &id)
    {
        leave(queue, id);
        call({"ZADD", q(queue) + "completed", QByteArray::number(now + 3600), id});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "email:send"), "state",
              "completed"});
        stats(queue, false);
    }
    // RDB.Retry (a failure)
    void retry(const QByteArray &queue, const QByteArray &id)
    {
        leave(queue, id);
        call({"ZADD", q(queue) + "retry", QByteArray::number(now + 60), id});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "email:send"), "state",
              "retry"});
        stats(queue, true);
    }
    // RDB.Archive
    void archive(const QByteArray &queue, const QByteArray &id)
    {
        leave(queue, id);
        call({"ZADD", q(queue) + "archived", QByteArray::number(now), id});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "email:send"), "state",
              "archived"});
        stats(queue, true);
    }
    // RDB.Schedule
    void schedule(const QByteArray &queue, const QByteArray &id)
    {
        call({"SADD", "asynq:queues", queue});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "report:daily"), "state",
              "scheduled"});
        call({"ZADD", q(queue) + "scheduled", QByteArray::number(now + 3600), id});
    }
    // RDB.WriteServerState: info and workers expire with the TTL (s).
    void writeServerState(const QByteArray &name, qint64 ttl)
    {
        const QByteArray skey = "asynq:servers:{" + name + "}";
        const QByteArray wkey = "asynq:workers:{" + name + "}";
        call({"ZADD", "asynq:servers", QByteArray::number(now + ttl), skey});
        call({"ZADD", "asynq:workers", QByteArray::number(now + ttl), wkey});
        call({"SETEX", skey, QByteArray::number(ttl), field(1, QByteArray("host"))});
        call({"HSET", wkey, "w1", field(1, QByteArray("host"))});
        call({"EXPIRE", wkey, QByteArray::number(ttl)});
    }
    // What Inspector.GetQueueInfo reads (currentStatsCmd), by its field names.
    QJsonObject queueInfo(const QByteArray &queue)
    {
        auto n = [this](const QList<QByteArray> &c) {
            return double(call(c).toInteger());
        };
        auto g = [this](const QByteArray &k) {
            const RedisValue v = call({"GET", k});
            return v.isNil() ? 0.0 : v.bytes().toDouble();
        };
        return {{QStringLiteral("pending"), n({"LLEN", q(queue) + "pending"})},
                {QStringLiteral("active"), n({"LLEN", q(queue) + "active"})},
                {QStringLiteral("scheduled"), n({"ZCARD", q(queue) + "scheduled"})},
                {QStringLiteral("retry"), n({"ZCARD", q(queue) + "retry"})},
                {QStringLiteral("archived"), n({"ZCARD", q(queue) + "archived"})},
                {QStringLiteral("completed"), n({"ZCARD", q(queue) + "completed"})},
                {QStringLiteral("processed"), g(q(queue) + "processed:" + day())},
                {QStringLiteral("failed"), g(q(queue) + "failed:" + day())},
                {QStringLiteral("processedTotal"), g(q(queue) + "processed")},
                {QStringLiteral("failedTotal"), g(q(queue) + "failed")}};
    }
    // The default queue: 2 done, 1 completed, 1 retried, 1 archived, 1
    // scheduled, 3 pending, and 2 active: "live" (lease ahead) and
    // "killed-1" (its worker was killed: lease expired 90 s ago).
    void populate()
    {
        for (const char *id : {"done-1", "done-2", "completed-1", "retry-1", "archived-1",
                               "killed-1", "live-1", "pending-1", "pending-2", "pending-3"})
            enqueue("default", id);
        done("default", dequeue("default", now + 30));
        done("default", dequeue("default", now + 30));
        complete("default", dequeue("default", now + 30));
        retry("default", dequeue("default", now + 30));
        archive("default", dequeue("default", now + 30));
        QCOMPARE(dequeue("default", now - 90), QByteArray("killed-1"));
        QCOMPARE(dequeue("default", now + 25), QByteArray("live-1"));
        schedule("default", "scheduled-1");
        enqueue("critical", "crit-1");
        writeServerState("host:4242:srv-a", 16);
    }
};

struct DramatiqState
{
    RedisServer server;
    std::unique_ptr<RedisClient> client;
    qint64 nowMs = 0; // server time

    bool start()
    {
        if (!server.start())
            return false;
        client = gatehouse::test::connectedClient(server);
        if (!client)
            return false;
        const RedisValue t = call({"TIME"});
        nowMs = t.at(0).bytes().toLongLong() * 1000 + t.at(1).bytes().toLongLong() / 1000;
        return true;
    }
    RedisValue call(const QList<QByteArray> &command)
    {
        return gatehouse::test::call(*client, command);
    }
    void beat(const QByteArray &worker, qint64 atMs)
    {
        call({"ZADD", "dramatiq:__heartbeats__", QByteArray::number(atMs), worker});
    }
    // sentAtMs: when the message was made (Message.message_timestamp).
    static QByteArray message(const QByteArray &rid, const QByteArray &queue, qint64 eta,
                              qint64 sentAtMs)
    {
        QJsonObject options{{QStringLiteral("redis_message_id"), QString::fromUtf8(rid)}};
        if (eta >= 0)
            options.insert(QStringLiteral("eta"), double(eta));
        QJsonObject m;
        m.insert(QStringLiteral("queue_name"), QString::fromUtf8(queue));
        m.insert(QStringLiteral("actor_name"), QStringLiteral("send_email"));
        m.insert(QStringLiteral("args"), QJsonArray{42});
        m.insert(QStringLiteral("kwargs"), QJsonObject());
        m.insert(QStringLiteral("options"), options);
        m.insert(QStringLiteral("message_id"),
                 QString(QStringLiteral("msg-") + QString::fromUtf8(rid)));
        m.insert(QStringLiteral("message_timestamp"), double(sentAtMs));
        return QJsonDocument(m).toJson(QJsonDocument::Compact);
    }
    // A message sent at sentAtMs (now by default).
    void enqueue(const QByteArray &rid, bool delayed = false, qint64 sentAtMs = -1)
    {
        const QByteArray queue = delayed ? "default.DQ" : "default";
        beat("producer-1", nowMs);
        call({"HSET", "dramatiq:" + queue + ".msgs", rid,
              message(rid, queue, delayed ? nowMs + 3600000 : -1,
                      sentAtMs >= 0 ? sentAtMs : nowMs)});
        call({"RPUSH", "dramatiq:" + queue, rid});
    }
    QList<QByteArray> fetch(const QByteArray &worker, const QByteArray &queue, int n, qint64 atMs)
    {
        beat(worker, atMs);
        QList<QByteArray> ids;
        for (int i = 0; i < n; ++i) {
            const RedisValue id = call({"LPOP", "dramatiq:" + queue});
            if (id.isNil())
                break;
            ids << id.bytes();
            call({"SADD", "dramatiq:__acks__." + worker + "." + queue, id.bytes()});
        }
        return ids;
    }
    void nack(const QByteArray &worker, const QByteArray &id)
    {
        beat(worker, nowMs);
        if (call({"SREM", "dramatiq:__acks__." + worker + ".default", id}).toInteger() > 0) {
            const QByteArray m = call({"HGET", "dramatiq:default.msgs", id}).bytes();
            call({"ZADD", "dramatiq:default.XQ", QByteArray::number(nowMs), id});
            call({"HSET", "dramatiq:default.XQ.msgs", id, m});
            call({"HDEL", "dramatiq:default.msgs", id});
        }
    }
    QList<QByteArray> list(const QByteArray &key)
    {
        QList<QByteArray> out;
        const RedisValue range = call({"LRANGE", key, "0", "-1"});
        for (const RedisValue &v : range.elements())
            out << v.bytes();
        return out;
    }
    // m1..m7 on "default", d1 and d2 delayed; worker-a (alive) holds m1 and
    // dead-lettered m4 and m5; worker-b, whose heartbeat stopped 2 min ago,
    // holds m2, m3 and d1.
    void populate()
    {
        for (const char *id : {"m1", "m2", "m3", "m4", "m5", "m6", "m7"})
            enqueue(id);
        enqueue("d1", true);
        enqueue("d2", true);
        fetch("worker-a", "default", 1, nowMs);
        fetch("worker-b", "default", 2, nowMs - 120000);
        fetch("worker-b", "default.DQ", 1, nowMs - 120000);
        fetch("worker-a", "default", 2, nowMs);
        nack("worker-a", "m4");
        nack("worker-a", "m5");
    }
};

struct HorizonState
{
    RedisServer server;
    std::unique_ptr<RedisClient> client;
    qint64 now = 0; // server time, s
    static constexpr const char *Prefix = "laravel_horizon:";
    // A queued command's data.command: PHP serialize() of the job object.
    static constexpr const char *Command
        = R"(O:19:\"App\\Jobs\\SendDigest\":1:{s:4:\"name\";s:13:\"weekly-digest\";})";

    bool start()
    {
        if (!server.start())
            return false;
        client = gatehouse::test::connectedClient(server);
        if (!client)
            return false;
        now = call({"TIME"}).at(0).bytes().toLongLong();
        return true;
    }
    RedisValue call(const QList<QByteArray> &command)
    {
        return gatehouse::test::call(*client, command);
    }
    void job(const QByteArray &id, const QByteArray &status, const QList<QByteArray> &sets,
             qint64 at, const QByteArray &exception = {})
    {
        const QByteArray h = Prefix;
        const QByteArray time = QByteArray::number(at) + ".25";
        for (const QByteArray &set : sets)
            call({"ZADD", h + set, "-" + time, id});
        const QByteArray payload
            = "{\"uuid\":\"" + id + "\",\"id\":\"" + id
              + "\",\"displayName\":\"App\\\\Jobs\\\\SendDigest\",\"job\":"
                "\"Illuminate\\\\Queue\\\\CallQueuedHandler@call\",\"data\":{\"commandName\":"
                "\"App\\\\Jobs\\\\SendDigest\",\"command\":\""
              + Command + "\"},\"attempts\":2,\"pushedAt\":\"" + time + "\"}";
        call({"HSET", h + id, "id", id, "connection", "redis", "queue", "emails", "name",
              "App\\Jobs\\SendDigest", "status", status, "payload", payload, "created_at", time});
        if (!exception.isEmpty())
            call({"HSET", h + id, "exception", exception, "context", "[]", "failed_at",
                  QByteArray::number(at + 1) + ".5"});
        call({"EXPIREAT", h + id, QByteArray::number(now + 3600)});
    }
    // A job through RedisJobRepository (v5.29.1) as a worker runs it, its
    // times in ms since the epoch: pushed() (recent_jobs, pending_jobs, the
    // hash with created_at), then reserved() (reserved_at) when reservedMs
    // >= 0, then completed() (completed_jobs, completed_at) or failed()
    // (failed_jobs, recent_failed_jobs, failed_at) when doneMs >= 0. Each
    // time as microtime(true) writes it: seconds with four decimals.
    void ran(const QByteArray &id, qint64 createdMs, qint64 reservedMs, qint64 doneMs,
             bool failed = false)
    {
        const QByteArray h = Prefix;
        const auto micro = [](qint64 ms) {
            return QByteArray::number(double(ms) / 1000.0, 'f', 4);
        };
        const auto minus = [&](qint64 ms) -> QByteArray {
            return '-' + micro(ms);
        };
        call({"ZADD", h + "recent_jobs", minus(createdMs), id});
        call({"ZADD", h + "pending_jobs", minus(createdMs), id});
        call({"HSET", h + id, "id", id, "connection", "redis", "queue", "emails", "name",
              "App\\Jobs\\SendDigest", "status", "pending", "payload",
              "{\"uuid\":\"" + id + "\",\"displayName\":\"App\\\\Jobs\\\\SendDigest\"}",
              "created_at", micro(createdMs), "updated_at", micro(createdMs)});
        if (reservedMs >= 0)
            call({"HSET", h + id, "status", "reserved", "updated_at", micro(reservedMs),
                  "reserved_at", micro(reservedMs)});
        if (doneMs >= 0) {
            call({"ZREM", h + "pending_jobs", id});
            if (failed) {
                call({"ZADD", h + "failed_jobs", minus(doneMs), id});
                call({"ZADD", h + "recent_failed_jobs", minus(doneMs), id});
                call({"HSET", h + id, "status", "failed", "exception", "RuntimeException",
                      "failed_at", micro(doneMs)});
            } else {
                call({"ZADD", h + "completed_jobs", minus(doneMs), id});
                call({"HSET", h + id, "status", "completed", "completed_at", micro(doneMs)});
            }
        }
        call({"EXPIREAT", h + id, QByteArray::number(now + 3600)});
    }
    // 3 recent: one pending, one completed, one failed (its exception kept).
    void populate()
    {
        job("0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c01", "pending", {"recent_jobs", "pending_jobs"},
            now - 5);
        job("0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c02", "completed", {"recent_jobs", "completed_jobs"},
            now - 50);
        job("0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c03", "failed",
            {"recent_jobs", "failed_jobs", "recent_failed_jobs"}, now - 80,
            "RuntimeException: mail server refused in /app/Jobs/SendDigest.php:31\n"
            "Stack trace:\n#0 /app/vendor/laravel/framework/src/Illuminate/Bus/"
            "Dispatcher.php(128): App\\Jobs\\SendDigest->handle()");
        call({"ZADD", QByteArray(Prefix) + "supervisors", QByteArray::number(now),
              "host-1:supervisor-1"});
        call({"HSET", QByteArray(Prefix) + "supervisor:host-1:supervisor-1", "name",
              "host-1:supervisor-1", "status", "running", "processes", "{\"redis:emails\":3}"});
    }
};

} // namespace gatehouse::test
