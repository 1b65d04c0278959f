// SPDX-License-Identifier: MIT
#include "serverfigures.h"

#include "redisclient.h"
#include "serverinfo.h"

namespace gatehouse {

namespace {

qint64 number(const QHash<QByteArray, QByteArray> &info, const char *field)
{
    bool ok = false;
    const qint64 n = info.value(field).toLongLong(&ok);
    return ok ? n : -1;
}

} // namespace

double ServerFigures::hitRate() const
{
    if (keyspaceHits < 0 || keyspaceMisses < 0 || keyspaceHits + keyspaceMisses == 0)
        return -1;
    return double(keyspaceHits) / double(keyspaceHits + keyspaceMisses);
}

ServerFigures ServerFigures::fromInfo(const QHash<QByteArray, QByteArray> &info)
{
    ServerFigures f;
    f.version = QString::fromLatin1(info.value("redis_version"));
    f.role = QString::fromLatin1(info.value("role"));
    f.uptimeS = number(info, "uptime_in_seconds");
    f.usedMemoryBytes = number(info, "used_memory");
    f.peakMemoryBytes = number(info, "used_memory_peak");
    f.maxMemoryBytes = number(info, "maxmemory");
    f.maxMemoryPolicy = QString::fromLatin1(info.value("maxmemory_policy"));
    f.clients = number(info, "connected_clients");
    f.blockedClients = number(info, "blocked_clients");
    f.opsPerSec = number(info, "instantaneous_ops_per_sec");
    f.evictedKeys = number(info, "evicted_keys");
    f.expiredKeys = number(info, "expired_keys");
    f.keyspaceHits = number(info, "keyspace_hits");
    f.keyspaceMisses = number(info, "keyspace_misses");
    f.rdbLastBgsaveStatus = QString::fromLatin1(info.value("rdb_last_bgsave_status"));
    f.rdbChangesSinceSave = number(info, "rdb_changes_since_last_save");
    f.rdbLastSaveTimeS = number(info, "rdb_last_save_time");
    f.rdbSaving = info.value("rdb_bgsave_in_progress") == "1";
    f.aofEnabled = int(number(info, "aof_enabled"));
    f.aofLastWriteStatus = QString::fromLatin1(info.value("aof_last_write_status"));
    f.connectedReplicas = number(info, "connected_slaves");
    return f;
}

RequestHandle ServerFigures::read(RedisClient *client, const QObject *context,
                                  std::function<void(const ServerFigures &)> handler)
{
    return client->command({QByteArrayLiteral("INFO")}, context,
                           [handler = std::move(handler)](const RedisValue &reply) {
                               if (reply.isError()) {
                                   ServerFigures f;
                                   f.error = reply.errorMessage();
                                   handler(f);
                                   return;
                               }
                               handler(fromInfo(parseInfo(reply.bytes())));
                           });
}

} // namespace gatehouse
