// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/demotraffic.h>

namespace gatehouse {

// The semaphores of the demo: three per scale ("<prefix>sem:exports",
// "gpu", "db-pool", ...), six clients each (more than the limit: at times
// some are turned away). A client acquires a slot with semaphore_acquire.lua
// (holders past the timeout trimmed, then added only while under the limit),
// holds it 1-5 s and ZREMs it; 2 % crash holding it, and the first holder of
// each semaphore always does, so a run leaves every semaphore with a holder
// until the timeout trims it. Limit and timeout are the demo profile's.
class SemaphoreDemo final : public DemoTraffic
{
public:
    static constexpr int Limit = 5;
    static constexpr qint64 TimeoutMs = 60000;
    static constexpr int Clients = 6;

    explicit SemaphoreDemo(quint32 seed);

    void tick(DemoDriver &driver) override;
    void stop(DemoDriver &driver) override;
    QList<Instance> instances(const DemoDriver &driver) const override;

    static QByteArray key(const QByteArray &prefix, int i);

private:
    struct Holder
    {
        QByteArray id;
        bool held = false;
        bool crashed = false;
    };
    QRandomGenerator m_rng;
    QList<Holder> m_holders; // Clients per semaphore
};

} // namespace gatehouse
