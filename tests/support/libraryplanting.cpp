// SPDX-License-Identifier: MIT
#include "libraryplanting.h"

namespace gatehouse::test {

QByteArray varint(quint64 v)
{
    QByteArray out;
    do {
        quint8 b = v & 0x7f;
        v >>= 7;
        if (v)
            b |= 0x80;
        out.append(char(b));
    } while (v);
    return out;
}
QByteArray field(int number, const QByteArray &bytes)
{
    return varint(quint64(number) << 3 | 2) + varint(quint64(bytes.size())) + bytes;
}
QByteArray field(int number, qint64 v)
{
    return varint(quint64(number) << 3) + varint(quint64(v));
}

QByteArray taskMessage(const QByteArray &id, const QByteArray &queue, const QByteArray &type)
{
    return field(1, type) + field(2, QByteArray(R"({"user":42})")) + field(3, id) + field(4, queue)
           + field(5, qint64(25)) + field(8, qint64(1800));
}

} // namespace gatehouse::test
