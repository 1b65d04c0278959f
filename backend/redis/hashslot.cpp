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

QByteArray keyHashTag(const QByteArray &key)
{
    const qsizetype open = key.indexOf('{');
    const qsizetype close = open < 0 ? -1 : key.indexOf('}', open + 1);
    return close > open + 1 ? key.mid(open + 1, close - open - 1) : QByteArray();
}

quint16 keyHashSlot(const QByteArray &key)
{
    const QByteArray tag = keyHashTag(key);
    const QByteArray &hashed = tag.isEmpty() ? key : tag;
    return crc16(hashed.constData(), hashed.size()) & 0x3fff;
}

} // namespace gatehouse
