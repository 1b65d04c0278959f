// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisvalue.h>

#include <QByteArray>
#include <QList>
#include <QRandomGenerator>
#include <QString>

#include <functional>
#include <memory>

namespace gatehouse {

// What the simulator offers a pattern's demo traffic (gatehouse --demo,
// gatehouse-cli simulate): requests through Gatehouse's own scripts, timed
// actions, and the run's parameters. Implemented by the Simulator.
class DemoDriver
{
public:
    virtual ~DemoDriver() = default;
    // One of lua/'s scripts by name, with its reply (if wanted).
    virtual void send(const QString &script, QList<QByteArray> keys, QList<QByteArray> args,
                      std::function<void(const RedisValue &)> onReply = {})
        = 0;
    // Plain commands, pipelined.
    virtual void sendCommands(QList<QList<QByteArray>> commands) = 0;
    // action after that many ticks (>= 1), unless the run stops first.
    virtual void schedule(qint64 afterTicks, std::function<void()> action) = 0;
    virtual qint64 tick() const = 0; // 1 on the first
    virtual int tickMs() const = 0;
    virtual int scale() const = 0;   // multiplies the number of instances
    virtual double rate() const = 0; // multiplies every client's request rate
    virtual const QByteArray &prefix() const = 0;
    virtual bool stopping() const = 0;
    // 14 base-36 characters mixing letters and digits, like real ids.
    static QByteArray randomId(QRandomGenerator &rng);
};

// One pattern's demo traffic (PatternUnit::demoTraffic): deterministic for a
// seed (its own random stream, so its decisions depend only on the seed and
// the tick), clients that work and some that crash.
class DemoTraffic
{
public:
    struct Instance
    {
        QByteArray key;         // the object's key as the snapshot names it
        QList<QByteArray> keys; // any of them existing means it is there
    };

    virtual ~DemoTraffic() = default;
    // Every tick (100 ms by default): the requests of this tick.
    virtual void tick(DemoDriver &driver) = 0;
    // The run stops: clients that did not crash let go of what they hold.
    virtual void stop(DemoDriver &driver) { Q_UNUSED(driver) }
    // Every object the run may have made (the simulator's census).
    virtual QList<Instance> instances(const DemoDriver &driver) const = 0;
};

} // namespace gatehouse
