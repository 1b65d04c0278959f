// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/scriptcall.h>

#include <QObject>

#include <functional>

namespace gatehouse {

class RedisClient;

// How many objects a batch action would act on now (its script's MatchCounter),
// read before its confirmation opens: every call's bounded commands in one
// round trip, the counts summed. Asynchronous; the handler runs on the
// context's thread unless the context died first.
class MatchCount
{
public:
    struct Result
    {
        bool counted = false; // some call had commands to count with
        bool ok = true;
        qint64 count = 0;
        QString error; // when !ok: why it could not be counted
    };

    static bool counts(const QList<ScriptCall> &calls);
    // serverNowMs: the server's clock now (the desktop's plus its offset).
    static void read(RedisClient *client, const QList<ScriptCall> &calls, qint64 serverNowMs,
                     const QObject *context, std::function<void(const Result &)> handler);
    // The confirmation's sentence: "120 match now; <countNote>." for one
    // call, "2 of these 2 match now." for a selection; "" when not counted.
    static QString sentence(const Result &result, const QList<ScriptCall> &calls);
};

} // namespace gatehouse
