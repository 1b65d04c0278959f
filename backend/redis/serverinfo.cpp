// SPDX-License-Identifier: MIT
#include "serverinfo.h"

namespace gatehouse {

QHash<QByteArray, QByteArray> parseInfo(const QByteArray &info)
{
    QHash<QByteArray, QByteArray> fields;
    for (const QByteArray &raw : info.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const qsizetype colon = line.indexOf(':');
        if (colon > 0)
            fields.insert(line.left(colon), line.mid(colon + 1));
    }
    return fields;
}

qint64 serverTimeMs(const RedisValue &timeReply)
{
    if (!timeReply.isArray() || timeReply.size() != 2)
        return -1;
    bool okS = false;
    bool okUs = false;
    const qint64 s = timeReply.at(0).toInteger(&okS);
    const qint64 us = timeReply.at(1).toInteger(&okUs);
    if (!okS || !okUs)
        return -1;
    return s * 1000 + us / 1000;
}

} // namespace gatehouse
