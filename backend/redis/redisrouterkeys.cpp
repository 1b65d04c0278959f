// SPDX-License-Identifier: MIT
// The keys of a command (RedisRouter::keysOf), which route it on a Cluster,
// and the sentence for keys that span hash slots.
#include "redisrouter.h"

#include "hashslot.h"
#include "userinput.h"

#include <QSet>

namespace gatehouse {

QList<QByteArray> RedisRouter::keysOf(const QList<QByteArray> &args)
{
    if (args.size() < 2)
        return {};
    const QByteArray cmd = args.first().toUpper();
    const auto numKeysAt = [&](int at) {
        QList<QByteArray> keys;
        const int n = args.value(at).toInt();
        for (int i = at + 1; i <= at + n && i < args.size(); ++i)
            keys.append(args.at(i));
        return keys;
    };
    if (cmd == "EVAL" || cmd == "EVALSHA" || cmd == "EVAL_RO" || cmd == "EVALSHA_RO"
        || cmd == "FCALL" || cmd == "FCALL_RO")
        return numKeysAt(2);
    if (cmd == "ZUNIONSTORE" || cmd == "ZINTERSTORE" || cmd == "ZDIFFSTORE")
        return QList<QByteArray>{args.at(1)} + numKeysAt(2);
    if (cmd == "ZUNION" || cmd == "ZINTER" || cmd == "ZDIFF" || cmd == "SINTERCARD"
        || cmd == "ZINTERCARD" || cmd == "LMPOP" || cmd == "ZMPOP")
        return numKeysAt(1);
    if (cmd == "MGET" || cmd == "DEL" || cmd == "UNLINK" || cmd == "EXISTS" || cmd == "TOUCH"
        || cmd == "WATCH" || cmd == "SINTER" || cmd == "SUNION" || cmd == "SDIFF"
        || cmd == "SINTERSTORE" || cmd == "SUNIONSTORE" || cmd == "SDIFFSTORE" || cmd == "PFCOUNT"
        || cmd == "PFMERGE")
        return args.mid(1);
    if (cmd == "BLPOP" || cmd == "BRPOP" || cmd == "BZPOPMIN" || cmd == "BZPOPMAX")
        return args.mid(1, args.size() - 2);
    if (cmd == "MSET" || cmd == "MSETNX") {
        QList<QByteArray> keys;
        for (qsizetype i = 1; i < args.size(); i += 2)
            keys.append(args.at(i));
        return keys;
    }
    if (cmd == "RPOPLPUSH" || cmd == "LMOVE" || cmd == "BLMOVE" || cmd == "BRPOPLPUSH"
        || cmd == "SMOVE" || cmd == "RENAME" || cmd == "RENAMENX" || cmd == "COPY" || cmd == "LCS")
        return args.mid(1, 2);
    if (cmd == "XREAD" || cmd == "XREADGROUP") {
        qsizetype at = -1;
        for (qsizetype i = 1; i < args.size(); ++i) {
            if (args.at(i).toUpper() == "STREAMS") {
                at = i;
                break;
            }
        }
        if (at < 0)
            return {};
        const qsizetype n = (args.size() - at - 1) / 2;
        return args.mid(at + 1, n);
    }
    if (cmd == "OBJECT" || cmd == "MEMORY" || cmd == "XINFO")
        return args.size() > 2 ? QList<QByteArray>{args.at(2)} : QList<QByteArray>{};
    // Commands of the server or the connection, not of a key.
    static const QSet<QByteArray> s_keyless{
        "PING",       "TIME",        "INFO",        "DBSIZE",   "SCAN",      "CONFIG",
        "CLIENT",     "CLUSTER",     "COMMAND",     "MULTI",    "EXEC",      "DISCARD",
        "SCRIPT",     "FLUSHALL",    "FLUSHDB",     "SELECT",   "AUTH",      "HELLO",
        "ROLE",       "PUBLISH",     "ECHO",        "ACL",      "LATENCY",   "SLOWLOG",
        "ASKING",     "READONLY",    "READWRITE",   "FUNCTION", "RANDOMKEY", "WAIT",
        "SWAPDB",     "LASTSAVE",    "BGSAVE",      "SAVE",     "DEBUG",     "SUBSCRIBE",
        "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE"};
    if (s_keyless.contains(cmd))
        return {};
    return {args.at(1)};
}

QString RedisRouter::crossSlotProblem(const QList<QByteArray> &keys)
{
    if (keys.size() < 2)
        return QString();
    const quint16 first = keyHashSlot(keys.first());
    for (qsizetype i = 1; i < keys.size(); ++i) {
        const quint16 other = keyHashSlot(keys.at(i));
        if (other == first)
            continue;
        const QByteArray &a = keys.first();
        const QByteArray &b = keys.at(i);
        // The hash tag that would join them: their common beginning without
        // a trailing separator, or the first key whole.
        qsizetype common = 0;
        while (common < a.size() && common < b.size() && a.at(common) == b.at(common))
            ++common;
        QByteArray stem = a.left(common);
        while (!stem.isEmpty()
               && (stem.endsWith(':') || stem.endsWith('.') || stem.endsWith('-')
                   || stem.endsWith('_')))
            stem.chop(1);
        if (stem.isEmpty())
            stem = a;
        return QStringLiteral("%1 with %2 spans Cluster hash slots %3 and %4, and one command "
                              "or script runs on one slot's node: give the keys a common hash "
                              "tag, e.g. {%5} (keys named {%5}, {%5}:...), so they share a slot.")
            .arg(printableBytes(a, 100), printableBytes(b, 100))
            .arg(first)
            .arg(other)
            .arg(printableBytes(stem, 100));
    }
    return QString();
}

} // namespace gatehouse
