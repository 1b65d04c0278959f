// SPDX-License-Identifier: MIT
#pragma once

#include "requesthandle.h"

#include <QHash>
#include <QString>

#include <functional>

class QObject;

namespace gatehouse {

class RedisClient;

// The figures of a server an operator checks first (Sidekiq's dashboard and
// Grafana's Redis boards show these), from one INFO reply. Numbers are -1
// when the reply does not carry them.
struct ServerFigures
{
    QString error; // INFO failed (not permitted, not connected): the sentence; else empty
    QString version;
    QString role; // "master", "slave"
    qint64 uptimeS = -1;
    qint64 usedMemoryBytes = -1;
    qint64 peakMemoryBytes = -1;
    qint64 maxMemoryBytes = -1; // 0: no limit
    QString maxMemoryPolicy;
    qint64 clients = -1;
    qint64 blockedClients = -1;
    qint64 opsPerSec = -1;
    qint64 evictedKeys = -1;
    qint64 expiredKeys = -1;
    qint64 keyspaceHits = -1;
    qint64 keyspaceMisses = -1;
    // Persistence.
    QString rdbLastBgsaveStatus; // "ok", "err"
    qint64 rdbChangesSinceSave = -1;
    qint64 rdbLastSaveTimeS = -1; // epoch s
    bool rdbSaving = false;
    int aofEnabled = -1;
    QString aofLastWriteStatus;
    qint64 connectedReplicas = -1;

    // keyspace hits / (hits + misses), 0..1; -1 before any lookup.
    double hitRate() const;

    static ServerFigures fromInfo(const QHash<QByteArray, QByteArray> &info);
    // INFO (all default sections: one bounded reply) over client; the
    // handler runs on the context's thread, never once the context is gone.
    static RequestHandle read(RedisClient *client, const QObject *context,
                              std::function<void(const ServerFigures &)> handler);
};

} // namespace gatehouse
