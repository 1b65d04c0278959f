// SPDX-License-Identifier: MIT
#include "lockdemo.h"

namespace gatehouse {

LockDemo::LockDemo(quint32 seed)
    : m_rng(seed)
{}

QByteArray LockDemo::key(const DemoDriver &d, int i)
{
    return d.prefix() + "lock:" + QByteArray::number(i);
}

void LockDemo::tick(DemoDriver &d)
{
    if (m_holders.isEmpty())
        m_holders.resize(3 * d.scale());
    for (int i = 0; i < m_holders.size(); ++i) {
        // Decisions are drawn every tick for every lock, held or not: the
        // stream depends on the seed and the tick only.
        const bool attempt = m_rng.generateDouble() < 0.1 * d.rate() || d.tick() == 1;
        const QByteArray token = DemoDriver::randomId(m_rng);
        const bool crash = m_rng.generateDouble() < 0.15 || (i == 0 && d.tick() == 1);
        const qint64 hold = 3 + m_rng.bounded(18); // ticks
        if (m_holders.at(i).held || !attempt)
            continue;
        const QByteArray k = key(d, i);
        m_holders[i] = {token, true, crash};
        d.send(QStringLiteral("lock_acquire"), {k}, {token, QByteArray::number(TtlMs)},
               [this, &d, i, k, token, crash, hold](const RedisValue &v) {
                   if (d.stopping())
                       return;
                   if (v.toInteger() != 1) { // someone (a crashed holder) still has it
                       m_holders[i].held = false;
                       return;
                   }
                   if (crash) { // never released: free again when the TTL runs out
                       d.schedule(d.ticksFor(TtlMs) + 1, [this, i] { m_holders[i].held = false; });
                       return;
                   }
                   d.schedule(hold, [this, &d, i, k, token] {
                       m_holders[i].held = false;
                       d.send(QStringLiteral("lock_release"), {k}, {token});
                   });
               });
    }
}

void LockDemo::stop(DemoDriver &d)
{
    // Holders that did not crash release their locks on the way out.
    for (int i = 0; i < m_holders.size(); ++i) {
        Holder &h = m_holders[i];
        if (h.held && !h.crashed) {
            d.send(QStringLiteral("lock_release"), {key(d, i)}, {h.token});
            h.held = false;
        }
    }
}

QList<DemoTraffic::Instance> LockDemo::instances(const DemoDriver &d) const
{
    QList<Instance> out;
    for (int i = 0; i < 3 * d.scale(); ++i)
        out.append({key(d, i), {key(d, i)}});
    return out;
}

} // namespace gatehouse
