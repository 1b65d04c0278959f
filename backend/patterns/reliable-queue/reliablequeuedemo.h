// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/demotraffic.h>

namespace gatehouse {

// The reliable queues of the demo. One per scale written the current way
// ("<prefix>jobs:mail", "thumbnails", ...): producers push about 2 jobs a
// second in waves, two workers claim with queue_claim.lua (the job moved to
// ":processing" and stamped in ":claims"), work 0.2 to 3 s and ack with
// queue_ack.lua; 10 % of workers crash holding their job, and each queue's
// first claimed job is always left stuck. One per two scales written the old
// way ("<prefix>legacyq:0": RPOPLPUSH, no claims set), whose second-tick
// claim always crashes.
class ReliableQueueDemo final : public DemoTraffic
{
public:
    explicit ReliableQueueDemo(quint32 seed);

    void tick(DemoDriver &driver) override;
    QList<Instance> instances(const DemoDriver &driver) const override;

private:
    static QByteArray queue(const DemoDriver &driver, int i);
    static QByteArray legacyQueue(const DemoDriver &driver, int i);
    void tickQueue(DemoDriver &driver, int i);
    void tickLegacyQueue(DemoDriver &driver, int i);

    QRandomGenerator m_rng;
    QList<bool> m_firstClaimCrashes; // per queue: its first claimed job is left stuck
};

} // namespace gatehouse
