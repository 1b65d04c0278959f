// SPDX-License-Identifier: MIT
#pragma once

#include "scriptcall.h"

#include <functional>

namespace gatehouse {

// How many objects a batch action would act on now ("120 match now; up to
// 100 will be requeued"), read before its confirmation opens. A pattern
// registers one per script of its own that acts on a set (requeue stuck,
// clean, promote all, revoke), from its own folder: it knows the script's
// KEYS and ARGV (the Lua header). Read-only and bounded: counts only
// (ZCOUNT, ZCARD, EXISTS), never the members.
struct MatchCounter
{
    // The commands that count for call at the server's time (ms); empty: the
    // call is not counted (one named job, a count-only run).
    std::function<QList<QList<QByteArray>>(const ScriptCall &call, qint64 serverNowMs)> commands;
    // The count the replies give.
    std::function<qint64(const QList<RedisValue> &replies)> count;
    // What the run then does with them ("up to 100 will be requeued"); may be empty.
    std::function<QString(const ScriptCall &call)> note;

    // Registers counter for calls of script (lua/<pattern>/<script>.lua);
    // returns true (for a file-scope registration in the pattern's folder).
    static bool add(const QString &script, MatchCounter counter);
    // The counter for call's script, or nullptr.
    static const MatchCounter *of(const ScriptCall &call);
};

} // namespace gatehouse
