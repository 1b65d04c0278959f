// SPDX-License-Identifier: MIT
#include "resourceconsumerunit.h"

namespace gatehouse {

bool ResourceConsumerUnit::parseRule(RuleReader &r, const QJsonObject &o, ProfileRule &rule) const
{
    return SlidingWindowUnit::parseRule(r, o, rule)
           && r.integer(o, "consumerLimit", &rule.consumerLimit)
           && r.string(o, "consumerMarker", &rule.consumerMarker);
}

void ResourceConsumerUnit::writeRule(const ProfileRule &r, QJsonObject &o) const
{
    SlidingWindowUnit::writeRule(r, o);
    o.insert(QStringLiteral("consumerLimit"),
             r.consumerLimit ? QJsonValue(double(*r.consumerLimit)) : QJsonValue());
    o.insert(QStringLiteral("consumerMarker"), QString::fromUtf8(r.consumerMarker));
}

std::optional<PatternObject> ResourceConsumerUnit::objectFor(const ProfileRule &rule,
                                                             const QByteArray &key) const
{
    std::optional<PatternObject> o = SlidingWindowUnit::objectFor(rule, key);
    if (!o)
        return o;
    o->related.clear();
    const qsizetype marker = key.indexOf(rule.consumerMarker);
    if (marker > 0) {
        o->parent = key.left(marker);
        if (rule.consumerLimit)
            o->params.limit = rule.consumerLimit;
    }
    return o;
}

PatternObject ResourceConsumerUnit::conventionalObject(const QByteArray &key) const
{
    PatternObject o = PatternUnit::conventionalObject(key);
    o.params.scoreUnitMs = 1000;
    const qsizetype marker = key.indexOf(":consumer:");
    if (marker > 0)
        o.parent = key.left(marker);
    return o;
}

} // namespace gatehouse
