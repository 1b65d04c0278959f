// SPDX-License-Identifier: MIT
#pragma once
// What the monitor's tests share: finding an object in a snapshot, waiting
// for keyspace events and a first lock, the demo profile, many locks written,
// the behaviour watch's verdict in an object's evidence.

#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <patterns/lock/lockdata.h>
#include <redis/redisclient.h>

#include <QTest>

namespace gatehouse::test::monitortest {

// The behaviour evidence's weight: > 0 confirms, < 0 argues against, 0 none.
inline int behaviourWeight(const QList<Evidence> &evidence)
{
    for (const Evidence &e : evidence) {
        if (e.kind == Evidence::Kind::Behaviour)
            return e.weight;
    }
    return 0;
}

inline const ObjectState *find(const Snapshot &s, const QByteArray &key)
{
    for (const ObjectState &o : s.objects) {
        if (o.object->key == key)
            return &o;
    }
    return nullptr;
}

// Keyspace events live and sim:lock:1 (SET to token0) read: where the
// tests of snapshot timing start.
inline bool liveWithLock(Monitor &monitor)
{
    return QTest::qWaitFor(
        [&] {
            const Snapshot s = monitor.snapshot();
            const ObjectState *o = find(s, "sim:lock:1");
            return s.server.eventsLive && o && LockData::of(o->reading).token == "token0";
        },
        10000);
}

inline Profile demoProfile()
{
    QString error;
    const auto p = Profile::load(QStringLiteral("demo"), &error);
    if (!p)
        qWarning("%s", qPrintable(error));
    return p.value_or(Profile());
}

// Writes locks sim:lock:0..count-1 (tokens t0ken<i>, an hour's TTL), 500
// per round trip; false if the server did not answer within 10 s.
inline bool setLocks(RedisClient &client, QObject *context, int count)
{
    for (int base = 0; base < count; base += 500) {
        QList<QList<QByteArray>> sets;
        for (int i = base; i < std::min(count, base + 500); ++i)
            sets.append({"SET", "sim:lock:" + QByteArray::number(i),
                         "t0ken" + QByteArray::number(i), "PX", "3600000"});
        bool done = false;
        client.pipeline(sets, context, [&](const QList<RedisValue> &) { done = true; });
        if (!QTest::qWaitFor([&] { return done; }, 10000))
            return false;
    }
    return true;
}

} // namespace gatehouse::test::monitortest
