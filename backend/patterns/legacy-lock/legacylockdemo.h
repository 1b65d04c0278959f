// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/demotraffic.h>

namespace gatehouse {

// Seed 004's SETNX locks in the demo: one per scale ("<prefix>lock.legacy:0"),
// the value the expiry in Unix seconds. The first one's holder crashed long
// ago (its expiry 30 s in the past); the others renew theirs every 5 s.
class LegacyLockDemo final : public DemoTraffic
{
public:
    void tick(DemoDriver &driver) override;
    QList<Instance> instances(const DemoDriver &driver) const override;

private:
    static QByteArray key(const DemoDriver &driver, int i);
};

} // namespace gatehouse
