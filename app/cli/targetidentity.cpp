// SPDX-License-Identifier: MIT
#include "targetidentity.h"

#include <monitor/autodetector.h>
#include <patterns/keyclassifier.h>
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>

namespace gatehouse::cli {

namespace {

using Done = std::function<void(const QString &refusal, const QString &error)>;

// A few words on what a key's shape is, for a refusal.
QString shapeText(const KeyShape &s)
{
    const QString ttl = s.pttlMs > 0 ? QStringLiteral("with a TTL") : QStringLiteral("with no TTL");
    if (s.type == "string")
        return QStringLiteral("a string %1 holding \"%2\"").arg(ttl, printableBytes(s.head, 40));
    return QStringLiteral("a %1 %2").arg(QString::fromLatin1(s.type), ttl);
}

QString firstError(const QList<RedisValue> &replies)
{
    for (const RedisValue &v : replies) {
        if (v.isError()) // a failed request too
            return v.errorMessage();
    }
    return {};
}

// The strongest claim on the key's shape: of the action's section, or a
// sentence saying what the key looks like instead.
void judgeClaims(RedisClient &client, const QObject *context, const PatternUnit &unit,
                 const QByteArray &key, KeyShape shape, qint64 nowMs, const Done &done)
{
    const QList<QList<QByteArray>> commands = AutoDetector::shapeCommands(key, shape.type);
    if (commands.isEmpty()) {
        done(QStringLiteral("\"%1\" is %2, which no %3 keeps.")
                 .arg(printableBytes(key, 80), shapeText(shape), unit.section().singular),
             {});
        return;
    }
    client.pipeline(
        commands, context, [&unit, key, shape, nowMs, done](const QList<RedisValue> &r) {
            // A command the server lacks (HRANDFIELD before 6.2) answers an
            // error: the shape has no sample, as discovery reads it then.
            // Only a lost connection stops the check.
            for (const RedisValue &v : r) {
                if (v.isFailed()) {
                    done({}, v.errorMessage());
                    return;
                }
            }
            KeyShape s = shape;
            AutoDetector::readShape(s, r);
            const auto claims = claimsOn(s, nowMs);
            const QString section = unit.section().id;
            if (!claims.isEmpty() && patternSection(claims.first().first) == section) {
                done({}, {});
                return;
            }
            const QString what
                = claims.isEmpty()
                      ? QStringLiteral("Gatehouse would show it as no structure")
                      : QStringLiteral("Gatehouse would show it as a %1 (%2)")
                            .arg(PatternUnit::of(claims.first().first).section().singular,
                                 patternId(claims.first().first));
            done(QStringLiteral(
                     "\"%1\" is %2: %3, not a %4. If it is one, name it in a profile rule "
                     "(--profile).")
                     .arg(printableBytes(key, 80), shapeText(s), what, unit.section().singular),
                 {});
        });
}

} // namespace

void checkTargetIdentity(RedisClient &client, const QObject *context, const PatternUnit &unit,
                         const QByteArray &key, qint64 serverNowMs, Done done, bool ownersOnly)
{
    // The objects of other patterns the key may belong to, each asked
    // whether it is one (its identifyProbe), with the key's TYPE and PTTL.
    struct Owner
    {
        const PatternUnit *unit;
        QByteArray base;
        qsizetype at;
        qsizetype count;
    };
    QList<RedisClient::Command> commands{{"TYPE", key}, {"PTTL", key}};
    QList<Owner> owners;
    for (const PatternUnit *other : PatternRegistry::instance().units()) {
        if (other == &unit)
            continue;
        for (const QByteArray &base : other->ownerCandidates(key)) {
            const QList<RedisClient::Command> probe = other->identifyProbe(base);
            owners.append({other, base, commands.size(), probe.size()});
            commands += probe;
        }
    }
    client.pipeline(
        commands, context,
        [&client, context, &unit, key, serverNowMs, owners, done,
         ownersOnly](const QList<RedisValue> &r) {
            if (const QString error = firstError(r); !error.isEmpty()) {
                done({}, error);
                return;
            }
            for (const Owner &o : owners) {
                if (!o.unit->identifies(o.base, r.mid(o.at, o.count)))
                    continue;
                done(QStringLiteral("\"%1\" is a key of %2 \"%3\", which owns it: it is not a "
                                    "%4 of its own. Act on it with that %5's verbs.")
                         .arg(printableBytes(key, 80), o.unit->title(), printableBytes(o.base, 80),
                              unit.section().singular, o.unit->section().singular),
                     {});
                return;
            }
            KeyShape shape;
            shape.key = key;
            shape.type = r.at(0).bytes();
            shape.pttlMs = r.at(1).toInteger();
            // A key that does not exist is the action's to report.
            if (ownersOnly || !unit.actsOnlyOnClaimedKeys() || shape.type == "none") {
                done({}, {});
                return;
            }
            judgeClaims(client, context, unit, key, shape, serverNowMs, done);
        });
}

} // namespace gatehouse::cli
