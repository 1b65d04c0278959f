// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisvalue.h>

#include <QByteArray>
#include <QList>
#include <QRandomGenerator>
#include <QString>

#include <algorithm>
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
    // One plain command with its reply.
    virtual void sendCommand(QList<QByteArray> command,
                             std::function<void(const RedisValue &)> onReply)
        = 0;
    // action after that many ticks (>= 1), unless the run stops first.
    virtual void schedule(qint64 afterTicks, std::function<void()> action) = 0;
    virtual qint64 tick() const = 0; // 1 on the first
    virtual int tickMs() const = 0;
    virtual int scale() const = 0;   // multiplies the number of instances
    virtual double rate() const = 0; // multiplies every client's request rate
    virtual const QByteArray &prefix() const = 0;
    virtual bool stopping() const = 0;
    // On a Cluster, a structure's keys carry a hash tag so they share a slot.
    virtual bool hashTags() const = 0;
    // The key of instance id of a structure: base + id, or base + {id}.
    QByteArray tagged(const QByteArray &base, const QByteArray &id) const
    {
        return hashTags() ? QByteArray(base + '{' + id + '}') : QByteArray(base + id);
    }
    // A duration as a number of ticks (at least one).
    qint64 ticksFor(qint64 ms) const { return std::max<qint64>(1, ms / tickMs()); }
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
    // Key prefixes whose live members the census counts with SCAN (token
    // families: "<prefix>code:"); one with members is an object of the run.
    virtual QList<QByteArray> families(const DemoDriver &driver) const
    {
        Q_UNUSED(driver)
        return {};
    }
};

// The requests due at a tick for clients sending at given rates (per second,
// times the run's rate), jittered by the pattern's own random stream; the
// fractions carry from tick to tick. Every client sends at least one request
// on the first tick, so every object exists from the start.
class DemoRequests
{
public:
    int due(qsizetype client, double perSecond, const DemoDriver &driver, QRandomGenerator &rng);

private:
    QList<double> m_carry; // per client
};

} // namespace gatehouse
