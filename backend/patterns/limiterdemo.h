// SPDX-License-Identifier: MIT
#pragma once

#include "demotraffic.h"

#include <functional>

namespace gatehouse {

// The demo's clients of one kind of limiter (a limiter pattern's
// demoTraffic): per scale, perScale limiters, limiter i's one client sending
// rates[i % rates.size()] requests a second (times the run's rate, jittered)
// through request(); the census checks each limiter's keys.
class LimiterDemo final : public DemoTraffic
{
public:
    struct Limiters
    {
        int perScale = 1;
        QList<double> rates; // per s, limiter i's by i % size
        // Limiter i's key, as the snapshot names it.
        std::function<QByteArray(const DemoDriver &driver, int i)> key;
        // Any of them existing means the limiter is there (by default its key).
        std::function<QList<QByteArray>(const QByteArray &key)> keys;
        // One request to the limiter (its script, with its arguments).
        std::function<void(DemoDriver &driver, const QByteArray &key, QRandomGenerator &rng)>
            request;
    };

    LimiterDemo(quint32 seed, Limiters limiters);

    void tick(DemoDriver &driver) override;
    QList<Instance> instances(const DemoDriver &driver) const override;

private:
    Limiters m_limiters;
    QRandomGenerator m_rng;
    DemoRequests m_requests;
};

} // namespace gatehouse
