// SPDX-License-Identifier: MIT
#include "autodetector.h"

#include <patterns/patternregistry.h>

#include <QMap>
#include <QSet>

namespace gatehouse {

QList<QList<QByteArray>> AutoDetector::shapeCommands(const QByteArray &key, const QByteArray &type)
{
    if (type == "zset")
        return {{"ZCARD", key},
                {"ZRANGE", key, "0", "0", "WITHSCORES"},
                {"ZRANGE", key, "-1", "-1", "WITHSCORES"}};
    if (type == "string")
        return {{"GETRANGE", key, "0", "63"}};
    if (type == "hash")
        // HRANDFIELD (Redis 6.2+) samples two fields, bounded however large
        // the hash: a Redisson lock's holder "<uuid>:<thread>" is only found
        // by its field's name. Older servers answer with an error: no sample.
        return {{"HMGET", key, "rate", "interval", "type", "used_by", "mode"},
                {"HRANDFIELD", key, "2", "WITHVALUES"}};
    if (type == "list")
        return {{"LLEN", key}};
    if (type == "set")
        return {{"SCARD", key}};
    if (type == "stream")
        return {{"XLEN", key}};
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
    } else if (s.type == "hash" && r.size() == 2 && r.at(0).size() == 5) {
        const RedisValue &f = r.at(0);
        s.hashMode = f.at(4).bytes().left(16);
        // RESP2 answers field, value, ...; RESP3 pairs.
        for (const RedisValue &e : r.at(1).elements()) {
            if (e.isArray()) {
                for (const RedisValue &part : e.elements())
                    s.sampleFields.append(part.bytes().left(128));
            } else {
                s.sampleFields.append(e.bytes().left(128));
            }
        }
        s.hasRate = !f.at(0).isNil();
        s.hasInterval = !f.at(1).isNil();
        s.hasType = !f.at(2).isNil();
        s.hasCountField = !f.at(3).isNil();
        bool ok = false;
        const qint64 rate = f.at(0).toInteger(&ok);
        s.rate = ok ? rate : -1;
        const qint64 interval = f.at(1).toInteger(&ok);
        s.interval = ok ? interval : -1;
    } else if ((s.type == "list" || s.type == "set" || s.type == "stream") && r.size() == 1) {
        s.size = r.at(0).toInteger();
    }
}

void AutoDetector::add(const KeyShape &shape, qint64 serverNowMs)
{
    m_pool.nowMs = serverNowMs;
    m_pool.add(shape, claimsOn(shape, serverNowMs));
}

QList<PatternObject> AutoDetector::objects() const
{
    // Grouping takes keys from the pool: a copy, so objects() can be asked again.
    ClaimPool pool = m_pool;
    QList<const PatternUnit *> units = PatternRegistry::instance().units();
    std::stable_sort(units.begin(), units.end(), [](const PatternUnit *a, const PatternUnit *b) {
        return a->groupOrder() < b->groupOrder();
    });
    QList<PatternObject> out;
    for (const PatternUnit *unit : std::as_const(units))
        out.append(unit->groupClaims(pool));
    std::sort(out.begin(), out.end(), [](const PatternObject &a, const PatternObject &b) {
        return a.kind != b.kind ? patternOrder(a.kind) < patternOrder(b.kind) : a.key < b.key;
    });
    return out;
}

Profile AutoDetector::suggestedProfile() const
{
    Profile profile;
    profile.name = QStringLiteral("suggested");
    // One rule per pattern and glob (or prefix), widened by every instance.
    QMap<QPair<int, QByteArray>, ProfileRule> rules;
    for (const PatternObject &o : objects()) {
        const PatternUnit &unit = PatternUnit::of(o.kind);
        const ProfileRule rule = unit.suggestRule(o);
        const auto id
            = qMakePair(patternOrder(o.kind),
                        unit.keyField() == QLatin1String("prefix") ? rule.prefix : rule.match);
        auto it = rules.find(id);
        if (it == rules.end())
            rules.insert(id, rule);
        else
            unit.mergeSuggestedRule(*it, rule);
    }
    profile.rules = rules.values();
    return profile;
}

} // namespace gatehouse
