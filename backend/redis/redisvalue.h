// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonValue>
#include <QList>
#include <QMetaType>
#include <QString>

namespace gatehouse {

// One RESP2 reply, or the reason a request never got one. A value type:
// copying is cheap (QByteArray and QList are implicitly shared).
class RedisValue
{
public:
    enum class Type : quint8 {
        Nil, // $-1 or *-1
        Integer,
        Status, // +OK
        Error,  // -ERR ..., sent by the server
        Bulk,   // $n, binary safe
        Array,
        Failed, // no reply at all: connection lost, not connected, protocol error
    };

    RedisValue() = default;

    static RedisValue nil() { return RedisValue(); }
    static RedisValue integer(qint64 v);
    static RedisValue status(const QByteArray &s);
    static RedisValue error(const QByteArray &message);
    static RedisValue bulk(const QByteArray &data);
    static RedisValue array(QList<RedisValue> elements);
    static RedisValue failed(const QString &reason);

    Type type() const { return m_type; }
    bool isNil() const { return m_type == Type::Nil; }
    bool isInteger() const { return m_type == Type::Integer; }
    bool isStatus() const { return m_type == Type::Status; }
    bool isBulk() const { return m_type == Type::Bulk; }
    bool isArray() const { return m_type == Type::Array; }
    // A server error or a failed request.
    bool isError() const { return m_type == Type::Error || m_type == Type::Failed; }
    bool isFailed() const { return m_type == Type::Failed; }

    qint64 toInteger(bool *ok = nullptr) const;         // Integer, or a Bulk/Status holding digits
    const QByteArray &bytes() const { return m_bytes; } // Bulk, Status, Error
    const QList<RedisValue> &elements() const { return m_elements; }
    QList<RedisValue> &elements() { return m_elements; }
    qsizetype size() const { return m_elements.size(); }
    const RedisValue &at(qsizetype i) const { return m_elements.at(i); }

    // A sentence for people: the server's error text, or why the request failed.
    QString errorMessage() const;
    // The error's first word (NOSCRIPT, WRONGPASS, NOPERM...); empty if not an error.
    QByteArray errorCode() const;
    // An ACL refusal: the refused command in upper case ("EVALSHA") for a
    // NOPERM "no permissions to run the 'evalsha' command"; empty otherwise.
    QByteArray refusedCommand() const;
    // An ACL refusal of a key (NOPERM "... no permissions to access ... keys").
    bool isKeyRefusal() const;

    // For logs and tests: a redis-cli-like rendering, binary bytes escaped.
    QString toDebugString() const;

    friend bool operator==(const RedisValue &a, const RedisValue &b);
    friend bool operator!=(const RedisValue &a, const RedisValue &b) { return !(a == b); }

private:
    Type m_type = Type::Nil;
    qint64 m_integer = 0;
    QByteArray m_bytes;
    QList<RedisValue> m_elements;
};

// Escapes bytes the way redis-cli prints them ("\x00", "\r\n"), for messages.
QString printableBytes(const QByteArray &bytes, qsizetype maxLength = 200);

// A key for JSON: a string when it is printable UTF-8, else {"base64": ...}.
QJsonValue keyToJson(const QByteArray &key);
QJsonArray keysToJson(const QList<QByteArray> &keys);

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::RedisValue)
