// SPDX-License-Identifier: MIT
#include "historychanges.h"

#include "historycodec_impl.h"

#include <QtEndian>

#include <cstring>

namespace gatehouse::Internal {

namespace {

enum : uchar {
    RecordAbsent = 1,
    ValueIsFloat = 4, // in a figure's tag: 4 bytes, the value is a float exactly
};
constexpr uchar TicksFormat = 2;
constexpr uchar RecordsFormat = 2;

void putVarint(QByteArray &out, quint64 v)
{
    while (v >= 0x80) {
        out.append(char(uchar(v) | 0x80));
        v >>= 7;
    }
    out.append(char(uchar(v)));
}

bool getVarint(const uchar **p, const uchar *end, quint64 *v)
{
    quint64 result = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        const uchar b = *(*p)++;
        result |= quint64(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = result;
            return true;
        }
    }
    return false;
}

} // namespace

bool slopeOf(double v0, double v1s, double v1h, qint8 *slope)
{
    // From one second on: flat, falling (possibly reaching 0), rising.
    qint8 s;
    if (sameValue(v1s, v0))
        s = 0;
    else if (v1s == v0 - 1000.0 || (v0 > 0 && v0 <= 1000.0 && v1s == 0))
        s = -1;
    else if (v1s == v0 + 1000.0)
        s = 1;
    else
        return false;
    // And it holds an hour on (a figure that steps later is not a motion).
    if (!sameValue(projectMotion(v0, s, 3600 * 1000), v1h))
        return false;
    *slope = s;
    return true;
}

void putRecord(QByteArray &out, const ChangeRecord &r)
{
    putVarint(out, r.head);
    out.append(char(r.absent ? RecordAbsent : 0));
    if (r.absent)
        return;
    const int n = std::clamp(r.figures, 0, HistoryFigures);
    out.append(char(uchar(n)));
    for (int f = 0; f < n; ++f) {
        const double v = r.values[f];
        const float asFloat = float(v);
        // Counts, ratios and ms below 2^24 are floats exactly: 4 bytes;
        // large ms (a TTL of days) keep every digit in 8.
        const bool isFloat = double(asFloat) == v || std::isnan(v);
        out.append(char(uchar(r.slopes[f] + 1) | (isFloat ? ValueIsFloat : 0)));
        uchar bytes[8];
        if (isFloat) {
            qToLittleEndian<float>(asFloat, bytes);
            out.append(reinterpret_cast<const char *>(bytes), 4);
        } else {
            qToLittleEndian<double>(v, bytes);
            out.append(reinterpret_cast<const char *>(bytes), 8);
        }
    }
}

bool getRecord(const uchar **p, const uchar *end, ChangeRecord *r)
{
    if (!getVarint(p, end, &r->head) || *p >= end)
        return false;
    const uchar flags = *(*p)++;
    r->absent = flags & RecordAbsent;
    r->figures = 0;
    if (r->absent)
        return true;
    if (*p >= end)
        return false;
    const int n = *(*p)++;
    if (n > HistoryFigures)
        return false;
    r->figures = n;
    for (int f = 0; f < n; ++f) {
        if (*p >= end)
            return false;
        const uchar tag = *(*p)++;
        r->slopes[f] = qint8(int(tag & 3) - 1);
        const int size = (tag & ValueIsFloat) ? 4 : 8;
        if (end - *p < size)
            return false;
        r->values[f]
            = size == 4 ? double(qFromLittleEndian<float>(*p)) : qFromLittleEndian<double>(*p);
        *p += size;
    }
    return true;
}

QByteArray encodeTicks(const MinuteTicks &ticks, qint64 minuteStartMs)
{
    QByteArray out;
    out.reserve(2 + ticks.times.size() * 3);
    out.append(char(TicksFormat));
    qint64 previous = minuteStartMs;
    for (qsizetype i = 0; i < ticks.times.size(); ++i) {
        putVarint(out, quint64(std::max<qint64>(0, ticks.times.at(i) - previous)));
        previous = ticks.times.at(i);
        out.append(char(ticks.flags.value(i)));
    }
    return out;
}

bool decodeTicks(const QByteArray &blob, qint64 minuteStartMs, MinuteTicks *out)
{
    out->times.clear();
    out->flags.clear();
    const uchar *p = reinterpret_cast<const uchar *>(blob.constData());
    const uchar *end = p + blob.size();
    if (p == end || *p++ != TicksFormat)
        return false;
    qint64 t = minuteStartMs;
    while (p < end) {
        quint64 dt;
        if (!getVarint(&p, end, &dt) || p >= end)
            return false;
        t += qint64(dt);
        out->times.append(t);
        out->flags.append(*p++);
    }
    return true;
}

QByteArray encodeRecords(const QList<ChangeRecord> &records)
{
    QByteArray out;
    out.append(char(RecordsFormat));
    for (const ChangeRecord &r : records)
        putRecord(out, r);
    return out;
}

bool decodeRecords(const QByteArray &blob, QList<ChangeRecord> *out)
{
    out->clear();
    const uchar *p = reinterpret_cast<const uchar *>(blob.constData());
    const uchar *end = p + blob.size();
    if (p == end || *p++ != RecordsFormat)
        return false;
    ChangeRecord r;
    while (p < end) {
        if (!getRecord(&p, end, &r))
            return false;
        out->append(r);
    }
    return true;
}

// u32 n, n x (u32 id, u32 offset into data), data (the records), little-endian.
QByteArray encodeKeyframe(const QList<ChangeRecord> &records)
{
    QByteArray data;
    data.reserve(records.size() * 20);
    QByteArray out(4 + records.size() * 8, Qt::Uninitialized);
    uchar *index = reinterpret_cast<uchar *>(out.data());
    qToLittleEndian<quint32>(quint32(records.size()), index);
    for (qsizetype i = 0; i < records.size(); ++i) {
        qToLittleEndian<quint32>(quint32(records.at(i).head), index + 4 + i * 8);
        qToLittleEndian<quint32>(quint32(data.size()), index + 8 + i * 8);
        putRecord(data, records.at(i));
    }
    return out + data;
}

bool keyframeRecord(const QByteArray &blob, quint32 id, ChangeRecord *out)
{
    const qsizetype at = indexedEntryAt(blob, id);
    if (at < 0)
        return false;
    const uchar *p = reinterpret_cast<const uchar *>(blob.constData());
    const uchar *r = p + at;
    return r < p + blob.size() && getRecord(&r, p + blob.size(), out);
}

bool decodeKeyframe(const QByteArray &blob, QList<ChangeRecord> *out)
{
    out->clear();
    if (blob.size() < 4)
        return false;
    const uchar *p = reinterpret_cast<const uchar *>(blob.constData());
    const uchar *end = p + blob.size();
    const quint32 n = qFromLittleEndian<quint32>(p);
    const qsizetype dataStart = 4 + qsizetype(n) * 8;
    if (dataStart > blob.size())
        return false;
    const uchar *r = p + dataStart;
    out->reserve(n);
    ChangeRecord record;
    for (quint32 i = 0; i < n; ++i) {
        if (!getRecord(&r, end, &record))
            return false;
        out->append(record);
    }
    return true;
}

void SeriesState::apply(const ChangeRecord &r, qint64 at)
{
    present = !r.absent;
    atMs = at;
    figures = r.figures;
    std::memcpy(values, r.values, sizeof values);
    std::memcpy(slopes, r.slopes, sizeof slopes);
}

} // namespace gatehouse::Internal
