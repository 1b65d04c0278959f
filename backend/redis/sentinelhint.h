// SPDX-License-Identifier: MIT
#pragma once

#include "redisendpoint.h"
#include "redisvalue.h"

#include <QStringList>

#include <optional>

namespace gatehouse::SentinelHint {

// A Redis Sentinel answers PING, AUTH, CLIENT and INFO as a data server does,
// but holds no keys: a connection meant for a data server (redis://,
// rediss://, a Cluster seed) that reached one must stop and say so, not
// report an empty keyspace or fail later with "unknown command".

// ROLE's reply: the names of the masters a sentinel monitors; nullopt when
// the server is not a sentinel (or ROLE was refused).
std::optional<QStringList> monitoredMasters(const RedisValue &role);

// "127.0.0.1:26379 is a Redis Sentinel, not a data server: it holds no keys.
// Connect through it with redis-sentinel://127.0.0.1:26379#gh." masters:
// the names it monitors; nullopt when they could not be read.
QString sentence(const RedisEndpoint &endpoint, const std::optional<QStringList> &masters);

} // namespace gatehouse::SentinelHint
