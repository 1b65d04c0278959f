// SPDX-License-Identifier: MIT
#include "historycodec.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace gatehouse::Internal {

namespace {

enum Format : uchar {
    MinuteFormat = 1,
    HourFormat = 2,
    Compressed = 0x80, // the rest of the blob has its zero runs packed (packZeros)
};

void putVarint(QByteArray &out, quint64 v)
{
    while (v >= 0x80) {
        out.append(char(uchar(v) | 0x80));
        v >>= 7;
    }
    out.append(char(uchar(v)));
}

quint64 zigzag(qint64 v)
{
    return (quint64(v) << 1) ^ quint64(v >> 63);
}

qint64 unzigzag(quint64 v)
{
    return qint64(v >> 1) ^ -qint64(v & 1);
}

quint32 bitsOf(float f)
{
    quint32 b;
    std::memcpy(&b, &f, 4);
    return b;
}

float floatOf(quint32 b)
{
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// A column of floats. Whole numbers (counts, ms) as varint deltas: a
// steady or slowly moving count costs a byte a sample. Others as the XOR of
// their bits with the previous value's: a repeated value costs one zero byte.
enum Column : uchar { XorFloats = 0, IntDeltas = 1 };

void putFloats(QByteArray &out, const QList<float> &values, qsizetype n)
{
    bool whole = true;
    for (qsizetype i = 0; i < n && whole; ++i) {
        const float v = i < values.size() ? values.at(i) : 0.0f;
        whole = std::isfinite(v) && std::fabs(v) < 16777216.0f && v == std::trunc(v);
    }
    out.append(char(whole ? IntDeltas : XorFloats));
    if (whole) {
        qint64 previous = 0;
        for (qsizetype i = 0; i < n; ++i) {
            const qint64 v = i < values.size() ? qint64(values.at(i)) : 0;
            putVarint(out, zigzag(v - previous));
            previous = v;
        }
        return;
    }
    quint32 previous = 0;
    for (qsizetype i = 0; i < n; ++i) {
        const quint32 b = bitsOf(i < values.size() ? values.at(i) : 0.0f);
        putVarint(out, b ^ previous);
        previous = b;
    }
}

class Reader
{
public:
    explicit Reader(const QByteArray &data)
        : m_p(reinterpret_cast<const uchar *>(data.constData()))
        , m_end(m_p + data.size())
    {}
    bool ok() const { return m_ok; }
    quint64 varint()
    {
        quint64 v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p >= m_end) {
                m_ok = false;
                return 0;
            }
            const uchar c = *m_p++;
            v |= quint64(c & 0x7f) << shift;
            if (!(c & 0x80))
                return v;
        }
        m_ok = false;
        return 0;
    }
    uchar byte()
    {
        if (m_p >= m_end) {
            m_ok = false;
            return 0;
        }
        return *m_p++;
    }
    QList<float> floats(qsizetype n)
    {
        QList<float> out;
        out.reserve(n);
        if (byte() == IntDeltas) {
            qint64 value = 0;
            for (qsizetype i = 0; i < n && m_ok; ++i) {
                value += unzigzag(varint());
                out.append(float(value));
            }
            return out;
        }
        quint32 previous = 0;
        for (qsizetype i = 0; i < n && m_ok; ++i) {
            previous ^= quint32(varint());
            out.append(floatOf(previous));
        }
        return out;
    }

private:
    const uchar *m_p;
    const uchar *m_end;
    bool m_ok = true;
};

// Runs of zero bytes (a figure that did not move: its deltas or XORs are
// zeros) as a zero and the run's length; other bytes as they are. zlib
// would do a little better on the rest, but its per-call setup (a 256 KiB
// state cleared for every blob) costs more than the whole encoding at
// 10,000 blobs a minute.
QByteArray packZeros(const QByteArray &body)
{
    QByteArray out;
    out.reserve(body.size());
    const char *p = body.constData();
    const qsizetype n = body.size();
    for (qsizetype i = 0; i < n;) {
        if (p[i] != 0) {
            out.append(p[i++]);
            continue;
        }
        int run = 0;
        while (i < n && p[i] == 0 && run < 255) {
            ++run;
            ++i;
        }
        out.append(char(0));
        out.append(char(uchar(run)));
    }
    return out;
}

bool unpackZeros(const char *p, qsizetype n, QByteArray *out)
{
    out->clear();
    out->reserve(n * 2);
    for (qsizetype i = 0; i < n; ++i) {
        if (p[i] != 0) {
            out->append(p[i]);
            continue;
        }
        if (++i >= n)
            return false;
        out->append(qsizetype(uchar(p[i])), char(0));
    }
    return true;
}

// format byte + body, the body's zero runs packed when that is smaller.
QByteArray seal(uchar format, const QByteArray &body)
{
    QByteArray packed = packZeros(body);
    QByteArray out;
    const bool smaller = packed.size() < body.size();
    out.reserve((smaller ? packed.size() : body.size()) + 1);
    out.append(char(smaller ? (format | Compressed) : format));
    out.append(smaller ? packed : body);
    return out;
}

bool open(const QByteArray &blob, uchar format, QByteArray *body)
{
    if (blob.isEmpty() || (uchar(blob.at(0)) & ~Compressed) != format)
        return false;
    if (uchar(blob.at(0)) & Compressed)
        return unpackZeros(blob.constData() + 1, blob.size() - 1, body);
    *body = blob.mid(1);
    return true;
}

// Times as the first one, then deltas of deltas (steady ticks: zeros).
void putTimes(QByteArray &out, const QList<qint64> &times)
{
    qint64 previous = 0;
    qint64 previousDelta = 0;
    for (qsizetype i = 0; i < times.size(); ++i) {
        const qint64 delta = times.at(i) - previous;
        putVarint(out, zigzag(i == 0 ? delta : delta - previousDelta));
        previousDelta = delta;
        previous = times.at(i);
    }
}

QList<qint64> readTimes(Reader &r, qsizetype n)
{
    QList<qint64> times;
    times.reserve(n);
    qint64 previous = 0;
    qint64 previousDelta = 0;
    for (qsizetype i = 0; i < n && r.ok(); ++i) {
        const qint64 d = unzigzag(r.varint());
        const qint64 delta = i == 0 ? d : previousDelta + d;
        previous += delta;
        previousDelta = delta;
        times.append(previous);
    }
    return times;
}

} // namespace

QByteArray encodeMinute(const MinuteSamples &samples)
{
    QByteArray body;
    const qsizetype n = samples.times.size();
    body.reserve(8 + n * (2 + samples.values.size() * 2));
    body.append(char(uchar(samples.values.size())));
    putVarint(body, quint64(n));
    putTimes(body, samples.times);
    for (const QList<float> &figure : samples.values)
        putFloats(body, figure, n);
    return seal(MinuteFormat, body);
}

bool decodeMinute(const QByteArray &blob, MinuteSamples *out)
{
    QByteArray body;
    if (!open(blob, MinuteFormat, &body))
        return false;
    Reader r(body);
    const int figures = r.byte();
    const qsizetype n = qsizetype(r.varint());
    if (!r.ok() || n > 100000)
        return false;
    out->times = readTimes(r, n);
    out->values.clear();
    for (int f = 0; f < figures && r.ok(); ++f)
        out->values.append(r.floats(n));
    return r.ok();
}

QByteArray encodeHour(const HourBuckets &hour)
{
    QByteArray body;
    const qsizetype n = hour.minutes.size();
    body.append(char(uchar(hour.buckets.size())));
    putVarint(body, quint64(n));
    putTimes(body, hour.minutes);
    for (const QList<Bucket> &figure : hour.buckets) {
        QList<float> column(n);
        for (float Bucket::*field : {&Bucket::min, &Bucket::max, &Bucket::mean, &Bucket::last}) {
            for (qsizetype i = 0; i < n; ++i)
                column[i] = i < figure.size() ? figure.at(i).*field : 0.0f;
            putFloats(body, column, n);
        }
    }
    return seal(HourFormat, body);
}

bool decodeHour(const QByteArray &blob, HourBuckets *out)
{
    QByteArray body;
    if (!open(blob, HourFormat, &body))
        return false;
    Reader r(body);
    const int figures = r.byte();
    const qsizetype n = qsizetype(r.varint());
    if (!r.ok() || n > 100000)
        return false;
    out->minutes = readTimes(r, n);
    out->buckets.clear();
    for (int f = 0; f < figures && r.ok(); ++f) {
        QList<Bucket> column(n);
        for (float Bucket::*field : {&Bucket::min, &Bucket::max, &Bucket::mean, &Bucket::last}) {
            const QList<float> values = r.floats(n);
            for (qsizetype i = 0; i < n && i < values.size(); ++i)
                column[i].*field = values.at(i);
        }
        out->buckets.append(column);
    }
    return r.ok();
}

TickBlobWriter::TickBlobWriter(int objects)
{
    m_ids.reserve(objects);
    m_offsets.reserve(objects);
    m_data.reserve(qsizetype(objects) * 13);
}

void TickBlobWriter::add(quint32 id, const float *values, int figures)
{
    m_ids.append(id);
    m_offsets.append(quint32(m_data.size()));
    m_data.append(char(uchar(figures)));
    for (int k = 0; k < figures; ++k) {
        uchar le[4];
        qToLittleEndian<float>(values[k], le);
        m_data.append(reinterpret_cast<const char *>(le), 4);
    }
}

QByteArray TickBlobWriter::finish()
{
    QByteArray out;
    const quint32 n = quint32(m_ids.size());
    out.resize(4 + qsizetype(n) * 8);
    uchar *p = reinterpret_cast<uchar *>(out.data());
    qToLittleEndian<quint32>(n, p);
    for (quint32 i = 0; i < n; ++i) {
        qToLittleEndian<quint32>(m_ids.at(i), p + 4 + i * 8);
        qToLittleEndian<quint32>(m_offsets.at(i), p + 8 + i * 8);
    }
    out.append(m_data);
    return out;
}

bool tickValues(const QByteArray &blob, quint32 id, QList<float> *values)
{
    const qsizetype at = indexedEntryAt(blob, id);
    if (at < 0)
        return false;
    const uchar *p = reinterpret_cast<const uchar *>(blob.constData());
    const int figures = p[at];
    if (at + 1 + qsizetype(figures) * 4 > blob.size())
        return false;
    values->resize(figures);
    for (int k = 0; k < figures; ++k)
        (*values)[k] = qFromLittleEndian<float>(p + at + 1 + k * 4);
    return true;
}

} // namespace gatehouse::Internal
