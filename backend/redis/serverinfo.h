// SPDX-License-Identifier: MIT
#pragma once

#include "redisvalue.h"

#include <QDateTime>
#include <QHash>

namespace gatehouse {

// "key:value" lines of an INFO reply; section headers and blanks skipped.
QHash<QByteArray, QByteArray> parseInfo(const QByteArray &info);

// The server's clock from a TIME reply, in ms since the epoch; -1 if the
// reply is not a TIME reply.
qint64 serverTimeMs(const RedisValue &timeReply);

} // namespace gatehouse
