// SPDX-License-Identifier: MIT
#pragma once

#include "redisserver.h"

namespace gatehouse::test {

// A figure of one command in INFO commandstats ("cmdstat_evalsha:calls=3,
// ...,rejected_calls=0,failed_calls=0"): how often the server ran it, or
// refused it; 0 when it never did.
inline qint64 commandStat(RedisClient &client, const QByteArray &command,
                          const QByteArray &field = "calls")
{
    const QByteArray info = call(client, {"INFO", "commandstats"}).bytes();
    const QByteArray line = "cmdstat_" + command + ':';
    const qsizetype at = info.indexOf(line);
    if (at < 0)
        return 0;
    const QByteArray stats = info.mid(at + line.size()).split('\r').first().split('\n').first();
    const QByteArray prefix = QByteArray(field).append('=');
    for (const QByteArray &part : stats.split(',')) {
        if (part.startsWith(prefix))
            return part.mid(prefix.size()).toLongLong();
    }
    return 0;
}

} // namespace gatehouse::test
