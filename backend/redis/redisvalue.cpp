// SPDX-License-Identifier: MIT
#include "redisvalue.h"

#include <QJsonObject>
#include <QStringDecoder>

namespace gatehouse {

RedisValue RedisValue::integer(qint64 v)
{
    RedisValue r;
    r.m_type = Type::Integer;
    r.m_integer = v;
    return r;
}

RedisValue RedisValue::status(const QByteArray &s)
{
    RedisValue r;
    r.m_type = Type::Status;
    r.m_bytes = s;
    return r;
}

RedisValue RedisValue::error(const QByteArray &message)
{
    RedisValue r;
    r.m_type = Type::Error;
    r.m_bytes = message;
    return r;
}

RedisValue RedisValue::bulk(const QByteArray &data)
{
    RedisValue r;
    r.m_type = Type::Bulk;
    r.m_bytes = data;
    return r;
}

RedisValue RedisValue::array(QList<RedisValue> elements)
{
    RedisValue r;
    r.m_type = Type::Array;
    r.m_elements = std::move(elements);
    return r;
}

RedisValue RedisValue::failed(const QString &reason)
{
    RedisValue r;
    r.m_type = Type::Failed;
    r.m_bytes = reason.toUtf8();
    return r;
}

qint64 RedisValue::toInteger(bool *ok) const
{
    if (m_type == Type::Integer) {
        if (ok)
            *ok = true;
        return m_integer;
    }
    if (m_type == Type::Bulk || m_type == Type::Status)
        return m_bytes.toLongLong(ok);
    if (ok)
        *ok = false;
    return 0;
}

QString RedisValue::errorMessage() const
{
    if (!isError())
        return {};
    return QString::fromUtf8(m_bytes);
}

QByteArray RedisValue::errorCode() const
{
    if (m_type != Type::Error)
        return {};
    const qsizetype space = m_bytes.indexOf(' ');
    return space < 0 ? m_bytes : m_bytes.left(space);
}

QByteArray RedisValue::refusedCommand() const
{
    // Redis 7.0: "NOPERM this user has no permissions to run the 'evalsha' command";
    // 7.2: "NOPERM User u has no permissions to run the 'evalsha' command".
    if (errorCode() != "NOPERM")
        return {};
    static const QByteArray s_marker = "permissions to run the '";
    const qsizetype at = m_bytes.indexOf(s_marker);
    if (at < 0)
        return {};
    const qsizetype from = at + s_marker.size();
    const qsizetype to = m_bytes.indexOf('\'', from);
    return to > from ? m_bytes.mid(from, to - from).toUpper() : QByteArray();
}

bool RedisValue::isKeyRefusal() const
{
    return errorCode() == "NOPERM" && m_bytes.contains("permissions to access")
           && m_bytes.contains("key");
}

QString printableBytes(const QByteArray &bytes, qsizetype maxLength)
{
    QString out;
    const qsizetype n = qMin(bytes.size(), maxLength);
    out.reserve(n + 2);
    for (qsizetype i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(bytes.at(i));
        switch (c) {
        case '\\':
            out += QLatin1String("\\\\");
            break;
        case '"':
            out += QLatin1String("\\\"");
            break;
        case '\n':
            out += QLatin1String("\\n");
            break;
        case '\r':
            out += QLatin1String("\\r");
            break;
        case '\t':
            out += QLatin1String("\\t");
            break;
        default:
            if (c >= 0x20 && c < 0x7f)
                out += QLatin1Char(char(c));
            else
                out += QStringLiteral("\\x%1").arg(c, 2, 16, QLatin1Char('0'));
        }
    }
    if (bytes.size() > n)
        out += QStringLiteral("... (%1 bytes)").arg(bytes.size());
    return out;
}

QString RedisValue::toDebugString() const
{
    switch (m_type) {
    case Type::Nil:
        return QStringLiteral("(nil)");
    case Type::Integer:
        return QStringLiteral("(integer) %1").arg(m_integer);
    case Type::Status:
        return QString::fromUtf8(m_bytes);
    case Type::Error:
        return QStringLiteral("(error) ") + QString::fromUtf8(m_bytes);
    case Type::Failed:
        return QStringLiteral("(failed) ") + QString::fromUtf8(m_bytes);
    case Type::Bulk:
        return QLatin1Char('"') + printableBytes(m_bytes) + QLatin1Char('"');
    case Type::Array: {
        QStringList parts;
        for (const RedisValue &e : m_elements)
            parts << e.toDebugString();
        return QLatin1Char('[') + parts.join(QLatin1String(", ")) + QLatin1Char(']');
    }
    }
    return {};
}

bool operator==(const RedisValue &a, const RedisValue &b)
{
    return a.m_type == b.m_type && a.m_integer == b.m_integer && a.m_bytes == b.m_bytes
           && a.m_elements == b.m_elements;
}

QJsonValue keyToJson(const QByteArray &key)
{
    QStringDecoder decode(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = decode(key);
    bool printable = !decode.hasError();
    for (QChar c : text)
        printable &= !c.isNonCharacter() && c.unicode() >= 0x20 && c.unicode() != 0x7f;
    if (printable)
        return text;
    return QJsonObject{{QStringLiteral("base64"), QString::fromLatin1(key.toBase64())}};
}

QJsonArray keysToJson(const QList<QByteArray> &keys)
{
    QJsonArray out;
    for (const QByteArray &k : keys)
        out.append(keyToJson(k));
    return out;
}

} // namespace gatehouse
