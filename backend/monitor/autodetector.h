// SPDX-License-Identifier: MIT
#pragma once

#include "profile.h"

#include <patterns/keyclassifier.h>
#include <redis/redisvalue.h>

#include <QHash>

namespace gatehouse {

// Turns keys judged one by one into pattern instances, generic over the
// pattern registry: every pattern claims the keys its evidence fits
// (PatternUnit::claimKey, the strongest claim wins), then the patterns group
// what they claimed (PatternUnit::groupClaims: windows with their ":retry"
// partners, resources with their consumers, queues with their processing
// lists, token families by prefix). Also proposes a profile an operator can
// save and edit (PatternUnit::suggestRule).
class AutoDetector
{
public:
    // The probe commands that give a key's shape, after TYPE and PTTL.
    static QList<QList<QByteArray>> shapeCommands(const QByteArray &key, const QByteArray &type);
    // Fills shape from the replies to shapeCommands.
    static void readShape(KeyShape &shape, const QList<RedisValue> &replies);

    void add(const KeyShape &shape, qint64 serverNowMs);
    QList<PatternObject> objects() const;
    Profile suggestedProfile() const;
    qsizetype claimedKeys() const { return m_pool.size(); }

private:
    ClaimPool m_pool; // only keys some pattern claims
};

} // namespace gatehouse
