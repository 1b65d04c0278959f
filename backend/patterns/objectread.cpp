// SPDX-License-Identifier: MIT
#include "objectread.h"

#include <redis/redisclient.h>

#include <QPointer>

#include <algorithm>

namespace gatehouse {

namespace {

bool anyFailed(const QList<RedisValue> &replies)
{
    return std::any_of(replies.cbegin(), replies.cend(),
                       [](const RedisValue &v) { return v.isFailed(); });
}

} // namespace

FollowUps followUpsOf(const QList<ObjectProbe> &probes, const ObjectReplies &parts)
{
    FollowUps out;
    out.counts.reserve(probes.size());
    for (qsizetype i = 0; i < probes.size(); ++i) {
        const ObjectProbe &p = probes.at(i);
        const QList<RedisValue> part = parts.value(i);
        QList<PatternUnit::Command> cmds;
        if (!anyFailed(part))
            cmds = p.unit->followUp(p.object, part, p.context);
        out.counts.append(int(cmds.size()));
        out.commands.append(std::move(cmds));
    }
    return out;
}

void appendFollowUps(ObjectReplies &parts, const FollowUps &followUps,
                     const QList<RedisValue> &replies)
{
    qsizetype at = 0;
    for (qsizetype i = 0; i < followUps.counts.size() && i < parts.size(); ++i) {
        const int n = followUps.counts.at(i);
        parts[i].append(replies.mid(at, n));
        at += n;
    }
}

void readObjects(RedisClient &client, const QObject *context, const QList<ObjectProbe> &probes,
                 std::function<void(const ObjectReplies &)> done)
{
    QList<RedisClient::Command> commands;
    QList<int> counts;
    for (const ObjectProbe &p : probes) {
        const QList<PatternUnit::Command> cmds = p.unit->probe(p.object, p.context);
        counts.append(int(cmds.size()));
        commands.append(cmds);
    }
    QPointer<RedisClient> guard(&client);
    client.pipeline(commands, context,
                    [guard, context, probes, counts, done](const QList<RedisValue> &replies) {
                        ObjectReplies parts;
                        qsizetype at = 0;
                        for (int n : counts) {
                            parts.append(replies.mid(at, n));
                            at += n;
                        }
                        const FollowUps more = followUpsOf(probes, parts);
                        if (more.isEmpty() || !guard) {
                            done(parts);
                            return;
                        }
                        guard->pipeline(more.commands, context,
                                        [parts, more, done](const QList<RedisValue> &r) mutable {
                                            appendFollowUps(parts, more, r);
                                            done(parts);
                                        });
                    });
}

} // namespace gatehouse
