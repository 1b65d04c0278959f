// SPDX-License-Identifier: MIT
#include "resourceconsumerunit.h"
#include "resourceconsumerdemo.h"
#include <QSet>

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

namespace {
const QByteArray s_consumerMarker = ":consumer:";
// Beats a bare window's claim (10), not a semaphore's name (15) nor a
// partner's suffix (":retry", ":claims") or Redisson's layout.
constexpr int s_consumerStrength = 12;
} // namespace

std::optional<KeyClaim> ResourceConsumerUnit::claimKey(const KeyShape &s, qint64 now) const
{
    if (s.type != "zset" || s.size == 0)
        return std::nullopt;
    const bool ms = nearMs(s.lastScore, now) && nearMs(s.firstScore, now);
    const bool seconds = !ms && nearSeconds(s.lastScore, now) && nearSeconds(s.firstScore, now);
    if (!ms && !seconds)
        return std::nullopt;
    const QString unit = seconds ? QStringLiteral("-seconds") : QString();
    // A consumer's window by its name; any other window may be a resource,
    // which its consumers show (grouping), so that claim is weak.
    if (s.key.indexOf(s_consumerMarker) > 0)
        return KeyClaim{QStringLiteral("consumer") + unit, s_consumerStrength};
    return KeyClaim{QStringLiteral("resource") + unit, 5};
}

QList<PatternObject> ResourceConsumerUnit::groupClaims(ClaimPool &pool) const
{
    // Windows only: what stronger evidence makes another pattern's stays so.
    const QList<QByteArray> keys = pool.claimed(Kind, s_consumerStrength);
    QSet<QByteArray> resources; // windows that have consumers
    for (const QByteArray &key : keys) {
        const qsizetype marker = key.indexOf(s_consumerMarker);
        if (marker > 0)
            resources.insert(key.left(marker));
    }
    QList<PatternObject> out;
    for (const QByteArray &key : keys) {
        const qsizetype marker = key.indexOf(s_consumerMarker);
        if (marker <= 0 && !resources.contains(key))
            continue; // a window of its own: a sliding window's
        const KeyShape &s = pool.find(key)->shape;
        PatternObject o;
        o.kind = Kind;
        o.key = key;
        o.source = QStringLiteral("autodetected");
        o.params.scoreUnitMs
            = pool.roleOf(key, Kind).endsWith(QLatin1String("-seconds")) ? 1000 : 1;
        o.params.windowMs = guessWindowMs(s.pttlMs);
        if (marker > 0)
            o.parent = key.left(marker);
        pool.take(key);
        out.append(o);
    }
    return out;
}

QList<Evidence> ResourceConsumerUnit::structureEvidence(const PatternObject &o,
                                                        const ClaimPool &pool) const
{
    // A window's shape, and what makes it this pattern's: a consumer's name
    // under its resource, or a resource with consumer windows.
    QList<Evidence> out = SlidingWindowUnit::structureEvidence(o, pool);
    out.append(
        {Evidence::Kind::Structure, 1,
         o.parent.isEmpty()
             ? QStringLiteral("windows named \"%1%2<n>\" consume from it")
                   .arg(printableBytes(o.key, 60), QLatin1String(s_consumerMarker))
             : QStringLiteral("a consumer's window of %1").arg(printableBytes(o.parent, 60))});
    return out;
}

std::unique_ptr<DemoTraffic> ResourceConsumerUnit::demoTraffic(quint32 seed) const
{
    return std::make_unique<ResourceConsumerDemo>(seed);
}

} // namespace gatehouse
