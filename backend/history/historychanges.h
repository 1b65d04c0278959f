// SPDX-License-Identifier: MIT
#pragma once

#include "historycodec.h"
#include <QByteArray>

#include <QList>

#include <algorithm>
#include <cmath>

namespace gatehouse::Internal {

// History format 2: what changed, not every figure every tick.
//
// Why: between two readings of an object its figures move only by
// projection (Reading::at): countdowns (TTL, retry horizon, reset) fall to 0,
// ages grow, counts stay put. With keyspace events live most objects are not
// re-read for minutes, so writing every figure of every object every tick
// (format 1) cost the console more CPU than monitoring itself. A figure is
// therefore stored as a motion: its value at a time and how it moves from
// there (flat, falling to 0, rising), and a new motion is written only when
// a reading says something the last one did not predict. The reader carries
// the motion forward to every tick time, so it gives the same samples as
// format 1 gave, and a constant figure reads as that constant, not as gaps.
//
// Slopes are exactly -1, 0 or +1 ms per ms (what Reading::countdownAt and
// Reading::ageAt do); a figure that moves otherwise is re-sent every tick as
// a flat motion (never seen among the registered patterns, but safe).

// The value of a motion (value v at its time, slope s) dt ms later.
inline double projectMotion(double v, qint8 s, qint64 dt)
{
    if (s == 0 || dt <= 0)
        return v;
    if (s < 0)
        return v > 0 ? std::max(0.0, v - double(dt)) : v;
    return v + double(dt);
}

inline bool sameValue(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

// Two motions at one time have the same future: equal now and far ahead
// (slopes are -1/0/+1 with a floor at 0, so two points settle it).
inline bool sameFuture(double a, qint8 as, double b, qint8 bs)
{
    constexpr qint64 Far = 1000000000000LL;
    return sameValue(a, b) && sameValue(projectMotion(a, as, Far), projectMotion(b, bs, Far));
}

// A duration figure (a TTL, an age; ms) read again within this of where its
// motion had it keeps that motion: a TTL's reply is as of when the server
// ran the command, the reading's time is the probe's send time plus the
// estimated clock offset, so a re-read TTL lands a few ms off its countdown
// without anything having written the key (Monitor::DurationSlackMs: the
// same rule for "was it written?"). The file's durations are within this of
// the readings; without it every re-read lock would write a record.
constexpr double DurationSlackMs = 100;

// Whether a figure's new motion (now, nowSlope) is the one it had (was,
// wasSlope, projected to the same time): the same future, or for a duration
// the same slope within DurationSlackMs.
inline bool sameMotion(double was, qint8 wasSlope, double now, qint8 nowSlope, bool isDuration)
{
    if (sameFuture(was, wasSlope, now, nowSlope))
        return true;
    return isDuration && wasSlope == nowSlope && std::abs(was - now) <= DurationSlackMs;
}

// The slope of a figure from its values at t, t + 1 s and t + 1 h; false
// when it does not move as a motion can.
bool slopeOf(double v0, double v1s, double v1h, qint8 *slope);

// One object's motions from a time on, or its absence (stale, gone,
// removed: no samples until the next record).
struct ChangeRecord
{
    quint64 head = 0; // the object id (tick blobs) or ms since the minute's start (minute blobs)
    bool absent = false;
    int figures = 0;
    double values[HistoryFigures] = {};
    qint8 slopes[HistoryFigures] = {};
};
void putRecord(QByteArray &out, const ChangeRecord &r);
// Reads one record at *p (advanced); false at a malformed one.
bool getRecord(const uchar **p, const uchar *end, ChangeRecord *r);

// A tick blob (the `recent` table, format 2): u8 flags, then the records of
// the objects that changed, by id. Full: every present object has a record
// and the ones without are absent (the first tick after opening, the first
// of each hour); a reader starts from one.
enum TickFlags : uchar { FullTick = 1 };

// A full tick's records (the `keyframes` table, one row per full tick):
// sorted by id with an index, so a reader finds one object by binary search
// and the minute's fold does not split 20,000 records into as many rows.
// records: heads are ids, ascending, unique.
QByteArray encodeKeyframe(const QList<ChangeRecord> &records);
bool keyframeRecord(const QByteArray &blob, quint32 id, ChangeRecord *out);
bool decodeKeyframe(const QByteArray &blob, QList<ChangeRecord> *out);

// The ticks of one minute (the `samples` row of object 0): ms since the
// minute's start and flags, ascending.
struct MinuteTicks
{
    QList<qint64> times;
    QList<uchar> flags;
};
QByteArray encodeTicks(const MinuteTicks &ticks, qint64 minuteStartMs);
bool decodeTicks(const QByteArray &blob, qint64 minuteStartMs, MinuteTicks *out);

// One object's records of one minute (its `samples` row): heads are ms
// since the minute's start, ascending.
QByteArray encodeRecords(const QList<ChangeRecord> &records);
bool decodeRecords(const QByteArray &blob, QList<ChangeRecord> *out);

// The object's state while a reader or the downsampling walks ticks.
struct SeriesState
{
    bool present = false;
    qint64 atMs = 0;
    int figures = 0;
    double values[HistoryFigures] = {};
    qint8 slopes[HistoryFigures] = {};

    void apply(const ChangeRecord &r, qint64 atMs);
    float valueAt(int f, qint64 t) const
    {
        return f < figures ? float(projectMotion(values[f], slopes[f], t - atMs)) : 0.0f;
    }
};

} // namespace gatehouse::Internal
