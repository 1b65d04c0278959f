// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/scriptcall.h>

#include <QHash>
#include <QObject>
#include <QPointer>

#include <functional>

namespace gatehouse {

class RedisClient;

// Whether the connected Redis user may run an action, asked of the server
// before anything is sent: the script's call (EVALSHA, or EVAL that the
// engine falls back to) and every command the script calls, on every key it
// is given, are checked by redis.acl_check_cmd inside a read-only script
// (lua/rights/acl_check.lua, EVAL_RO), which runs none of them and needs no
// ACL administration rights. Before Redis 7.0 (or with EVAL_RO refused) only
// the script call on its keys can be asked without running anything: by
// probes that the ACL checks and that then fail before anything runs
// (probeScriptCall); a refusal there is a verdict, a pass leaves the commands
// inside the script to the server's own reply. A script stopped half-way by
// NOPERM keeps the writes it made before it: refusing first keeps every job,
// token and lock where it was.
class ActionRights : public QObject
{
    Q_OBJECT
public:
    struct Verdict
    {
        enum class Kind {
            Allowed, // every probe was queued
            Denied,  // the server refused one: sentence says which and what to grant
            Unknown, // the server could not say it all (before 7.0, EVAL_RO refused)
            Lost,    // the connection failed before it answered: send nothing now
        };
        Kind kind = Kind::Unknown;
        QString sentence;
    };
    using Handler = std::function<void(const Verdict &)>;

    explicit ActionRights(RedisClient *client, QObject *parent = nullptr);

    void check(const ScriptCall &call, const QObject *context, Handler handler);

    // The commands a script calls, upper case, in order of first use, from its
    // source (redis.call('ZREM', ...) and redis.pcall). PUBLISH is left out:
    // its channel is computed in the script, and a channel is not a key.
    static QList<QByteArray> scriptCommands(const QByteArray &source);

    // A command's shape from COMMAND INFO: its arity and where its keys are.
    struct Shape
    {
        int arity = 0;
        int firstKey = 0;
    };
    // The probe for one command on one key: as many arguments as its arity
    // asks, each the key, so every key position names it.
    static QList<QByteArray> probe(const QByteArray &command, const Shape &shape,
                                   const QByteArray &key);

private:
    void probeAll(const ScriptCall &call, const QObject *context, const Handler &handler);
    // The script call alone (EVALSHA and EVAL, with the call's keys and
    // without), where the server cannot check what the script calls; why:
    // the server's answer to the full check.
    void probeScriptCall(const ScriptCall &call, const QByteArray &user, const QString &why,
                         const QPointer<const QObject> &guard, const Handler &handler);

    RedisClient *m_client;
    QHash<QByteArray, Shape> m_shapes; // COMMAND INFO, kept: a server's commands do not change
};

} // namespace gatehouse
