// SPDX-License-Identifier: MIT
#pragma once

#include "redisvalue.h"

#include <QByteArray>

struct redisReader;

namespace gatehouse {

// Incremental RESP2 parser on top of hiredis's reader. Bytes go in as they
// arrive (any fragmentation); complete replies come out as RedisValue, built
// directly by custom reply-object functions (no intermediate redisReply).
// Not thread-safe: one reader per connection, used on the connection's thread.
class RespReader
{
public:
    enum class Result { Reply, NeedMore, ProtocolError };

    RespReader();
    ~RespReader();
    RespReader(const RespReader &) = delete;
    RespReader &operator=(const RespReader &) = delete;

    void feed(const char *data, qsizetype size);
    void feed(const QByteArray &data) { feed(data.constData(), data.size()); }

    // Takes the next complete reply, if there is one.
    Result next(RedisValue *reply);

    // After a ProtocolError: what hiredis said.
    QString errorString() const { return m_error; }

    // Drops buffered bytes and any partial reply (after a reconnect).
    void reset();

private:
    redisReader *m_reader = nullptr;
    QByteArray m_pending; // bytes not yet handed to hiredis
    qsizetype m_pendingPos = 0;
    QString m_error;
};

// RESP encoding of one command with hiredis's formatter; binary safe.
void appendCommand(QByteArray &out, const QList<QByteArray> &args);
QByteArray encodeCommand(const QList<QByteArray> &args);

} // namespace gatehouse
