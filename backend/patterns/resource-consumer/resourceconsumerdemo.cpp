// SPDX-License-Identifier: MIT
#include "resourceconsumerdemo.h"

namespace gatehouse {

namespace {

constexpr double s_rates[] = {0.5, 1.5, 3.0}; // per s, per consumer

} // namespace

ResourceConsumerDemo::ResourceConsumerDemo(quint32 seed)
    : m_rng(seed)
{}

QByteArray ResourceConsumerDemo::resource(const DemoDriver &d, int r)
{
    // Always tagged: the script writes the resource and a consumer together.
    const QByteArray n = QByteArray::number(r);
    return d.prefix() + "z:rl:resource:" + n + '{' + n + '}';
}

QByteArray ResourceConsumerDemo::consumer(const DemoDriver &d, int r, int c)
{
    return resource(d, r) + ":consumer:" + QByteArray::number(c);
}

void ResourceConsumerDemo::tick(DemoDriver &d)
{
    for (int r = 0; r < d.scale(); ++r) {
        for (int c = 0; c < Consumers; ++c) {
            for (int n = m_requests.due(r * Consumers + c, s_rates[c], d, m_rng); n > 0; --n)
                d.send(QStringLiteral("resource_consumer_window"),
                       {resource(d, r), consumer(d, r, c)},
                       {QByteArray::number(ResourceLimit), QByteArray::number(ConsumerLimit),
                        QByteArray::number(WindowMs), QByteArray()});
        }
    }
}

QList<DemoTraffic::Instance> ResourceConsumerDemo::instances(const DemoDriver &d) const
{
    QList<Instance> out;
    for (int r = 0; r < d.scale(); ++r) {
        out.append({resource(d, r), {resource(d, r)}});
        for (int c = 0; c < Consumers; ++c)
            out.append({consumer(d, r, c), {consumer(d, r, c)}});
    }
    return out;
}

} // namespace gatehouse
