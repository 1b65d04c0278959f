// SPDX-License-Identifier: MIT
#include "serveridentity.h"

#include <QList>

namespace gatehouse {

ServerIdentity ServerIdentity::fromInfo(const QHash<QByteArray, QByteArray> &info)
{
    ServerIdentity id;
    id.compatVersion = QString::fromUtf8(info.value("redis_version"));
    const QByteArray serverName = info.value("server_name").toLower();
    if (serverName == "valkey" || info.contains("valkey_version")) {
        id.name = QStringLiteral("Valkey");
        id.version = QString::fromUtf8(info.value("valkey_version", info.value("redis_version")));
    } else {
        id.version = id.compatVersion;
    }
    const QByteArray mode = info.value("redis_mode", info.value("server_mode"));
    if (!mode.isEmpty())
        id.mode = QString::fromUtf8(mode);
    return id;
}

QString ServerIdentity::displayName() const
{
    if (version.isEmpty())
        return name + QStringLiteral(" (version unknown)");
    return name + QLatin1Char(' ') + version;
}

bool ServerIdentity::atLeast(int major, int minor, int patch) const
{
    const QList<QString> parts = version.split(QLatin1Char('.'));
    const int want[3] = {major, minor, patch};
    for (int i = 0; i < 3; ++i) {
        const int have = parts.value(i).toInt();
        if (have != want[i])
            return have > want[i];
    }
    return true;
}

bool ServerIdentity::has(Capability c) const
{
    if (version.isEmpty())
        return false; // INFO refused: assume only what every supported server has
    if (isValkey()) {
        // Valkey 7.2 forked Redis 7.2.4: everything Redis had up to it.
        switch (c) {
        case Capability::LMove:
        case Capability::Functions:
        case Capability::ClusterShards:
        case Capability::StreamEntriesRead:
        case Capability::AclDryRun:
            return true;
        case Capability::SetIfEq:
            return atLeast(8, 1);
        case Capability::HashFieldExpiry:
        case Capability::HashGetSetEx:
        case Capability::DelIfEq:
            return atLeast(9);
        }
        return false;
    }
    switch (c) {
    case Capability::LMove:
        return atLeast(6, 2);
    case Capability::Functions:
    case Capability::ClusterShards:
    case Capability::StreamEntriesRead:
    case Capability::AclDryRun:
        return atLeast(7);
    case Capability::HashFieldExpiry:
        return atLeast(7, 4);
    case Capability::HashGetSetEx:
        return atLeast(8);
    case Capability::SetIfEq:
    case Capability::DelIfEq:
        return false; // not in Redis
    }
    return false;
}

} // namespace gatehouse
