// SPDX-License-Identifier: MIT
#pragma once

#include "profile.h"

#include <patterns/keyclassifier.h>
#include <redis/redisvalue.h>

#include <QHash>

namespace gatehouse {

// Turns keys judged one by one (KeyShape + KeyRole) into pattern instances:
// windows with their ":retry" partners, resources with their consumers,
// queues with their processing lists (and claims, dead letters), token
// families by prefix. Also proposes a profile an operator can save and edit.
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

private:
    struct Entry
    {
        KeyShape shape;
        KeyRole role;
    };
    QHash<QByteArray, Entry> m_keys; // only keys with a role
    qint64 m_nowMs = 0;
};

// A window length guessed from a window key's TTL (the scripts PEXPIRE by
// the window): rounded up to 1, 2, 5, 10... s; 0 when there is no TTL.
qint64 guessWindowMs(qint64 pttlMs);
// "rl:api:17" -> "rl:api:*": the last ':' segment replaced by '*'.
QByteArray generaliseKey(const QByteArray &key);

} // namespace gatehouse
