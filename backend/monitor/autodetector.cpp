// SPDX-License-Identifier: MIT
#include "autodetector.h"

#include <patterns/patternregistry.h>

#include <patterns/fixed-window/fixedwindowunit.h>
#include <patterns/legacy-lock/legacylockunit.h>
#include <patterns/redisson-limiter/redissonlimiterunit.h>
#include <patterns/reliable-queue/reliablequeueunit.h>
#include <patterns/resource-consumer/resourceconsumerunit.h>
#include <patterns/sorted-set-semaphore/semaphoreunit.h>
#include <patterns/token-family/tokenfamilyunit.h>

#include <QMap>
#include <QSet>

namespace gatehouse {

namespace {
const QByteArray s_consumerMarker = ":consumer:";

QByteArray queueBase(const QByteArray &processingKey)
{
    for (const char *suffix : {":processing", "-processing", ".processing"}) {
        if (processingKey.endsWith(suffix))
            return processingKey.chopped(qsizetype(qstrlen(suffix)));
    }
    const qsizetype at = processingKey.indexOf(":processing:");
    return at > 0 ? processingKey.left(at) : QByteArray();
}
} // namespace

qint64 guessWindowMs(qint64 pttlMs)
{
    if (pttlMs <= 0)
        return 0;
    for (qint64 step : {1000LL, 2000LL, 5000LL, 10000LL, 15000LL, 30000LL, 60000LL, 300000LL,
                        600000LL, 3600000LL, 86400000LL}) {
        if (pttlMs <= step)
            return step;
    }
    return pttlMs;
}

QByteArray generaliseKey(const QByteArray &key)
{
    const qsizetype colon = key.lastIndexOf(':');
    if (colon < 0 || colon == key.size() - 1)
        return key;
    return key.left(colon + 1) + '*';
}

QList<QList<QByteArray>> AutoDetector::shapeCommands(const QByteArray &key, const QByteArray &type)
{
    if (type == "zset")
        return {{"ZCARD", key},
                {"ZRANGE", key, "0", "0", "WITHSCORES"},
                {"ZRANGE", key, "-1", "-1", "WITHSCORES"}};
    if (type == "string")
        return {{"GETRANGE", key, "0", "63"}};
    if (type == "hash")
        return {{"HMGET", key, "rate", "interval", "type", "used_by"}};
    if (type == "list")
        return {{"LLEN", key}};
    return {};
}

void AutoDetector::readShape(KeyShape &s, const QList<RedisValue> &r)
{
    if (s.type == "zset" && r.size() == 3) {
        s.size = r.at(0).toInteger();
        if (r.at(1).size() == 2)
            s.firstScore = r.at(1).at(1).bytes().toDouble();
        if (r.at(2).size() == 2)
            s.lastScore = r.at(2).at(1).bytes().toDouble();
    } else if (s.type == "string" && r.size() == 1) {
        s.head = r.at(0).bytes();
    } else if (s.type == "hash" && r.size() == 1 && r.at(0).size() == 4) {
        const RedisValue &f = r.at(0);
        s.hasRate = !f.at(0).isNil();
        s.hasInterval = !f.at(1).isNil();
        s.hasType = !f.at(2).isNil();
        s.hasCountField = !f.at(3).isNil();
        bool ok = false;
        const qint64 rate = f.at(0).toInteger(&ok);
        s.rate = ok ? rate : -1;
        const qint64 interval = f.at(1).toInteger(&ok);
        s.interval = ok ? interval : -1;
    } else if (s.type == "list" && r.size() == 1) {
        s.size = r.at(0).toInteger();
    }
}

void AutoDetector::add(const KeyShape &shape, qint64 serverNowMs)
{
    m_nowMs = serverNowMs;
    const KeyRole role = classifyKey(shape, serverNowMs);
    if (role != KeyRole::Unknown && role != KeyRole::List)
        m_keys.insert(shape.key, {shape, role});
    else if (role == KeyRole::List)
        m_keys.insert(shape.key, {shape, role}); // may be a queue: decided when grouping
}

QList<PatternObject> AutoDetector::objects() const
{
    QList<PatternObject> out;
    QMap<QByteArray, PatternObject> families;
    QSet<QByteArray> resources; // windows that have consumers
    for (auto it = m_keys.cbegin(); it != m_keys.cend(); ++it) {
        const qsizetype marker = it.key().indexOf(s_consumerMarker);
        if (marker > 0 && (it->role == KeyRole::WindowMs || it->role == KeyRole::WindowSeconds))
            resources.insert(it.key().left(marker));
    }
    for (auto it = m_keys.cbegin(); it != m_keys.cend(); ++it) {
        const QByteArray &key = it.key();
        const KeyShape &s = it->shape;
        PatternObject o;
        o.key = key;
        o.source = QStringLiteral("autodetected");
        switch (it->role) {
        case KeyRole::WindowMs:
        case KeyRole::WindowSeconds: {
            o.params.scoreUnitMs = it->role == KeyRole::WindowSeconds ? 1000 : 1;
            o.params.windowMs = guessWindowMs(s.pttlMs);
            const qsizetype marker = key.indexOf(s_consumerMarker);
            if (marker > 0) {
                o.kind = ResourceConsumerUnit::Kind;
                o.parent = key.left(marker);
            } else if (resources.contains(key)) {
                o.kind = ResourceConsumerUnit::Kind;
            } else {
                o.kind = SlidingWindowUnit::Kind;
                const QByteArray retry = key + ":retry";
                o.related = {m_keys.contains(retry) ? retry : QByteArray()};
            }
            out.append(o);
            break;
        }
        case KeyRole::RetrySlots: {
            // A retry set whose window expired still tells of a limiter.
            const QByteArray window = key.chopped(6);
            if (!m_keys.contains(window)) {
                o.kind = SlidingWindowUnit::Kind;
                o.key = window;
                o.related = {key};
                out.append(o);
            }
            break;
        }
        case KeyRole::Semaphore:
            // Neither the limit nor the timeout is in Redis: the profile gives them.
            o.kind = SemaphoreUnit::Kind;
            out.append(o);
            break;
        case KeyRole::RedissonConfig:
            o.kind = RedissonLimiterUnit::Kind;
            o.related = {RedissonLimiterUnit::valueKey(key), RedissonLimiterUnit::permitsKey(key)};
            o.params.windowMs = std::max<qint64>(0, s.interval);
            o.params.limit = s.rate >= 0 ? std::optional<qint64>(s.rate) : std::nullopt;
            out.append(o);
            break;
        case KeyRole::Counter:
            o.kind = FixedWindowUnit::Kind;
            o.params.windowMs = guessWindowMs(s.pttlMs);
            out.append(o);
            break;
        case KeyRole::Lock:
            o.kind = LockUnit::Kind;
            out.append(o);
            break;
        case KeyRole::LegacyLock:
            o.kind = LegacyLockUnit::Kind;
            out.append(o);
            break;
        case KeyRole::Token:
        case KeyRole::CountedToken: {
            const QByteArray prefix = tokenPrefix(key);
            if (prefix.isEmpty())
                break;
            PatternObject &family = families[prefix];
            family.kind = TokenFamilyUnit::Kind;
            family.key = prefix;
            family.source = o.source;
            family.countedTokens |= it->role == KeyRole::CountedToken;
            family.members.append(key);
            break;
        }
        case KeyRole::ProcessingList: {
            const QByteArray base = queueBase(key);
            if (base.isEmpty())
                break;
            o.kind = ReliableQueueUnit::Kind;
            o.key = base;
            const QByteArray claims = base + ":claims";
            const QByteArray dead = base + ":dead";
            o.related = {key, m_keys.contains(claims) ? claims : QByteArray(),
                         m_keys.contains(dead) ? dead : QByteArray()};
            out.append(o);
            break;
        }
        default:
            break;
        }
    }
    for (PatternObject &family : families) {
        std::sort(family.members.begin(), family.members.end());
        out.append(family);
    }
    std::sort(out.begin(), out.end(), [](const PatternObject &a, const PatternObject &b) {
        return a.kind != b.kind ? patternOrder(a.kind) < patternOrder(b.kind) : a.key < b.key;
    });
    return out;
}

Profile AutoDetector::suggestedProfile() const
{
    Profile profile;
    profile.name = QStringLiteral("suggested");
    QMap<QPair<int, QByteArray>, ProfileRule> rules;
    for (const PatternObject &o : objects()) {
        ProfileRule rule;
        rule.kind = o.kind;
        rule.params.windowMs = o.params.windowMs;
        rule.params.scoreUnitMs = o.params.scoreUnitMs;
        if (o.kind == TokenFamilyUnit::Kind) {
            rule.prefix = o.key;
            rule.counted = o.countedTokens;
        } else {
            rule.match = generaliseKey(o.parent.isEmpty() ? o.key : o.parent);
        }
        if (o.kind == SlidingWindowUnit::Kind && !o.relatedKey(0).isEmpty())
            rule.retryKey = "{key}:retry";
        if (o.kind == ReliableQueueUnit::Kind) {
            rule.processingKey = "{key}" + o.relatedKey(0).mid(o.key.size());
            if (!o.relatedKey(1).isEmpty())
                rule.claimsKey = "{key}:claims";
            if (!o.relatedKey(2).isEmpty())
                rule.deadKey = "{key}:dead";
        }
        const auto id = qMakePair(patternOrder(o.kind),
                                  rule.kind == TokenFamilyUnit::Kind ? rule.prefix : rule.match);
        auto it = rules.find(id);
        if (it == rules.end()) {
            rules.insert(id, rule);
        } else {
            // Keep the widest window and any partner key seen in the group.
            it->params.windowMs = std::max(it->params.windowMs, rule.params.windowMs);
            if (it->retryKey.isEmpty())
                it->retryKey = rule.retryKey;
            if (it->claimsKey.isEmpty())
                it->claimsKey = rule.claimsKey;
            if (it->deadKey.isEmpty())
                it->deadKey = rule.deadKey;
        }
    }
    profile.rules = rules.values();
    return profile;
}

} // namespace gatehouse
