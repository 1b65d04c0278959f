// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QtEndian>

#include <cstring>

namespace gatehouse::Internal {

// Where id's entry starts in an indexed blob (u32 n, n x (u32 id, u32
// offset into data) sorted by id, then data): a tick blob or a keyframe.
// Binary search; -1 when id is absent or the blob is malformed.
inline qsizetype indexedEntryAt(const QByteArray &blob, quint32 id)
{
    if (blob.size() < 4)
        return -1;
    const uchar *p = reinterpret_cast<const uchar *>(blob.constData());
    const quint32 n = qFromLittleEndian<quint32>(p);
    const qsizetype dataStart = 4 + qsizetype(n) * 8;
    if (dataStart > blob.size())
        return -1;
    quint32 lo = 0;
    quint32 hi = n;
    while (lo < hi) {
        const quint32 mid = lo + (hi - lo) / 2;
        if (qFromLittleEndian<quint32>(p + 4 + mid * 8) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= n || qFromLittleEndian<quint32>(p + 4 + lo * 8) != id)
        return -1;
    const qsizetype at = dataStart + qFromLittleEndian<quint32>(p + 8 + lo * 8);
    return at < blob.size() ? at : -1;
}

// A tick blob: u32 n, n x (u32 id, u32 offset into data), data; each entry
// in data is u8 figures, then that many floats; all little-endian.
template<typename F>
bool forEachTickEntry(const QByteArray &blob, F &&f)
{
    if (blob.size() < 4)
        return false;
    const uchar *p = reinterpret_cast<const uchar *>(blob.constData());
    const quint32 n = qFromLittleEndian<quint32>(p);
    const qsizetype dataStart = 4 + qsizetype(n) * 8;
    if (dataStart > blob.size())
        return false;
    float values[256];
    for (quint32 i = 0; i < n; ++i) {
        const quint32 id = qFromLittleEndian<quint32>(p + 4 + i * 8);
        const qsizetype at = dataStart + qFromLittleEndian<quint32>(p + 8 + i * 8);
        if (at >= blob.size())
            return false;
        const int figures = p[at];
        if (at + 1 + qsizetype(figures) * 4 > blob.size())
            return false;
        for (int k = 0; k < figures; ++k)
            values[k] = qFromLittleEndian<float>(p + at + 1 + k * 4);
        f(id, values, figures);
    }
    return true;
}

} // namespace gatehouse::Internal
