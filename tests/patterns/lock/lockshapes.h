// SPDX-License-Identifier: MIT
#pragma once

#include "keyshapes.h"

namespace gatehouse::test {

// The value the n-th holder of a lock writes, by shape: "tok" (tok<n>),
// "literal" (the same "tok" in every key), "host-pid" (host-<n>:<pid>),
// "integer" (a small one), "uuid", "json" ({"owner":"w-<n>","ts":...}),
// "letters" (random letters only: no digit, so not "random-looking").
inline QByteArray lockValue(const QByteArray &shape, int n)
{
    const QByteArray i = QByteArray::number(n);
    if (shape == "tok")
        return "tok" + i;
    if (shape == "literal")
        return "tok";
    if (shape == "host-pid")
        return "host-" + QByteArray::number(n % 7) + ':' + QByteArray::number(4100 + n * 13);
    if (shape == "integer")
        return QByteArray::number(n % 9 + 1);
    if (shape == "uuid")
        return "3f9a1c2e-77b1-4c1d-9e2a-" + QByteArray::number(0x100000000000ULL + quint64(n), 16);
    if (shape == "json")
        return "{\"owner\":\"w-" + QByteArray::number(n % 5)
               + "\",\"ts\":" + QByteArray::number(1763800000000LL + n) + '}';
    if (shape == "letters") {
        QByteArray out;
        quint32 x = 2654435761u * quint32(n + 1);
        for (int c = 0; c < 16; ++c) {
            x = x * 1664525u + 1013904223u;
            const int r = int((x >> 16) % 52);
            out += char(r < 26 ? 'a' + r : 'A' + r - 26);
        }
        return out;
    }
    return {};
}

// n locks "<prefix><k>" holding lockValue(shape, k), each with a PX TTL.
inline QList<KeyShape> lockFamilyShapes(const QByteArray &shape, const QByteArray &prefix, int n,
                                        qint64 pttlMs = 600000)
{
    QList<KeyShape> out;
    for (int k = 0; k < n; ++k)
        out << stringShape(prefix + QByteArray::number(k), lockValue(shape, k), pttlMs - k);
    return out;
}

} // namespace gatehouse::test
