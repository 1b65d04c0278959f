// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/demotraffic.h>

namespace gatehouse {

// The locks of the demo: three per scale ("<prefix>lock:0"), each wanted by a
// client about once a second through lock_acquire.lua (a random token, 20 s
// TTL), held 0.3 to 2 s and released with lock_release.lua (the token
// checked). 15 % of holders crash holding it, and lock 0's first holder always
// does, so a run always leaves a lock that only its TTL frees.
class LockDemo final : public DemoTraffic
{
public:
    static constexpr qint64 TtlMs = 20000;

    explicit LockDemo(quint32 seed);

    void tick(DemoDriver &driver) override;
    void stop(DemoDriver &driver) override;
    QList<Instance> instances(const DemoDriver &driver) const override;

private:
    static QByteArray key(const DemoDriver &driver, int i);

    struct Holder
    {
        QByteArray token;
        bool held = false;
        bool crashed = false;
    };
    QRandomGenerator m_rng;
    QList<Holder> m_holders; // one per lock
};

} // namespace gatehouse
