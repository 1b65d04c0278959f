// SPDX-License-Identifier: MIT
#include "libplanting.h"

#include "redisserver.h"

#include <redis/redisclient.h>

#include <QFile>

namespace gatehouse::test {

namespace {

qint64 integer(RedisClient &client, const QList<QByteArray> &command)
{
    return call(client, command).toInteger();
}

bool allOk(RedisClient &client, const QList<QList<QByteArray>> &commands)
{
    for (const QList<QByteArray> &c : commands) {
        if (call(client, c).isError())
            return false;
    }
    return true;
}

// Horizon's job, as RedisJobRepository::pushed, completed and failed leave
// it: ZADD of -microtime to each of its sets, HMSET of the job hash,
// EXPIREAT by the trim settings (an hour here).
bool writeHorizonJob(RedisClient &client, const QByteArray &prefix, const QByteArray &queue,
                     const QByteArray &id, const QByteArray &status, const QList<QByteArray> &sets,
                     qint64 atSeconds, qint64 nowSeconds)
{
    const QByteArray at = QByteArray::number(atSeconds) + ".25"; // microtime(true)
    QList<QList<QByteArray>> commands;
    for (const QByteArray &set : sets)
        commands.append({"ZADD", prefix + set, '-' + at, id});
    commands.append(
        {"HSET", prefix + id, "id", id, "connection", "redis", "queue", queue, "name",
         "App\\Jobs\\Run", "status", status, "payload",
         "{\"uuid\":\"" + id + "\",\"id\":\"" + id
             + "\",\"displayName\":\"App\\\\Jobs\\\\Run\",\"job\":\"App\\\\Jobs\\\\Run\","
               "\"data\":{\"name\":\"horizon\"},\"attempts\":1,\"pushedAt\":\""
             + at + "\"}",
         "created_at", at});
    commands.append({"EXPIREAT", prefix + id, QByteArray::number(nowSeconds + 3600)});
    return allOk(client, commands);
}

} // namespace

RedisValue redissonScript(RedisClient &client, const QString &name, const QList<QByteArray> &keys,
                          const QList<QByteArray> &args)
{
    QFile f(QStringLiteral(GATEHOUSE_LIBRARIES_DIR "/redisson/%1.lua").arg(name));
    if (!f.open(QIODevice::ReadOnly))
        return RedisValue::error("ERR missing " + name.toUtf8());
    QList<QByteArray> command{"EVAL", f.readAll(), QByteArray::number(keys.size())};
    command << keys << args;
    return call(client, command);
}

qint64 serverMs(RedisClient &client)
{
    const RedisValue t = call(client, {"TIME"});
    return t.at(0).bytes().toLongLong() * 1000 + t.at(1).bytes().toLongLong() / 1000;
}

QJsonObject streamCounts(RedisClient &client, const QByteArray &stream)
{
    const RedisValue groups = call(client, {"XINFO", "GROUPS", stream});
    qint64 consumers = 0;
    qint64 pending = 0;
    for (const RedisValue &g : groups.elements()) {
        for (qsizetype i = 0; i + 1 < g.size(); i += 2) {
            if (g.at(i).bytes() == "consumers")
                consumers += g.at(i + 1).toInteger();
            else if (g.at(i).bytes() == "pending")
                pending += g.at(i + 1).toInteger();
        }
    }
    return {{QStringLiteral("entries"), integer(client, {"XLEN", stream})},
            {QStringLiteral("groups"), groups.size()},
            {QStringLiteral("consumers"), consumers},
            {QStringLiteral("pending"), pending}};
}

// Redisson's API gives no counts here: each figure is what its scripts
// left, read as Redisson reads it (HGET of a holder's hold count, LLEN of
// the waiters' queue, its availablePermits script or GET, ZCARD of the
// timeout sets).
QString plantRedisson(RedisClient &client, QList<LibraryObject> &planted)
{
    const auto lua
        = [&](const char *script, const QList<QByteArray> &keys, const QList<QByteArray> &args) {
              return redissonScript(client, QLatin1String(script), keys, args);
          };
    // Two connection managers' threads (RedissonBaseLock.getLockName).
    const QByteArray a = "1b4e28ba-2ca1-41d2-a5c6-3d3f3c7c1a5e:41";
    const QByteArray b = "6fa459ea-ee8a-4ca4-894e-db77e160355e:7";
    const QByteArray lease = "600000";

    for (int i = 0; i < 2; ++i) {
        if (!lua("rlock_trylock", {"invoices"}, {lease, a}).isNil())
            return QStringLiteral("RLock invoices: tryLock failed");
    }
    if (!lua("rlock_trylock", {"invoices"}, {lease, b}).isInteger())
        return QStringLiteral("RLock invoices: another thread's tryLock was not refused");
    planted.append(
        {QStringLiteral("invoices"), QStringLiteral("redisson"),
         QJsonObject{{QStringLiteral("holders"), integer(client, {"HLEN", "invoices"})},
                     {QStringLiteral("holdCount"), integer(client, {"HGET", "invoices", a})},
                     {QStringLiteral("waiters"), 0}},
         QStringLiteral("redisson-lock")});

    const QList<QByteArray> fair{"fair:export", "redisson_lock_queue:{fair:export}",
                                 "redisson_lock_timeout:{fair:export}"};
    const auto tryFair = [&](const QByteArray &thread) {
        return lua("fairlock_trylock", fair,
                   {lease, thread, "600000", QByteArray::number(serverMs(client))});
    };
    if (!tryFair(a).isNil() || !tryFair(b).isInteger()) // b waits in the queue
        return QStringLiteral("RFairLock fair:export: tryLock did not hold and queue");
    planted.append(
        {QString::fromLatin1(fair[0]), QStringLiteral("redisson"),
         QJsonObject{{QStringLiteral("holders"), integer(client, {"HLEN", fair[0]})},
                     {QStringLiteral("holdCount"), integer(client, {"HGET", fair[0], a})},
                     {QStringLiteral("waiters"), integer(client, {"LLEN", fair[1]})}},
         QStringLiteral("redisson-lock")});

    for (const QByteArray &reader : {a, b}) {
        if (!lua("rwlock_readlock", {"rw:catalog", "{rw:catalog}:" + reader + ":rwlock_timeout"},
                 {lease, reader, reader + ":write"})
                 .isNil())
            return QStringLiteral("RReadWriteLock rw:catalog: readLock failed");
    }
    planted.append({QStringLiteral("rw:catalog"), QStringLiteral("redisson"),
                    QJsonObject{{QStringLiteral("readers"),
                                 integer(client, {"HLEN", "rw:catalog"}) - 1}, // mode
                                {QStringLiteral("writers"), 0},
                                {QStringLiteral("waiters"), 0}},
                    QStringLiteral("redisson-lock")});

    const QList<QByteArray> pes{"perm:render", "{perm:render}:timeout",
                                "redisson_sc:{perm:render}"};
    if (lua("pes_trysetpermits", {pes[0], pes[2]}, {"4", "publish"}).toInteger() != 1)
        return QStringLiteral("RPermitExpirableSemaphore perm:render: trySetPermits failed");
    const qint64 now = serverMs(client);
    const QByteArray noLease = "922337203685477"; // Redisson's nonExpirableTimeout
    const QList<QByteArray> leaseEnds{QByteArray::number(now + 600000), noLease};
    const QList<QByteArray> ids{QByteArray::fromHex("0102030405060708090a0b0c0d0e0f10"),
                                QByteArray::fromHex("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")};
    for (int i = 0; i < 2; ++i) {
        if (lua("pes_tryacquire", pes,
                {"1", leaseEnds.at(i), QByteArray::number(now), noLease, "publish", ids.at(i)})
                .bytes()
            != "OK")
            return QStringLiteral("RPermitExpirableSemaphore perm:render: tryAcquire failed");
    }
    planted.append({QString::fromLatin1(pes[0]), QStringLiteral("redisson"),
                    QJsonObject{{QStringLiteral("available"),
                                 lua("pes_availablepermits", pes,
                                     {QByteArray::number(serverMs(client)), "publish"})
                                     .toInteger()},
                                {QStringLiteral("acquired"), integer(client, {"ZCARD", pes[1]})},
                                {QStringLiteral("expired"), 0}},
                    QStringLiteral("redisson-semaphore")});

    // A plain RSemaphore: its availablePermits is a GET.
    if (lua("semaphore_trysetpermits", {"semaphore:pdf", "redisson_sc:{semaphore:pdf}"},
            {"3", "publish"})
                .toInteger()
            != 1
        || lua("semaphore_tryacquire", {"semaphore:pdf"}, {"1"}).toInteger() != 1)
        return QStringLiteral("RSemaphore semaphore:pdf: trySetPermits or tryAcquire failed");
    planted.append({QStringLiteral("semaphore:pdf"), QStringLiteral("redisson"),
                    QJsonObject{{QStringLiteral("available"),
                                 call(client, {"GET", "semaphore:pdf"}).bytes().toLongLong()}},
                    QStringLiteral("redisson-semaphore")});

    const QList<QByteArray> delayed{"notifications", "redisson_delay_queue_timeout:{notifications}",
                                    "redisson_delay_queue:{notifications}",
                                    "redisson_delay_queue_channel:{notifications}"};
    const qint64 at = serverMs(client);
    const QList<QPair<qint64, QByteArray>> offers{
        {at - 1000, "a"}, {at + 600000, "b"}, {at + 600000, "c"}};
    for (const auto &[due, to] : offers) {
        if (lua("delayedqueue_offer", delayed,
                {QByteArray::number(due), "rnd0000" + to, R"({"to":")" + to + R"("})"})
                .isError())
            return QStringLiteral("RDelayedQueue notifications: offer failed");
    }
    // Redisson's transfer task moves the due one and names the next due time.
    if (lua("delayedqueue_transfer", delayed.mid(0, 3),
            {QByteArray::number(serverMs(client)), "100"})
            .bytes()
        != QByteArray::number(at + 600000))
        return QStringLiteral("RDelayedQueue notifications: the transfer task did not move "
                              "the due item");
    planted.append({QStringLiteral("notifications"), QStringLiteral("redisson"),
                    QJsonObject{{QStringLiteral("delayed"), integer(client, {"ZCARD", delayed[1]})},
                                {QStringLiteral("due"), 0},
                                {QStringLiteral("queued"), integer(client, {"LLEN", delayed[0]})}},
                    QStringLiteral("redisson-delayed-queue")});
    return {};
}

QString plantHorizon(RedisClient &client, const QByteArray &prefix, const QByteArray &queue,
                     const QByteArray &pendingJob, bool supervisor, QList<LibraryObject> &planted)
{
    const qint64 now = serverMs(client) / 1000;
    if (!writeHorizonJob(client, prefix, queue, pendingJob, "pending",
                         {"recent_jobs", "pending_jobs"}, now - 5, now)
        || !writeHorizonJob(client, prefix, queue, "0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c02",
                            "completed", {"recent_jobs", "completed_jobs"}, now - 50, now)
        || !writeHorizonJob(client, prefix, queue, "0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c03", "failed",
                            {"recent_jobs", "failed_jobs", "recent_failed_jobs"}, now - 80, now))
        return QStringLiteral("Horizon's jobs were not written");
    // RedisSupervisorRepository::update and RedisMasterSupervisorRepository::
    // update: HMSET, ZADD of the heartbeat, EXPIRE (30 s and 15 s).
    const QByteArray name = "host-1:supervisor-1";
    if (supervisor
        && !allOk(client,
                  {{"HSET", prefix + "supervisor:" + name, "name", name, "master", "host-1", "pid",
                    "4242", "status", "running", "processes", "{\"redis:" + queue + "\":3}",
                    "options", "{}"},
                   {"ZADD", prefix + "supervisors", QByteArray::number(now), name},
                   {"EXPIRE", prefix + "supervisor:" + name, "30"},
                   {"HSET", prefix + "master:host-1", "name", "host-1", "pid", "4241", "status",
                    "running", "supervisors", "[\"" + name + "\"]", "environment", "production"},
                   {"ZADD", prefix + "masters", QByteArray::number(now), "host-1"},
                   {"EXPIRE", prefix + "master:host-1", "15"}}))
        return QStringLiteral("Horizon's supervisor was not written");
    // Horizon's own totals are the sets' ZCARDs (RedisJobRepository's
    // countRecent, countPending, countCompleted, countFailed,
    // countRecentlyFailed).
    QJsonObject counts;
    for (const char *state : {"recent", "pending", "completed", "failed", "recent_failed"})
        counts.insert(QLatin1String(state),
                      integer(client, {"ZCARD", prefix + QByteArray(state) + "_jobs"}));
    planted.append({QString::fromLatin1(prefix), QStringLiteral("horizon"), counts,
                    QStringLiteral("laravel-horizon")});
    return {};
}

} // namespace gatehouse::test
