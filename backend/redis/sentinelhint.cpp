// SPDX-License-Identifier: MIT
#include "sentinelhint.h"

#include "userinput.h"

namespace gatehouse::SentinelHint {

std::optional<QStringList> monitoredMasters(const RedisValue &role)
{
    // ROLE on a sentinel: ["sentinel", [name, ...]].
    if (role.isError() || !role.isArray() || role.size() < 1 || role.at(0).bytes() != "sentinel")
        return std::nullopt;
    QStringList names;
    if (role.size() > 1 && role.at(1).isArray()) {
        for (const RedisValue &name : role.at(1).elements())
            names << QString::fromUtf8(name.bytes());
    }
    names.sort();
    return names;
}

QString sentence(const RedisEndpoint &endpoint, const std::optional<QStringList> &known)
{
    const QStringList masters = known.value_or(QStringList());
    const QString scheme = endpoint.transport == RedisEndpoint::Transport::Tls
                               ? QStringLiteral("rediss-sentinel")
                               : QStringLiteral("redis-sentinel");
    const QString url = QStringLiteral("%1://%2#%3")
                            .arg(scheme, endpoint.address(),
                                 masters.size() == 1 ? masters.first() : QStringLiteral("NAME"));
    QString s = QStringLiteral("%1 is a Redis Sentinel, not a data server: it holds no keys. "
                               "Connect through it with %2")
                    .arg(echoed(endpoint.address()), url);
    if (!known)
        s += QStringLiteral(" (SENTINEL MASTERS on it lists the names).");
    else if (masters.isEmpty())
        s += QStringLiteral(" (it monitors no master yet: SENTINEL MONITOR names one).");
    else if (masters.size() == 1)
        s += QStringLiteral(".");
    else
        s += QStringLiteral(", NAME one of the masters it monitors: %1.")
                 .arg(masters.join(QStringLiteral(", ")));
    return s;
}

} // namespace gatehouse::SentinelHint
