// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QList>

namespace gatehouse {
// The most figures of one object the history keeps (PatternUnit::figures():
// a library queue's counts, ages and wait and run quantiles).
constexpr int HistoryFigures = 16;
} // namespace gatehouse

namespace gatehouse::Internal {

// The blobs of the history database (HistoryStore). Every blob starts with a
// format byte; integers are LEB128 varints, values are floats stored as the
// XOR of their bits with the previous value's (a value that repeats costs
// one zero byte; whole numbers are varint deltas), and runs of zero bytes
// are packed to two bytes (a figure that does not move costs almost nothing).

// One object's samples of one minute: times (server ms) and, per figure,
// one value per time.
struct MinuteSamples
{
    QList<qint64> times;
    QList<QList<float>> values; // [figure][sample]
};
QByteArray encodeMinute(const MinuteSamples &samples);
bool decodeMinute(const QByteArray &blob, MinuteSamples *out);

// One object's one-minute buckets of one hour.
struct Bucket
{
    float min = 0;
    float max = 0;
    float mean = 0;
    float last = 0;
};
struct HourBuckets
{
    QList<qint64> minutes;        // minute start (server ms), ascending
    QList<QList<Bucket>> buckets; // [figure][bucket]
};
QByteArray encodeHour(const HourBuckets &hour);
bool decodeHour(const QByteArray &blob, HourBuckets *out);

// One tick of every object, as written each second (the `recent` table):
// entries sorted by object id, so one object is found by binary search.
class TickBlobWriter
{
public:
    explicit TickBlobWriter(int objects);
    // ids ascending
    void add(quint32 id, const float *values, int figures);
    QByteArray finish();

private:
    QList<quint32> m_ids;
    QList<quint32> m_offsets;
    QByteArray m_data;
};
// The values of object id in a tick blob; false when it has none.
bool tickValues(const QByteArray &blob, quint32 id, QList<float> *values);
// Every entry of a tick blob, in id order.
template<typename F>
bool forEachTickEntry(const QByteArray &blob, F &&f);

} // namespace gatehouse::Internal

#include "historycodec_impl.h"
