// SPDX-License-Identifier: MIT
#include "semaphoredemo.h"

namespace gatehouse {

namespace {

const char *const s_names[] = {"exports", "gpu", "db-pool", "ffmpeg"};

} // namespace

SemaphoreDemo::SemaphoreDemo(quint32 seed)
    : m_rng(seed)
{}

QByteArray SemaphoreDemo::key(const QByteArray &prefix, int i)
{
    return prefix + "sem:" + s_names[i % 4] + (i >= 4 ? QByteArray::number(i) : QByteArray());
}

void SemaphoreDemo::tick(DemoDriver &d)
{
    if (m_holders.isEmpty())
        m_holders.resize(3 * d.scale() * Clients);
    for (int i = 0; i < m_holders.size(); ++i) {
        // Decisions are drawn every tick for every client, holding or not:
        // the stream depends on the seed and the tick only.
        const bool attempt = m_rng.generateDouble() < 0.03 * d.rate() || d.tick() == 1;
        const QByteArray holder = DemoDriver::randomId(m_rng);
        const bool crash = m_rng.generateDouble() < 0.02 || (i % Clients == 0 && d.tick() == 1);
        const qint64 hold = 10 + m_rng.bounded(40); // ticks: 1 to 5 s
        if (m_holders.at(i).held || !attempt)
            continue;
        const QByteArray semaphore = key(d.prefix(), i / Clients);
        m_holders[i] = {holder, true, crash};
        d.send(QStringLiteral("semaphore_acquire"), {semaphore},
               {holder, QByteArray::number(Limit), QByteArray::number(TimeoutMs)},
               [this, &d, i, semaphore, holder, crash, hold](const RedisValue &v) {
                   if (d.stopping())
                       return;
                   // Full (try again later), or no reply (a node down).
                   if (!v.isArray() || v.size() < 1 || v.at(0).toInteger() != 1) {
                       m_holders[i].held = false;
                       return;
                   }
                   if (crash) { // never released; the client restarts with a new id
                       d.schedule(hold, [this, i] { m_holders[i].held = false; });
                       return;
                   }
                   d.schedule(hold, [this, &d, i, semaphore, holder] {
                       m_holders[i].held = false;
                       d.sendCommands({{"ZREM", semaphore, holder}});
                   });
               });
    }
}

void SemaphoreDemo::stop(DemoDriver &d)
{
    for (int i = 0; i < m_holders.size(); ++i) {
        Holder &h = m_holders[i];
        if (h.held && !h.crashed) {
            d.sendCommands({{"ZREM", key(d.prefix(), i / Clients), h.id}});
            h.held = false;
        }
    }
}

QList<DemoTraffic::Instance> SemaphoreDemo::instances(const DemoDriver &d) const
{
    QList<Instance> out;
    for (int i = 0; i < 3 * d.scale(); ++i) {
        const QByteArray k = key(d.prefix(), i);
        out.append({k, {k}});
    }
    return out;
}

} // namespace gatehouse
