// SPDX-License-Identifier: MIT
#include "legacylockdemo.h"

#include <QDateTime>

namespace gatehouse {

QByteArray LegacyLockDemo::key(const DemoDriver &d, int i)
{
    return d.prefix() + "lock.legacy:" + QByteArray::number(i);
}

void LegacyLockDemo::tick(DemoDriver &d)
{
    if (d.tick() != 1 && d.tick() % d.ticksFor(5000) != 0)
        return;
    const qint64 nowS = QDateTime::currentSecsSinceEpoch();
    QList<QList<QByteArray>> commands;
    for (int i = 0; i < d.scale(); ++i) {
        if (i == 0)
            commands.append({"SETNX", key(d, i), QByteArray::number(nowS - 30)});
        else
            commands.append({"SET", key(d, i), QByteArray::number(nowS + 30)});
    }
    d.sendCommands(commands);
}

QList<DemoTraffic::Instance> LegacyLockDemo::instances(const DemoDriver &d) const
{
    QList<Instance> out;
    for (int i = 0; i < d.scale(); ++i)
        out.append({key(d, i), {key(d, i)}});
    return out;
}

} // namespace gatehouse
