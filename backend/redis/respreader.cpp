// SPDX-License-Identifier: MIT
#include "respreader.h"

#include <cstring>

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

// The status replies that come by the million (TYPE's, OK), shared rather
// than allocated per reply.
QByteArray sharedStatus(const char *str, size_t len)
{
    static const QByteArray s_common[]
        = {"OK", "string", "hash", "zset", "list", "set", "none", "stream", "QUEUED"};
    for (const QByteArray &c : s_common) {
        if (size_t(c.size()) == len && std::memcmp(c.constData(), str, len) == 0)
            return c;
    }
    return QByteArray(str, qsizetype(len));
}

void *createString(const redisReadTask *task, char *str, size_t len)
{
    RedisValue *v = slotFor(task);
    switch (task->type) {
    case REDIS_REPLY_ERROR:
        *v = RedisValue::error(QByteArray(str, qsizetype(len)));
        break;
    case REDIS_REPLY_STATUS:
        *v = RedisValue::status(sharedStatus(str, len));
        break;
    default:
        *v = RedisValue::bulk(QByteArray(str, qsizetype(len)));
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

namespace {

// "*<n>\r\n" or "$<n>\r\n" written at p; returns the end.
char *writeHeader(char *p, char kind, qsizetype n)
{
    *p++ = kind;
    char digits[24];
    int d = 0;
    do {
        digits[d++] = char('0' + n % 10);
        n /= 10;
    } while (n > 0);
    while (d > 0)
        *p++ = digits[--d];
    *p++ = '\r';
    *p++ = '\n';
    return p;
}

} // namespace

void appendCommand(QByteArray &out, const QList<QByteArray> &args)
{
    // RESP written straight into out, sized once: a discovery formats a
    // million commands, and a formatter that allocates per command costs
    // more than the command's own bytes.
    qsizetype size = 24;
    for (const QByteArray &a : args)
        size += a.size() + 24;
    const qsizetype start = out.size();
    out.resize(start + size);
    char *const begin = out.data() + start;
    char *p = writeHeader(begin, '*', args.size());
    for (const QByteArray &a : args) {
        p = writeHeader(p, '$', a.size());
        if (!a.isEmpty())
            std::memcpy(p, a.constData(), size_t(a.size()));
        p += a.size();
        *p++ = '\r';
        *p++ = '\n';
    }
    out.resize(start + (p - begin));
}

QByteArray encodeCommand(const QList<QByteArray> &args)
{
    QByteArray out;
    appendCommand(out, args);
    return out;
}

} // namespace gatehouse
