// SPDX-License-Identifier: MIT
#include "jobtimes.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gatehouse::libraryqueue {

namespace {

constexpr double Quantiles[3] = {0.5, 0.95, 0.99};
constexpr const char *QuantileNames[3] = {"P50", "P95", "P99"};

void fill(qint64 (&out)[3], qint64 &samples, QList<qint64> values)
{
    std::sort(values.begin(), values.end());
    samples = values.size();
    for (int i = 0; i < 3; ++i)
        out[i] = quantile(values, Quantiles[i]);
}

double known(qint64 v)
{
    return v >= 0 ? double(v) : std::numeric_limits<double>::quiet_NaN();
}

QJsonObject quantilesJson(const qint64 (&q)[3])
{
    QJsonObject o;
    for (int i = 0; i < 3; ++i)
        o.insert(QString::fromLatin1(QuantileNames[i]).toLower(), q[i]);
    return o;
}

} // namespace

PatternUnit::Command pageProbe(const QByteArray &key, int count, bool fromEnd, bool withScores)
{
    PatternUnit::Command cmd{"ZRANGE", key, "0", QByteArray::number(std::max(1, count) - 1)};
    if (fromEnd)
        cmd << "REV";
    if (withScores)
        cmd << "WITHSCORES";
    return cmd;
}

QList<QByteArray> pageMembers(const RedisValue &page, bool withScores)
{
    QList<QByteArray> out;
    if (page.type() != RedisValue::Type::Array)
        return out;
    const auto &e = page.elements();
    const qsizetype step = withScores ? 2 : 1;
    out.reserve(e.size() / step);
    for (qsizetype i = 0; i + step <= e.size(); i += step)
        out.append(e.at(i).bytes());
    return out;
}

QList<PatternUnit::Command> fieldsFollowUp(const QList<QByteArray> &members,
                                           const QByteArray &hashPrefix,
                                           const QList<QByteArray> &fields)
{
    QList<PatternUnit::Command> out;
    out.reserve(members.size());
    for (const QByteArray &m : members)
        out.append(PatternUnit::Command{"HMGET", hashPrefix + m} + fields);
    return out;
}

std::optional<QList<QList<QByteArray>>> fieldRows(const QList<QByteArray> &members,
                                                  const QList<RedisValue> &replies, qsizetype at,
                                                  int fields)
{
    if (at < 0 || replies.size() - at < members.size())
        return std::nullopt;
    QList<QList<QByteArray>> rows;
    rows.reserve(members.size());
    for (qsizetype i = 0; i < members.size(); ++i) {
        const RedisValue &v = replies.at(at + i);
        if (v.type() != RedisValue::Type::Array || v.size() != fields)
            return std::nullopt;
        QList<QByteArray> row{members.at(i)};
        for (const RedisValue &f : v.elements())
            row.append(f.isNil() ? QByteArray() : f.bytes());
        rows.append(row);
    }
    return rows;
}

bool sortPatternSafe(const QByteArray &hashPrefix)
{
    return !hashPrefix.contains('*') && !hashPrefix.contains("->");
}

std::optional<PatternUnit::Command> jobFieldsProbe(const QByteArray &key,
                                                   const QByteArray &hashPrefix,
                                                   const QList<QByteArray> &fields, int count,
                                                   bool fromEnd)
{
    if (!sortPatternSafe(hashPrefix))
        return std::nullopt;
    // BY nosort with LIMIT reads only the page, in the key's own order (a
    // sorted set's by score); DESC walks it from the end.
    PatternUnit::Command cmd{
        "SORT_RO", key, "BY", "nosort", "LIMIT", "0", QByteArray::number(std::max(1, count))};
    if (fromEnd)
        cmd << "DESC";
    cmd << "GET"
        << "#";
    for (const QByteArray &f : fields)
        cmd << "GET" << hashPrefix + "*->" + f;
    return cmd;
}

QList<QList<QByteArray>> jobFieldRows(const RedisValue &reply, int fields)
{
    QList<QList<QByteArray>> rows;
    if (reply.isError() || fields < 0)
        return rows;
    const auto &e = reply.elements();
    const qsizetype width = fields + 1;
    if (e.size() % width != 0)
        return rows;
    for (qsizetype i = 0; i + width <= e.size(); i += width) {
        QList<QByteArray> row;
        row.reserve(width);
        for (qsizetype j = 0; j < width; ++j)
            row.append(e.at(i + j).isNil() ? QByteArray() : e.at(i + j).bytes());
        rows.append(row);
    }
    return rows;
}

qint64 quantile(const QList<qint64> &sorted, double q)
{
    if (sorted.isEmpty())
        return -1;
    const qsizetype rank = qsizetype(std::ceil(q * double(sorted.size())));
    return sorted.at(std::clamp<qsizetype>(rank - 1, 0, sorted.size() - 1));
}

void setFinishedTimes(Reading &r, const QList<JobTiming> &jobs, qint64 nowMs)
{
    QList<qint64> waits, runs;
    const qint64 since = saturatingSub(nowMs, JobTimes::WindowMs);
    for (const JobTiming &j : jobs) {
        if (j.finishedMs < since || j.startedMs < 0)
            continue;
        if (j.queuedMs >= 0 && j.startedMs >= j.queuedMs)
            waits.append(saturatingSub(j.startedMs, j.queuedMs));
        if (j.finishedMs >= j.startedMs)
            runs.append(saturatingSub(j.finishedMs, j.startedMs));
    }
    JobTimes &t = r.latency();
    fill(t.wait, t.waitSamples, waits);
    fill(t.run, t.runSamples, runs);
    t.waitOfRunning = false;
}

void setRunningWaits(Reading &r, QList<qint64> waits)
{
    waits.removeIf([](qint64 w) { return w < 0; });
    JobTimes &t = r.latency();
    fill(t.wait, t.waitSamples, waits);
    t.waitOfRunning = true;
}

void setOldestWaiting(Reading &r, qint64 queuedMs, qint64 nowMs, bool none)
{
    r.latency().oldestWaitingAgeMs = none ? 0
                                     : queuedMs >= 0
                                         ? std::max<qint64>(0, saturatingSub(nowMs, queuedMs))
                                         : -1;
}

qint64 oldestWaitingAt(const Reading &r, qint64 at)
{
    const qint64 age = r.jobTimes() ? r.jobTimes()->oldestWaitingAgeMs : -1;
    return age > 0 ? r.ageAt(age, at) : age;
}

QList<Figure> latencyFigures(bool run)
{
    QList<Figure> out;
    for (int i = 0; i < 3; ++i) {
        Figure wait{QStringLiteral("wait") + QLatin1String(QuantileNames[i]),
                    QStringLiteral("Wait %1").arg(QString::fromLatin1(QuantileNames[i]).toLower()),
                    true, [i](const Reading &r, qint64) {
                        return r.jobTimes() ? known(r.jobTimes()->wait[i])
                                            : std::numeric_limits<double>::quiet_NaN();
                    }};
        wait.summary = QStringLiteral("jobWait");
        wait.quantile = Quantiles[i];
        out.append(wait);
    }
    if (run) {
        for (int i = 0; i < 3; ++i) {
            Figure f{QStringLiteral("run") + QLatin1String(QuantileNames[i]),
                     QStringLiteral("Run %1").arg(QString::fromLatin1(QuantileNames[i]).toLower()),
                     true, [i](const Reading &r, qint64) {
                         return r.jobTimes() ? known(r.jobTimes()->run[i])
                                             : std::numeric_limits<double>::quiet_NaN();
                     }};
            f.summary = QStringLiteral("jobRun");
            f.quantile = Quantiles[i];
            out.append(f);
        }
    }
    out.append(oldestWaitingFigure());
    return out;
}

Figure oldestWaitingFigure()
{
    return {QStringLiteral("oldestWaitingAgeMs"), QStringLiteral("Oldest waiting"), true,
            [](const Reading &r, qint64 at) {
                return known(oldestWaitingAt(r, at));
            }};
}

Chart oldestWaitingChart()
{
    return {QStringLiteral("Oldest waiting"),
            QStringLiteral("s"),
            {{QStringLiteral("oldestWaitingAgeMs"), QStringLiteral("oldest waiting"), 0.001}}};
}

QList<Chart> latencyCharts(bool run)
{
    // Four series at most per chart: the palette's four colours. The oldest
    // waiting job on a chart of its own: minutes beside quantiles of
    // milliseconds would flatten them onto the axis.
    Chart wait{run ? QStringLiteral("Wait time")
                   : QStringLiteral("Wait time (of the jobs running)"),
               QStringLiteral("s"),
               {{QStringLiteral("waitP50"), QStringLiteral("p50"), 0.001},
                {QStringLiteral("waitP95"), QStringLiteral("p95"), 0.001},
                {QStringLiteral("waitP99"), QStringLiteral("p99"), 0.001}}};
    if (!run)
        return {wait, oldestWaitingChart()};
    return {wait,
            oldestWaitingChart(),
            {QStringLiteral("Run time"),
             QStringLiteral("s"),
             {{QStringLiteral("runP50"), QStringLiteral("p50"), 0.001},
              {QStringLiteral("runP95"), QStringLiteral("p95"), 0.001},
              {QStringLiteral("runP99"), QStringLiteral("p99"), 0.001}}}};
}

void writeLatencyJson(const Reading &r, qint64 nowMs, QJsonObject &json)
{
    const JobTimes *t = r.jobTimes();
    if (!t)
        return;
    QJsonObject o{{QStringLiteral("windowMs"), JobTimes::WindowMs},
                  {QStringLiteral("waitsOf"),
                   t->waitOfRunning ? QStringLiteral("running") : QStringLiteral("finished")},
                  {QStringLiteral("waitSamples"), t->waitSamples},
                  {QStringLiteral("waitMs"), quantilesJson(t->wait)},
                  {QStringLiteral("oldestWaitingAgeMs"), oldestWaitingAt(r, nowMs)}};
    if (!t->waitOfRunning) {
        o.insert(QStringLiteral("runSamples"), t->runSamples);
        o.insert(QStringLiteral("runMs"), quantilesJson(t->run));
    }
    json.insert(QStringLiteral("latency"), o);
}

} // namespace gatehouse::libraryqueue
