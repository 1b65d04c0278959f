// SPDX-License-Identifier: MIT
#include "queuelookup.h"

#include "exitcodes.h"

#include <patterns/patternregistry.h>
#include <redis/redisclient.h>

namespace gatehouse::cli {

void findQueue(
    RedisClient &client, const QObject *context, const QByteArray &queue,
    const std::optional<Profile> &profile,
    std::function<void(std::optional<PatternObject>, const QString &error, int exitCode)> done)
{
    if (profile) {
        if (std::optional<PatternObject> o = profile->objectFor(queue)) {
            done(o, {}, ExitOk);
            return;
        }
    }
    QList<const PatternUnit *> libraries;
    QList<RedisClient::Command> probes;
    QList<int> counts;
    QStringList titles;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        if (unit->jobStates().isEmpty()) // lists no jobs: not a job library
            continue;
        titles << unit->title();
        libraries << unit;
        const QList<RedisClient::Command> mine = unit->identifyProbe(queue);
        probes.append(mine);
        counts.append(int(mine.size()));
    }
    client.pipeline(
        probes, context, [queue, libraries, counts, titles, done](const QList<RedisValue> &r) {
            qsizetype at = 0;
            for (qsizetype i = 0; i < libraries.size(); ++i) {
                const QList<RedisValue> mine = r.mid(at, counts.at(i));
                at += counts.at(i);
                if (libraries.at(i)->identifies(queue, mine)) {
                    done(libraries.at(i)->conventionalObject(queue), {}, ExitOk);
                    return;
                }
            }
            // Not known because its keys could not be read: said as such.
            for (const RedisValue &v : r) {
                if (v.isError() && v.errorCode() == "NOPERM") {
                    done(std::nullopt,
                         QStringLiteral("Cannot tell what \"%1\" is: this Redis user may not "
                                        "read its keys (%2). Grant read access to them (ACL "
                                        "SETUSER <user> %R~%1*), or connect as a user who may.")
                             .arg(printableBytes(queue, 80), v.errorMessage()),
                         ExitFailure);
                    return;
                }
            }
            done(std::nullopt,
                 QStringLiteral("\"%1\" is not a queue whose jobs Gatehouse lists "
                                "(%2); name it as `snapshot` shows it.")
                     .arg(printableBytes(queue, 80), titles.join(QStringLiteral(", "))),
                 ExitNothingDone);
        });
}

} // namespace gatehouse::cli
