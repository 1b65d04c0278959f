// SPDX-License-Identifier: MIT
#pragma once
// What ResqueUnit's files share (resqueunit.cpp: claims and probe;
// resqueread.cpp: the reading and how it is shown; resqueactions.cpp;
// resquejobs.cpp): Resque's key names, the probe's reply layout and the
// readers of its records. Not API.

#include "resqueunit.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace gatehouse::ResqueInternal {

// ResqueUnit::Shared order: the names after the namespace, and their types.
inline constexpr const char *SharedNames[]
    = {"queues",         "failed",     "workers", "workers:heartbeat", "delayed_queue_schedule",
       "stat:processed", "stat:failed"};
inline constexpr const char *SharedTypes[]
    = {"set", "list", "set", "hash", "zset", "string", "string"};
// probe(): SCARD queues, SRANDMEMBER queues, LLEN failed, SCARD workers,
// SORT_RO workers (id, worker:<id>, worker:<id>:started), HSCAN heartbeat,
// ZCARD schedule, ZRANGE schedule (the next), MGET stats, EXISTS.
inline constexpr int FixedReplies = 10;
inline constexpr int QueueReplies = 3; // per queue: LLEN, LINDEX 0, SISMEMBER queues

inline constexpr const char *StuckReason
    = "its worker took it longer ago than the stuck threshold and still holds it "
      "(node-resque's cleanOldWorkers rule; a Resque worker gone quiet)";

inline QByteArray nsOf(const PatternObject &o)
{
    return ResqueUnit::namespaceOf(o.key).value_or(QByteArray());
}

inline QList<QByteArray> queueMembers(const PatternObject &o)
{
    QList<QByteArray> out;
    const QByteArray prefix = nsOf(o) + "queue:";
    for (const QByteArray &m : o.members) {
        if (m.startsWith(prefix))
            out << m;
    }
    return out;
}

// A queue's job as Resque writes it (Resque.push: {class, args}; node-resque
// Queue.encode: {class, queue, args}); no "jid" (Sidekiq's).
inline bool isResqueJob(const QJsonObject &job)
{
    return job.value(QStringLiteral("class")).isString()
           && job.value(QStringLiteral("args")).isArray() && !job.contains(QStringLiteral("jid"));
}
inline bool isResqueJob(const QByteArray &json)
{
    return isResqueJob(QJsonDocument::fromJson(json).object());
}

// A time as Resque writes it: Ruby's Time#iso8601 / rfc2822 / to_s, or
// JavaScript's Date#toString ("Wed Nov 25 2026 01:52:14 GMT+0000 (...)"),
// or epoch seconds; ms, -1 when none.
qint64 resqueTimeMs(const QString &text);

// The job a failed entry holds, named for the actions: "<index>:<sha1 of the
// entry>" (the script checks the entry at index is still that one).
QByteArray failedRef(qint64 index, const QByteArray &entry);

} // namespace gatehouse::ResqueInternal
