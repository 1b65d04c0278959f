// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <redis/redisvalue.h>

#include <functional>

namespace gatehouse {

// An operator action as it will run: which of Gatehouse's scripts (lua/<script>.lua),
// with which KEYS and ARGV. The confirmation shows exactly this; the audit log
// records it. Built by the pattern units; run by the actions engine.
//
// Every action script checks the keys it writes before its first write and
// replies with an error "GHTYPE <i> <type> <expected>" (KEYS[i] has another
// type) or "GHSHAPE <i> <what>" (the right type, not the pattern's shape)
// when it writes nothing; keyRoles names KEYS[i] for the sentence.
// What a script's reply (not an error) means: it acted, or found nothing to
// do; one sentence for the operator either way.
struct ReplyMeaning
{
    bool done = false;
    QString message;
};

struct ScriptCall
{
    // A value a script echoes back (another holder's token, a requeued job) is
    // cut to this many bytes; the reply carries the full length.
    static constexpr int ReplyCutBytes = 256;

    QString action; // "lock.force-release", "queue.requeue", ...
    QString script; // file name in lua/ without ".lua"; empty for a plain command
    QList<QByteArray> keys;
    QList<QByteArray> args;
    QList<QByteArray> command; // actions Lua cannot do (CONFIG SET): the command itself
    QString summary;           // one sentence for the confirmation dialog
    QString title;             // the console's words for it ("Force release"); else action
    QStringList keyRoles;      // what KEYS[i] is: "queue", "processing list", ...
    // A secret the call creates (an issued token): shown once to the operator,
    // never written to the audit log.
    QByteArray issued;
    // A secret the call names without creating it (the code in a revoked
    // token's key): never written to the audit log either.
    QByteArray secret;
    // Run again while a run examined this many (the reply's first element):
    // bounded batches, so no single script blocks the server (requeue stuck).
    int batch = 0;
    QString batchSummary; // "%1" = what all the runs did: "Requeued %1 stuck jobs."
    // The reply's meaning, by the pattern that built the call (errors, refusals
    // and lost replies are the actions engine's).
    std::function<ReplyMeaning(const RedisValue &reply)> meaning;

    // Set by whoever built the call when the target is not what the console
    // says it is (a key outside every token family, a profile that names
    // another pattern): the engine refuses with this sentence, unless forced.
    QString refusal;
    // Whether a forced call skips refusal (dead-letter: only that), and the
    // ARGV index that carries "force" to the script's own checks, or -1 when
    // they cannot be skipped (they keep data from being lost).
    bool forceable = false;
    int forceArg = -1;
    bool force = false;

    // An invalid call (no script, no command) carries in refusal why the
    // target does not allow the action (a queue without a claims set).
    bool isValid() const { return !script.isEmpty() || !command.isEmpty(); }
    bool isForceable() const { return forceable; }
    // The same call with its checks skipped: what an operator confirmed.
    ScriptCall forced() const
    {
        ScriptCall call = *this;
        if (!isForceable())
            return call;
        call.force = true;
        call.refusal.clear();
        if (forceArg >= 0)
            call.args[forceArg] = "force";
        call.summary += QStringLiteral(" Forced: the checks that it is a %1 are skipped.")
                            .arg(action.section(QLatin1Char('.'), 0, 0));
        return call;
    }
};

} // namespace gatehouse
