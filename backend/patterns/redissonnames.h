// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>

#include <cmath>
#include <limits>

namespace gatehouse::redisson {

// Redisson's key and channel names (RedissonObject.prefixName/suffixName,
// Redisson 3.52.0 and 4.7.0): a name without '{' is hash-tagged, so every
// key of one object is in the name's slot.
// prefixName("redisson_lock_queue", "orders") = "redisson_lock_queue:{orders}"
inline QByteArray prefixName(const QByteArray &prefix, const QByteArray &name)
{
    if (name.contains('{'))
        return prefix + ':' + name;
    return prefix + ":{" + name + '}';
}
// suffixName("perm", "timeout") = "{perm}:timeout"
inline QByteArray suffixName(const QByteArray &name, const QByteArray &suffix)
{
    if (name.contains('{'))
        return name + ':' + suffix;
    return '{' + name + "}:" + suffix;
}

namespace Internal {
// "{x}" -> "x"; a part that carries its own '{' (a name with a hash tag) is
// the name itself; anything else is no Redisson name.
inline QByteArray unwrap(const QByteArray &part)
{
    if (part.size() > 2 && part.startsWith('{') && part.endsWith('}') && part.count('{') == 1
        && part.count('}') == 1)
        return part.mid(1, part.size() - 2);
    return part.contains('{') && part.contains('}') ? part : QByteArray();
}
} // namespace Internal

// The name prefixName(prefix, name) was made of; empty when key is not one.
inline QByteArray nameOfPrefixed(const QByteArray &prefix, const QByteArray &key)
{
    const QByteArray head = prefix + ':';
    if (!key.startsWith(head) || key.size() <= head.size())
        return {};
    return Internal::unwrap(key.mid(head.size()));
}
// The name suffixName(name, suffix) was made of; empty when key is not one.
inline QByteArray nameOfSuffixed(const QByteArray &key, const QByteArray &suffix)
{
    const QByteArray tail = QByteArray(1, ':') + suffix;
    if (!key.endsWith(tail) || key.size() <= tail.size())
        return {};
    return Internal::unwrap(key.left(key.size() - tail.size()));
}

// A score (ms) from a reply as a whole number, clamped to qint64's range;
// -1 for what is not a number (replies are not trusted to be sane).
inline qint64 scoreMs(const QByteArray &score)
{
    bool ok = false;
    const double v = score.toDouble(&ok);
    if (!ok || std::isnan(v))
        return -1;
    if (v >= 9.2e18)
        return std::numeric_limits<qint64>::max();
    if (v <= -9.2e18)
        return std::numeric_limits<qint64>::min();
    return qint64(v);
}

// A lock holder's hash field as Redisson writes it (RedissonBaseLock.getLockName:
// "<connection manager UUID>:<thread id>", RedissonWriteLock adds ":write").
inline bool isLockHolder(const QByteArray &field)
{
    QByteArray f = field;
    if (f.endsWith(":write"))
        f.chop(6);
    const qsizetype colon = f.lastIndexOf(':');
    if (colon != 36 || f.size() == 37)
        return false;
    for (qsizetype i = 37; i < f.size(); ++i) {
        if (f.at(i) < '0' || f.at(i) > '9')
            return false;
    }
    // The UUID: 8-4-4-4-12 lowercase hex digits (java.util.UUID.toString()).
    for (qsizetype i = 0; i < 36; ++i) {
        const char c = f.at(i);
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-')
                return false;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return false;
        }
    }
    return true;
}

} // namespace gatehouse::redisson
