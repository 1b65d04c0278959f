// SPDX-License-Identifier: MIT
#include "reliablequeuedemo.h"

#include <cmath>
#include <utility>

namespace gatehouse {

namespace {

const char *const s_names[] = {"mail", "thumbnails", "billing", "search", "webhooks"};

} // namespace

ReliableQueueDemo::ReliableQueueDemo(quint32 seed)
    : m_rng(seed)
{}

QByteArray ReliableQueueDemo::queue(const DemoDriver &d, int i)
{
    return d.tagged(d.prefix() + "jobs:",
                    s_names[i % 5] + (i >= 5 ? QByteArray::number(i) : QByteArray()));
}

QByteArray ReliableQueueDemo::legacyQueue(const DemoDriver &d, int i)
{
    return d.tagged(d.prefix() + "legacyq:", QByteArray::number(i));
}

void ReliableQueueDemo::tick(DemoDriver &d)
{
    if (m_firstClaimCrashes.isEmpty())
        m_firstClaimCrashes = QList<bool>(d.scale(), true);
    for (int i = 0; i < d.scale(); ++i)
        tickQueue(d, i);
    for (int i = 0; i < (d.scale() + 1) / 2; ++i)
        tickLegacyQueue(d, i);
}

void ReliableQueueDemo::tickQueue(DemoDriver &d, int i)
{
    const QByteArray name = queue(d, i);
    const QByteArray processing = name + ":processing";
    const QByteArray claims = name + ":claims";
    // Producers: 2 jobs/s on average, in waves, so the length moves.
    const double t = d.tick() * d.tickMs() / 1000.0;
    const double rate = 2.0 + 1.5 * std::sin(t / 20.0 + i);
    const int produced
        = d.tick() == 1 ? 5 : (m_rng.generateDouble() < rate * d.rate() * 0.1 ? 1 : 0);
    for (int j = 0; j < produced; ++j) {
        const QByteArray job
            = "{\"id\":\"" + DemoDriver::randomId(m_rng) + "\",\"q\":\"" + name + "\"}";
        d.sendCommands({{"LPUSH", name, job}});
    }
    // Two workers; each claims about once a second while idle.
    for (int w = 0; w < 2; ++w) {
        const bool claim = m_rng.generateDouble() < 0.1 * d.rate() || d.tick() == 2;
        const bool crash = m_rng.generateDouble() < 0.1;
        const qint64 work = 2 + m_rng.bounded(28);
        if (!claim)
            continue;
        d.send(QStringLiteral("queue_claim"), {name, processing, claims}, {QByteArray()},
               [this, &d, i, processing, claims, crash, work](const RedisValue &job) {
                   if (!job.isBulk() || d.stopping())
                       return; // empty queue
                   if (crash || std::exchange(m_firstClaimCrashes[i], false))
                       return; // the worker died holding the job: it stays stuck
                   d.schedule(work, [&d, processing, claims, j = job.bytes()] {
                       d.send(QStringLiteral("queue_ack"), {processing, claims}, {j});
                   });
               });
    }
}

void ReliableQueueDemo::tickLegacyQueue(DemoDriver &d, int i)
{
    const QByteArray name = legacyQueue(d, i);
    const QByteArray processing = name + ":processing";
    if (m_rng.generateDouble() < 0.15 * d.rate() || d.tick() == 1)
        d.sendCommands({{"LPUSH", name, "job-" + DemoDriver::randomId(m_rng)}});
    const bool claim = m_rng.generateDouble() < 0.12 * d.rate() || d.tick() == 2;
    const bool crash = m_rng.generateDouble() < 0.1 || d.tick() == 2;
    const qint64 work = 2 + m_rng.bounded(20);
    if (!claim)
        return;
    d.sendCommand({"RPOPLPUSH", name, processing},
                  [&d, processing, crash, work](const RedisValue &job) {
                      if (!job.isBulk() || crash || d.stopping())
                          return;
                      d.schedule(work, [&d, processing, j = job.bytes()] {
                          d.sendCommands({{"LREM", processing, "1", j}});
                      });
                  });
}

QList<DemoTraffic::Instance> ReliableQueueDemo::instances(const DemoDriver &d) const
{
    QList<Instance> out;
    for (int i = 0; i < d.scale(); ++i) {
        const QByteArray name = queue(d, i);
        out.append({name, {name, name + ":processing", name + ":dead"}});
    }
    for (int i = 0; i < (d.scale() + 1) / 2; ++i) {
        const QByteArray name = legacyQueue(d, i);
        out.append({name, {name, name + ":processing"}});
    }
    return out;
}

} // namespace gatehouse
