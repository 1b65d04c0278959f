// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

namespace gatehouse {

// What a server is, by name and version, from its INFO: Redis, or Valkey
// (which keeps redis_version at 7.2.4 for clients that test it and names
// itself in server_name / valkey_version), and the mode it runs in
// (redis_mode, or Valkey's server_mode). The one place that decides which
// commands a server has: every feature asks has(), never a version number.
struct ServerIdentity
{
    enum class Capability {
        LMove,             // LMOVE / BLMOVE (Redis 6.2)
        Functions,         // FUNCTION, FCALL (Redis 7.0)
        ClusterShards,     // CLUSTER SHARDS (Redis 7.0)
        StreamEntriesRead, // XINFO GROUPS entries-read and lag (Redis 7.0)
        AclDryRun,         // ACL DRYRUN (Redis 7.0)
        HashFieldExpiry,   // HEXPIRE, HPEXPIRE, HTTL, HPERSIST (Redis 7.4, Valkey 9.0)
        HashGetSetEx,      // HGETEX, HSETEX, HGETDEL (Redis 8.0, Valkey 9.0)
        SetIfEq,           // SET ... IFEQ (Valkey 8.1)
        DelIfEq,           // DELIFEQ (Valkey 9.0)
    };

    QString name = QStringLiteral("Redis");      // "Redis", "Valkey"
    QString version;                             // the product's own version
    QString compatVersion;                       // redis_version (Valkey: the Redis it matches)
    QString mode = QStringLiteral("standalone"); // "standalone", "cluster", "sentinel"

    static ServerIdentity fromInfo(const QHash<QByteArray, QByteArray> &info);

    // "Valkey 8.0.1", "Redis 7.4.1"; "Redis (version unknown)".
    QString displayName() const;
    bool has(Capability c) const;
    // The product's version at least major.minor.patch.
    bool atLeast(int major, int minor = 0, int patch = 0) const;
    bool isValkey() const { return name == QLatin1String("Valkey"); }
};

} // namespace gatehouse
