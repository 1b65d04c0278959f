// SPDX-License-Identifier: MIT
#include "matchcount.h"

#include <patterns/matchcounter.h>
#include <redis/redisclient.h>

namespace gatehouse {

namespace {

QList<QList<QByteArray>> commandsOf(const ScriptCall &call, qint64 serverNowMs)
{
    const MatchCounter *counter = MatchCounter::of(call);
    return counter && counter->commands ? counter->commands(call, serverNowMs)
                                        : QList<QList<QByteArray>>();
}

} // namespace

bool MatchCount::counts(const QList<ScriptCall> &calls)
{
    for (const ScriptCall &call : calls) {
        if (!commandsOf(call, 0).isEmpty())
            return true;
    }
    return false;
}

void MatchCount::read(RedisClient *client, const QList<ScriptCall> &calls, qint64 serverNowMs,
                      const QObject *context, std::function<void(const Result &)> handler)
{
    QList<RedisClient::Command> commands;
    QList<qsizetype> sizes; // per call: how many of the commands are its
    for (const ScriptCall &call : calls) {
        const QList<QList<QByteArray>> own = commandsOf(call, serverNowMs);
        sizes.append(own.size());
        commands.append(own);
    }
    if (commands.isEmpty()) {
        handler(Result{});
        return;
    }
    client->pipeline(std::move(commands), context,
                     [calls, sizes, handler = std::move(handler)](const QList<RedisValue> &r) {
                         Result result;
                         result.counted = true;
                         qsizetype at = 0;
                         for (qsizetype i = 0; i < calls.size(); ++i) {
                             const QList<RedisValue> part = r.mid(at, sizes.at(i));
                             at += sizes.at(i);
                             if (sizes.at(i) == 0)
                                 continue;
                             for (const RedisValue &v : part) {
                                 if (v.isError()) {
                                     result.ok = false;
                                     result.error = v.errorMessage();
                                 }
                             }
                             if (part.size() < sizes.at(i)) {
                                 result.ok = false;
                                 result.error = QStringLiteral("a reply was lost");
                             }
                             if (result.ok)
                                 result.count += MatchCounter::of(calls.at(i))->count(part);
                         }
                         handler(result);
                     });
}

QString MatchCount::sentence(const Result &result, const QList<ScriptCall> &calls)
{
    if (!result.counted || calls.isEmpty())
        return {};
    if (!result.ok)
        return QStringLiteral("Could not count what matches now (%1); the run reports what it "
                              "did.")
            .arg(result.error);
    if (calls.size() > 1)
        return QStringLiteral("%1 of these %2 match now.").arg(result.count).arg(calls.size());
    const MatchCounter *counter = MatchCounter::of(calls.first());
    const QString note = counter && counter->note ? counter->note(calls.first()) : QString();
    return note.isEmpty() ? QStringLiteral("%1 match now.").arg(result.count)
                          : QStringLiteral("%1 match now; %2.").arg(result.count).arg(note);
}

} // namespace gatehouse
