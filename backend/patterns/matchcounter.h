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

    // The two shapes the queue libraries' batch verbs share. A key index
    // below zero counts from the end of KEYS (-1: the last).
    //
    // Every member of the set KEYS[keyIndex] (ZCARD), for a call whose
    // ARGV[jobArg] names no job (one named job is not counted); the note is
    // "up to ARGV[batchArg] will be <done>".
    static MatchCounter wholeSet(int keyIndex, int jobArg, int batchArg, const QString &done);
    // The members of KEYS[keyIndex] scored before the server's time minus
    // ARGV[olderThanArg] ms (ZCOUNT, O(log n)), for calls of action only when
    // action is not empty; the note is note with %1 for ARGV[batchArg].
    static MatchCounter scoredBefore(const QString &action, int keyIndex, int olderThanArg,
                                     int batchArg, const QString &note);
};

} // namespace gatehouse
