// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

#include <QJsonObject>

#include <optional>

namespace gatehouse::libraryqueue {

// How long a library's jobs wait and run (Reading::jobTimes), read with the
// queue's other figures: each library's probe adds a page of its newest
// finished jobs with their recorded times, and its oldest waiting job.

// One job's times as its library recorded them, in ms; -1 not recorded.
struct JobTiming
{
    qint64 queuedMs = -1;   // when it became ready to run (added, or its delay ended)
    qint64 startedMs = -1;  // when a worker took it
    qint64 finishedMs = -1; // when it completed or failed
};

// The jobs finished longest ago count as samples no more.
constexpr int FinishedPage = 100;

// A page of count members of a sorted set, from its end (fromEnd: the
// highest scores first) or its start, withScores as ZRANGE gives them: the
// first of two steps that read each member's hash fields (fieldsFollowUp, in
// PatternUnit::followUp). Not SORT ... GET, which reads both at once but
// converts a small sorted set from its compact encoding to a skiplist in
// place (Redis src/sort.c), several times its size, on every read.
PatternUnit::Command pageProbe(const QByteArray &key, int count, bool fromEnd,
                               bool withScores = false);
// The members of pageProbe's reply, one per member or member and score
// (none when it is not a page).
QList<QByteArray> pageMembers(const RedisValue &page, bool withScores = false);
// The second step: one HMGET of hashPrefix + member per member.
QList<PatternUnit::Command> fieldsFollowUp(const QList<QByteArray> &members,
                                           const QByteArray &hashPrefix,
                                           const QList<QByteArray> &fields);
// Rows of the member and its fields (nil as empty) from the follow-up's
// replies from at: as jobFieldRows gives them. nullopt when the replies
// stop short (no follow-up was sent) or one is not a reply of that many
// fields.
std::optional<QList<QList<QByteArray>>> fieldRows(const QList<QByteArray> &members,
                                                  const QList<RedisValue> &replies, qsizetype at,
                                                  int fields);

// A page of count job ids of a list, from its end or its start, with fields
// of each job's hash (hashPrefix + id) in one SORT_RO that reads only the
// page (a list keeps its encoding; a sorted set would not: pageProbe). Its
// reply: per job, the id and then the fields. nullopt when the prefix holds
// '*' or "->", SORT's pattern syntax.
bool sortPatternSafe(const QByteArray &hashPrefix);
std::optional<PatternUnit::Command> jobFieldsProbe(const QByteArray &key,
                                                   const QByteArray &hashPrefix,
                                                   const QList<QByteArray> &fields, int count,
                                                   bool fromEnd);
// The reply of jobFieldsProbe as rows of the id and its fields (nil as
// empty); none when the reply is not one (an error, a wrong shape).
QList<QList<QByteArray>> jobFieldRows(const RedisValue &reply, int fields);

// The quantiles of the waits (started - queued) and runs (finished -
// started) of the jobs finished within JobTimes::WindowMs before nowMs,
// into r's job times. A negative span (clocks of two machines) is left out.
void setFinishedTimes(Reading &r, const QList<JobTiming> &jobs, qint64 nowMs);
// The quantiles of the waits of the jobs running now, for a library that
// keeps no finished jobs (Sidekiq).
void setRunningWaits(Reading &r, QList<qint64> waits);
// The oldest waiting job became ready at queuedMs: its age at the reading.
// none: nothing waits (an age of 0, as Sidekiq's latency says).
void setOldestWaiting(Reading &r, qint64 queuedMs, qint64 nowMs, bool none);

// The oldest waiting job's age projected to at: it grows while the job
// waits; 0 (none waits) stays 0; -1 not recorded.
qint64 oldestWaitingAt(const Reading &r, qint64 at);

// The nearest-rank quantile q (0.5, 0.95) of sorted values; -1 when none.
qint64 quantile(const QList<qint64> &sorted, double q);

// The figures of Reading::jobTimes, NaN when not known: waitP50/P95/P99,
// runP50/P95/P99 (without run when the library records no run time) and
// oldestWaitingAgeMs; and their charts, "Wait time" (with the oldest
// waiting) and "Run time".
QList<Figure> latencyFigures(bool run = true);
QList<Chart> latencyCharts(bool run = true);
// Only the oldest waiting job's age, for a library that records when a job
// began to wait but not when it was taken (asynq: its Inspector's latency).
Figure oldestWaitingFigure();
Chart oldestWaitingChart();
// "latency": {"windowMs", "waitSamples", "waitP50Ms", ..., "oldestWaitingAgeMs"}
// when the library records it.
void writeLatencyJson(const Reading &r, qint64 nowMs, QJsonObject &json);

} // namespace gatehouse::libraryqueue
