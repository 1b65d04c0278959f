// SPDX-License-Identifier: MIT
#pragma once
// What SidekiqUnit's files share (sidekiqunit.cpp: claims and probe;
// sidekiqread.cpp: the reading and how it is shown; sidekiqactions.cpp;
// sidekiqjobs.cpp): Sidekiq's key names, the probe's reply layout and the
// readers of its records. Not API.

#include "sidekiqunit.h"

#include <redis/redisvalue.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QRegularExpression>

#include <algorithm>
#include <optional>

namespace gatehouse::SidekiqInternal {

inline constexpr const char *SharedNames[] = {"queues", "processes", "schedule", "retry", "dead"};
inline constexpr const char *SharedTypes[] = {"set", "set", "zset", "zset", "zset"};
inline constexpr int FixedReplies = 7; // probe(): the shared keys' commands
inline constexpr int QueueReplies = 2; // per queue: LLEN, LINDEX -1
// Per process: HMGET, HSCAN :workers, HSCAN :work, SISMEMBER processes,
// PTTL of the heartbeat hash, PTTL :workers, PTTL :work.
inline constexpr int ProcessReplies = 7;
// Last: MGET of the deployment's lifetime counters stat:processed and
// stat:failed (Sidekiq::Stats#processed and #failed; the processes flush
// them with each heartbeat), for its throughput.
inline constexpr int StatReplies = 1;

inline constexpr const char *StuckReason
    = "in flight on a dead Sidekiq process (its heartbeat stopped): with the "
      "basic fetch no worker will run it again";

// "<hostname>:<pid>:<12 hex>": Sidekiq's identity (Sidekiq::Util#identity,
// SecureRandom.hex(6)), the name of its heartbeat hash.
inline bool isIdentity(const QByteArray &name)
{
    static const QRegularExpression re(QStringLiteral("^.+:[0-9]+:[0-9a-f]{12}$"));
    return re.match(QString::fromUtf8(name)).hasMatch();
}

// A number from a reply or a job's JSON as qint64: NaN and out-of-range
// values (not to be trusted) become -1, unknown.
inline qint64 toInt64(double v)
{
    return v > -9.2e18 && v < 9.2e18 ? qint64(v) : -1;
}

// Epoch seconds (Sidekiq 6 and 7) or ms (8) to ms, by magnitude: 1e11 s is
// the year 5138, 1e11 ms 1973. -1 when it is no time at all.
inline qint64 epochMs(double v)
{
    const qint64 ms = toInt64(v > 1e11 ? v : v * 1000.0);
    return ms >= 0 ? ms : -1;
}

// Time since t (ms) at now; 0 when t is unknown or after now.
inline qint64 since(qint64 nowMs, qint64 t)
{
    return t >= 0 ? std::max<qint64>(0, saturatingSub(nowMs, t)) : 0;
}

inline std::optional<double> numberOf(const QJsonValue &v)
{
    if (v.isDouble())
        return v.toDouble();
    if (v.isString()) {
        bool ok = false;
        const double d = v.toString().toDouble(&ok);
        if (ok)
            return d;
    }
    return std::nullopt;
}

inline std::optional<double> numberOf(const RedisValue &v)
{
    if (v.isNil())
        return std::nullopt;
    bool ok = false;
    const double d = v.bytes().toDouble(&ok);
    return ok ? std::optional<double>(d) : std::nullopt;
}

inline QByteArray workKey(const QByteArray &processKey, bool v6)
{
    return processKey + (v6 ? ":workers" : ":work");
}

// The object's members: its queue lists and its processes' heartbeat hashes.
inline QList<QByteArray> queueMembers(const PatternObject &o, const QByteArray &ns)
{
    QList<QByteArray> out;
    for (const QByteArray &m : o.members) {
        if (m.startsWith(QByteArray(ns + "queue:")))
            out << m;
    }
    return out;
}

inline QList<QByteArray> processMembers(const PatternObject &o, const QByteArray &ns)
{
    QList<QByteArray> out;
    for (const QByteArray &m : o.members) {
        if (!m.startsWith(QByteArray(ns + "queue:")))
            out << m;
    }
    return out;
}

// What probe() asks for: the shared keys', each member queue's and
// process's, then the counters' replies.
inline qsizetype probeReplies(const QList<QByteArray> &queues, const QList<QByteArray> &processes)
{
    return FixedReplies + QueueReplies * queues.size() + ProcessReplies * processes.size()
           + StatReplies;
}

// The names a page of "queues" or "processes" lists (listed) whose keys
// (prefix + name) are not the object's members (keys): what the follow-up
// reads, in this order, and the reading reads back in the same order.
inline QList<QByteArray> notMembers(const RedisValue &listed, const QByteArray &prefix,
                                    const QList<QByteArray> &keys)
{
    QList<QByteArray> out;
    if (listed.isError())
        return out;
    for (const RedisValue &v : listed.elements()) {
        if (!keys.contains(prefix + v.bytes()))
            out << v.bytes();
    }
    return out;
}

inline QByteArray nsOf(const PatternObject &o)
{
    return SidekiqUnit::namespaceOf(o.key).value_or(QByteArray());
}

// One job record's fields the console shows; the payload is a JSON string.
struct JobFields
{
    QByteArray jid, klass;
    qint64 retryCount = -1;
    qint64 enqueuedAtMs = -1;
};

inline JobFields jobFields(const QByteArray &json)
{
    JobFields f;
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    f.jid = o.value(QStringLiteral("jid")).toString().toUtf8().left(120);
    f.klass = o.value(QStringLiteral("wrapped")).toString().toUtf8().left(120);
    if (f.klass.isEmpty())
        f.klass = o.value(QStringLiteral("class")).toString().toUtf8().left(120);
    if (auto n = numberOf(o.value(QStringLiteral("retry_count"))))
        f.retryCount = toInt64(*n);
    if (auto n = numberOf(o.value(QStringLiteral("enqueued_at"))))
        f.enqueuedAtMs = epochMs(*n);
    else if (auto c = numberOf(o.value(QStringLiteral("created_at"))))
        f.enqueuedAtMs = epochMs(*c);
    return f;
}

// Sidekiq Web names a job of a sorted set "<score>-<jid>" (its score finds
// it among the entries at that time); a bare jid is looked for in a page.
inline std::pair<QByteArray, QByteArray> scoreAndJid(const QByteArray &job)
{
    const qsizetype dash = job.indexOf('-');
    if (dash > 0) {
        bool ok = false;
        job.left(dash).toDouble(&ok);
        if (ok)
            return {job.left(dash), job.mid(dash + 1)};
    }
    return {QByteArray(), job};
}
} // namespace gatehouse::SidekiqInternal
