// SPDX-License-Identifier: MIT
#pragma once
// What CeleryUnit's files share (celeryunit.cpp: claims, probe, reading;
// celeryactions.cpp; celeryjobs.cpp): kombu's key names and helpers. Not API.

#include "celeryunit.h"

#include <redis/redisscript.h>

namespace gatehouse::CeleryInternal {

// kombu's default key names (Channel.unacked_key, unacked_index_key,
// unacked_mutex_key, keyprefix_queue) and priority steps (PRIORITY_STEPS
// [0, 3, 6, 9]: priority 0 is the queue's own list).
inline const QByteArray UnackedKey = "unacked";
inline const QByteArray UnackedIndexKey = "unacked_index";
inline const QByteArray UnackedMutexKey = "unacked_mutex";
inline const QByteArray BindingPrefix = "_kombu.binding.";
// The Redis result backend's keys (celery/backends/base.py KeyValueStoreBackend).
inline const QByteArray ResultPrefix = "celery-task-meta-";
inline const QByteArray GroupResultPrefix = "celery-taskset-meta-";
inline const QByteArray ChordPrefix = "chord-unlock-";

inline constexpr const char *Types[]
    = {"list", "list", "list", "list", "hash", "zset", "string", "set"};
inline constexpr const char *Roles[]
    = {"queue",   "priority 3 list", "priority 6 list", "priority 9 list",
       "unacked", "unacked_index",   "unacked_mutex",   "binding"};

// The exchanges of a worker's remote control and events: their queues are
// fanout and topic queues served by PUB/SUB, not lists.
inline bool isControlExchange(const QByteArray &exchange)
{
    return exchange.endsWith(".pidbox") || exchange == "celeryev";
}

// "<queue>\x06\x16<3|6|9>" -> "<queue>"; empty when key is not one.
inline QByteArray priorityBase(const QByteArray &key)
{
    const qsizetype at = key.lastIndexOf(CeleryUnit::Sep);
    if (at <= 0 || at + 3 != key.size())
        return {};
    const char p = key.at(at + 2);
    return p == '3' || p == '6' || p == '9' ? key.left(at) : QByteArray();
}

inline QByteArray secondsArg(double s)
{
    return QByteArray::number(s, 'f', 3);
}

// The most entries of "unacked" one reading examines (HSCAN pages of 100).
inline constexpr int MaxUnackedExamined = 2000;

inline const QByteArray &unackedProbe()
{
    static const QByteArray source
        = RedisScript::fromResource(QStringLiteral("celery_count_unacked")).source();
    return source;
}

// The queue's exchange: its binding set's name after "_kombu.binding.".
inline QByteArray exchangeOf(const PatternObject &o)
{
    const QByteArray binding = CeleryUnit::keyOf(o, CeleryUnit::Binding);
    return binding.startsWith(BindingPrefix) ? binding.mid(BindingPrefix.size()) : o.key;
}
} // namespace gatehouse::CeleryInternal
