// SPDX-License-Identifier: MIT
#include "hashslot.h"

namespace gatehouse {

namespace {

quint16 crc16(const char *data, qsizetype len)
{
    quint16 crc = 0;
    for (qsizetype i = 0; i < len; ++i) {
        crc ^= quint16(quint8(data[i])) << 8;
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000) ? quint16((crc << 1) ^ 0x1021) : quint16(crc << 1);
    }
    return crc;
}

} // namespace

quint16 keyHashSlot(const QByteArray &key)
{
    const qsizetype open = key.indexOf('{');
    if (open >= 0) {
        const qsizetype close = key.indexOf('}', open + 1);
        if (close > open + 1)
            return crc16(key.constData() + open + 1, close - open - 1) & 0x3fff;
    }
    return crc16(key.constData(), key.size()) & 0x3fff;
}

} // namespace gatehouse
