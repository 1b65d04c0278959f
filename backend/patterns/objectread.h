// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

#include <functional>

class QObject;

namespace gatehouse {

class RedisClient;

// One object to read through its unit: the probe, then the follow-up the
// probe's replies call for (PatternUnit::followUp).
struct ObjectProbe
{
    const PatternUnit *unit = nullptr;
    SharedObject object;
    ProbeContext context;
};

// Each object's replies, its probe's then its follow-up's: what read() takes.
using ObjectReplies = QList<QList<RedisValue>>;

// The follow-ups of the probes' replies (parts.at(i) answers probes.at(i)):
// every command in one list, and how many are each object's. An object
// whose probe reply failed (a lost connection) gets none.
struct FollowUps
{
    QList<PatternUnit::Command> commands;
    QList<int> counts;
    bool isEmpty() const { return commands.isEmpty(); }
};
FollowUps followUpsOf(const QList<ObjectProbe> &probes, const ObjectReplies &parts);
// The follow-ups' replies appended to each object's part.
void appendFollowUps(ObjectReplies &parts, const FollowUps &followUps,
                     const QList<RedisValue> &replies);

// Reads the objects: one pipeline of every probe, then, if any unit asks for
// one, one of every follow-up. done gets the objects' replies in order; an
// object whose reply failed has a failed reply in its part. Dropped when
// context is destroyed first.
void readObjects(RedisClient &client, const QObject *context, const QList<ObjectProbe> &probes,
                 std::function<void(const ObjectReplies &)> done);

} // namespace gatehouse
