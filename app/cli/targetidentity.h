// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>

#include <functional>

class QObject;

namespace gatehouse {
class PatternUnit;
class RedisClient;
} // namespace gatehouse

namespace gatehouse::cli {

// What a key named on the command line is, judged as discovery judges it,
// before an action without a profile rule for it acts: not a part of
// another pattern's object (PatternUnit::ownerCandidates, a Bull job's
// lock), and, for a pattern that asks it (PatternUnit::actsOnlyOnClaimedKeys),
// a key whose strongest claim is of the action's section (a counter with no
// TTL is no window's; a cached JSON value is no lock's). Read-only and
// bounded: TYPE, PTTL, the shape discovery reads, the owners' probes.
// done gets a sentence saying what the key is when the action must not act
// on it, empty when it may, or error when the reads failed. ownersOnly: only
// whether another pattern's object owns the key (what --force never passes).
void checkTargetIdentity(RedisClient &client, const QObject *context, const PatternUnit &unit,
                         const QByteArray &key, qint64 serverNowMs,
                         std::function<void(const QString &refusal, const QString &error)> done,
                         bool ownersOnly = false);

} // namespace gatehouse::cli
