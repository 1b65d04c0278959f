// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/profile.h>
#include <patterns/patternobject.h>

#include <QString>

#include <functional>
#include <optional>

namespace gatehouse {
class RedisClient;
}

namespace gatehouse::cli {

// The library queue a command names ("queue job", "queue search"): the
// profile's object for it, else the first job library whose own key names
// it has (PatternUnit::identifyProbe, as `queue retry` asks). done gets the
// object, or nullopt, a sentence saying what QUEUE should be and the exit
// code (3 not a queue; 1 its keys could not be read: NOPERM).
void findQueue(
    RedisClient &client, const QObject *context, const QByteArray &queue,
    const std::optional<Profile> &profile,
    std::function<void(std::optional<PatternObject>, const QString &error, int exitCode)> done);

} // namespace gatehouse::cli
