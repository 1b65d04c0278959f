// SPDX-License-Identifier: MIT
#include "limiterdemo.h"

#include <utility>

namespace gatehouse {

LimiterDemo::LimiterDemo(quint32 seed, Limiters limiters)
    : m_limiters(std::move(limiters))
    , m_rng(seed)
{}

void LimiterDemo::tick(DemoDriver &d)
{
    const qsizetype rates = m_limiters.rates.size();
    for (int i = 0; i < m_limiters.perScale * d.scale(); ++i) {
        const QByteArray key = m_limiters.key(d, i);
        for (int n = m_requests.due(i, m_limiters.rates.at(i % rates), d, m_rng); n > 0; --n)
            m_limiters.request(d, key, m_rng);
    }
}

QList<DemoTraffic::Instance> LimiterDemo::instances(const DemoDriver &d) const
{
    QList<Instance> out;
    for (int i = 0; i < m_limiters.perScale * d.scale(); ++i) {
        const QByteArray key = m_limiters.key(d, i);
        out.append({key, m_limiters.keys ? m_limiters.keys(key) : QList<QByteArray>{key}});
    }
    return out;
}

} // namespace gatehouse
