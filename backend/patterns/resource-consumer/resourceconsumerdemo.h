// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/demotraffic.h>

namespace gatehouse {

// The resource/consumer windows of the demo: one resource per scale
// ("<prefix>z:rl:resource:0{0}", 30 per 10 s) shared by three consumers
// (":consumer:0".."2", 12 each) sending 0.5, 1.5 and 3 requests a second
// through resource_consumer_window.lua: the busiest is turned away by its
// own limit, and together they press on the resource's.
class ResourceConsumerDemo final : public DemoTraffic
{
public:
    static constexpr int ResourceLimit = 30;
    static constexpr int ConsumerLimit = 12;
    static constexpr qint64 WindowMs = 10000;
    static constexpr int Consumers = 3;

    explicit ResourceConsumerDemo(quint32 seed);

    void tick(DemoDriver &driver) override;
    QList<Instance> instances(const DemoDriver &driver) const override;

private:
    static QByteArray resource(const DemoDriver &driver, int r);
    static QByteArray consumer(const DemoDriver &driver, int r, int c);

    QRandomGenerator m_rng;
    DemoRequests m_requests;
};

} // namespace gatehouse
