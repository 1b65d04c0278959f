// SPDX-License-Identifier: MIT
#include "demotraffic.h"

namespace gatehouse {

QByteArray DemoDriver::randomId(QRandomGenerator &rng)
{
    // 14 base-36 characters with letters and digits mixed, like real tokens.
    const QByteArray id = QByteArray::number(rng.generate64() | (quint64(1) << 63), 36).right(12);
    return QByteArray(1, char('a' + rng.bounded(26))) + QByteArray::number(rng.bounded(10)) + id;
}

int DemoRequests::due(qsizetype client, double perSecond, const DemoDriver &driver,
                      QRandomGenerator &rng)
{
    if (m_carry.size() <= client)
        m_carry.resize(client + 1, 0.0);
    double &carry = m_carry[client];
    carry += perSecond * driver.rate() * driver.tickMs() / 1000.0 * (0.5 + rng.generateDouble());
    const int n = driver.tick() == 1 ? std::max(1, int(carry)) : int(carry);
    carry = std::max(0.0, carry - n);
    return n;
}

} // namespace gatehouse
