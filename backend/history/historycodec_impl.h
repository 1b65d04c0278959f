// SPDX-License-Identifier: MIT
#pragma once

#include <QtEndian>

#include <cstring>

namespace gatehouse::Internal {

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
