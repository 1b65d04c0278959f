// SPDX-License-Identifier: MIT
#pragma once
// What RqUnit's files share (rqunit.cpp: claims, probe and reading;
// rqactions.cpp; rqjobs.cpp: the job browser): RQ's key names and the
// readers of its members and times. Not API.

#include "rqunit.h"

namespace gatehouse::RqInternal {

// The per-queue keys' prefixes (State order up to SchedulerLock), then the
// shared keys' whole names.
inline constexpr const char *Prefixes[]
    = {"rq:queue:",    "rq:wip:",      "rq:finished:", "rq:failed:",           "rq:scheduled:",
       "rq:deferred:", "rq:canceled:", "rq:workers:",  "rq:clean_registries:", "rq:scheduler-lock:",
       "rq:queues",    "rq:workers",   "rq:suspended"};
inline constexpr const char *Types[] = {"list", "zset",   "zset",   "zset", "zset", "zset",  "zset",
                                        "set",  "string", "string", "set",  "set",  "string"};
inline constexpr int PerQueue = RqUnit::SchedulerLock + 1;

inline const QByteArray JobPrefix = "rq:job:";
// RQ 2's executions (rq/executions.py): a started job's execution hash
// "rq:execution:<job_id>:<execution_id>" and the job's ZSET of execution ids.
inline const QByteArray ExecutionPrefix = "rq:execution:";
inline const QByteArray ExecutionsPrefix = "rq:executions:";

// RQ's utcformat ('%Y-%m-%dT%H:%M:%S.%fZ', UTC; older RQ without the
// fraction) in ms; -1 when it is not one.
qint64 rqTimeMs(const QByteArray &v);

// A started-registry member's job id: RQ 1.x keeps the id, RQ 2.x
// "job_id:execution_id" (job ids hold no ':' in RQ 2).
inline QByteArray jobOfMember(const QByteArray &member)
{
    const qsizetype colon = member.indexOf(':');
    return colon < 0 ? member : member.left(colon);
}

inline QByteArray queueName(const PatternObject &o)
{
    return o.key.mid(qsizetype(qstrlen(Prefixes[RqUnit::Queue])));
}

} // namespace gatehouse::RqInternal
