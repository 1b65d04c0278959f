// SPDX-License-Identifier: MIT
#include "demotraffic.h"

namespace gatehouse {

QByteArray DemoDriver::randomId(QRandomGenerator &rng)
{
    // 14 base-36 characters with letters and digits mixed, like real tokens.
    const QByteArray id = QByteArray::number(rng.generate64() | (quint64(1) << 63), 36).right(12);
    return QByteArray(1, char('a' + rng.bounded(26))) + QByteArray::number(rng.bounded(10)) + id;
}

} // namespace gatehouse
