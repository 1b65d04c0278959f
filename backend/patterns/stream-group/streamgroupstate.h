// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/reading.h>

#include <redis/redisvalue.h>

#include <QByteArray>
#include <QList>

namespace gatehouse::StreamGroupInternal {

// What lua/stream-group/stream_group_read.lua read of one stream: the
// stream's ends, and per group (at most MaxGroups) its cursor, its PEL's size
// and its consumers (at most MaxConsumers each). Times in ms.
struct Consumer
{
    QByteArray name;
    qint64 pending = 0;
    qint64 idleMs = -1;     // since its last attempted interaction
    qint64 inactiveMs = -1; // since its last successful one (Redis 7.2+); -1 unknown
};

struct Group
{
    QByteArray name;
    qint64 consumers = 0; // in all (consumerList holds at most MaxConsumers)
    qint64 pending = 0;
    qint64 entriesRead = -1; // Redis 7.0+; -1 unknown
    qint64 lag = -1;         // Redis 7.0+; -1 unknown (Redis cannot tell after some deletions)
    QByteArray lastDeliveredId;
    QByteArray oldestPendingId; // empty: nothing pending
    QByteArray nextId;          // the next entry to deliver; empty: none waits
    QList<Consumer> consumerList;
};

struct StreamInfo
{
    qint64 length = 0;
    qint64 groupsTotal = 0; // groups holds at most MaxGroups
    QByteArray firstId;     // empty: the stream is empty
    QByteArray lastId;
    QByteArray lastGeneratedId;
    QList<Group> groups;
};

inline constexpr int MaxGroups = 20;
inline constexpr int MaxConsumers = 50;

// The ms part of a stream id ("1700000000000-3" -> 1700000000000); -1 when
// it is not one.
qint64 idMs(const QByteArray &id);

// The reading is the shared Reading: the stream's own figures in its queue
// fields (length, inFlight = pending of every group, stuck, items = the
// oldest pending entries: job = id, queue = group, holder = consumer, ageMs =
// idle, attempts = deliveries, locked = its consumer is active), counts by
// Redis's names, and the groups and consumers in parts, packed here:
//   "stream"   name = "<first id> <last id> <last generated id>",
//              count = length, limit = groups in all
//   "group"    name, count = pending, limit = consumers in all, ageMs = lag,
//              expiresInMs = entries-read (-1 unknown)
//   "cursor"   name = "<last-delivered id> <oldest pending id>" of the group before
//   "consumer" of the group before: name, count = pending, ageMs = idle,
//              expiresInMs = inactive, alive = idle below the stuck threshold
void pack(const StreamInfo &info, qint64 stuckAfterMs, Reading &reading);
StreamInfo unpack(const Reading &reading);

// Fills reading from stream_group_read.lua's reply (status Ok, or Missing
// for {0}); false when the reply is not one.
bool readReply(const RedisValue &reply, qint64 stuckAfterMs, int pageSize, Reading &reading);

} // namespace gatehouse::StreamGroupInternal
