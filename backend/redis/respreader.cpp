// SPDX-License-Identifier: MIT
#include "respreader.h"

#include <QVarLengthArray>

#include <hiredis/hiredis.h>

namespace gatehouse {

namespace {

// hiredis discards consumed input only after each reply and only once 1 KiB is
// consumed, by moving the rest of its buffer down. Feeding it large chunks of
// small pipelined replies would make that quadratic, so input is handed over
// in slices of this size.
constexpr qsizetype s_feedSlice = 16 * 1024;

// An array header is trusted for at most this many slots up front: "*2147483647"
// is 13 bytes on the wire, and must not allocate 2^31 values before any arrive.
constexpr int s_maxReservedElements = 1024;

// Where a newly parsed value lives: a fresh heap root, or the next slot of the
// parent array, appended as its elements arrive (in order). Growing the parent
// moves only its finished children: hiredis keeps pointers to the values
// being filled (the ancestors of this one), never to finished siblings.
// hiredis only ever frees the root.
RedisValue *slotFor(const redisReadTask *task)
{
    if (task->parent) {
        auto &elements = static_cast<RedisValue *>(task->parent->obj)->elements();
        Q_ASSERT(task->idx == elements.size());
        elements.append(RedisValue());
        return &elements.last();
    }
    return new RedisValue;
}

void *createString(const redisReadTask *task, char *str, size_t len)
{
    RedisValue *v = slotFor(task);
    QByteArray bytes(str, qsizetype(len));
    switch (task->type) {
    case REDIS_REPLY_ERROR:
        *v = RedisValue::error(bytes);
        break;
    case REDIS_REPLY_STATUS:
        *v = RedisValue::status(bytes);
        break;
    default:
        *v = RedisValue::bulk(bytes);
        break;
    }
    return v;
}

void *createArray(const redisReadTask *task, int elements)
{
    RedisValue *v = slotFor(task);
    QList<RedisValue> children;
    children.reserve(qBound(0, elements, s_maxReservedElements));
    *v = RedisValue::array(std::move(children));
    return v;
}

void *createInteger(const redisReadTask *task, long long value)
{
    RedisValue *v = slotFor(task);
    *v = RedisValue::integer(value);
    return v;
}

void *createNil(const redisReadTask *task)
{
    RedisValue *v = slotFor(task);
    *v = RedisValue::nil();
    return v;
}

void freeObject(void *object)
{
    delete static_cast<RedisValue *>(object);
}

redisReplyObjectFunctions s_functions = {
    createString, createArray, createInteger, createNil, freeObject,
};

} // namespace

RespReader::RespReader()
    : m_reader(redisReaderCreateWithFunctions(&s_functions))
{
    Q_CHECK_PTR(m_reader);
}

RespReader::~RespReader()
{
    redisReaderFree(m_reader);
}

void RespReader::feed(const char *data, qsizetype size)
{
    if (m_pendingPos > 0) {
        m_pending.remove(0, m_pendingPos);
        m_pendingPos = 0;
    }
    m_pending.append(data, size);
}

RespReader::Result RespReader::next(RedisValue *reply)
{
    if (!m_error.isEmpty())
        return Result::ProtocolError;
    for (;;) {
        void *object = nullptr;
        if (redisReaderGetReply(m_reader, &object) != REDIS_OK) {
            m_error = QString::fromUtf8(m_reader->errstr);
            return Result::ProtocolError;
        }
        if (object) {
            auto *value = static_cast<RedisValue *>(object);
            *reply = std::move(*value);
            delete value;
            return Result::Reply;
        }
        if (m_pendingPos >= m_pending.size()) {
            m_pending.clear();
            m_pendingPos = 0;
            return Result::NeedMore;
        }
        const qsizetype n = qMin(s_feedSlice, m_pending.size() - m_pendingPos);
        redisReaderFeed(m_reader, m_pending.constData() + m_pendingPos, size_t(n));
        m_pendingPos += n;
    }
}

void RespReader::reset()
{
    redisReaderFree(m_reader);
    m_reader = redisReaderCreateWithFunctions(&s_functions);
    Q_CHECK_PTR(m_reader);
    m_pending.clear();
    m_pendingPos = 0;
    m_error.clear();
}

void appendCommand(QByteArray &out, const QList<QByteArray> &args)
{
    QVarLengthArray<const char *, 16> argv(args.size());
    QVarLengthArray<size_t, 16> argvlen(args.size());
    for (qsizetype i = 0; i < args.size(); ++i) {
        argv[i] = args.at(i).constData();
        argvlen[i] = size_t(args.at(i).size());
    }
    // The sds variant: hiredis's own formatter, not snprintf per argument.
    sds cmd = nullptr;
    const int len = redisFormatSdsCommandArgv(&cmd, int(args.size()), argv.data(), argvlen.data());
    Q_CHECK_PTR(cmd);
    out.append(cmd, len);
    redisFreeSdsCommand(cmd);
}

QByteArray encodeCommand(const QList<QByteArray> &args)
{
    QByteArray out;
    appendCommand(out, args);
    return out;
}

} // namespace gatehouse
