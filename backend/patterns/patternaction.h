// SPDX-License-Identifier: MIT
#pragma once

#include "objectstate.h"
#include "scriptcall.h"

#include <redis/serveridentity.h>

#include <QHash>
#include <QString>

#include <functional>
#include <optional>

namespace gatehouse {

// What an operator gives an action besides its target: the CLI's options
// (--<id> VALUE) and the console's prompts or selection.
struct ActionInput
{
    enum class Source {
        Operator, // typed: a CLI option, a prompt in the console
        Shown,    // what the console showed for the object (a lock's token): the
                  // CLI's option, the reading's value in the console
        Item,     // an item of the object chosen in the console (a job, a holder)
        Flag,     // a CLI flag without a value (--stuck)
    };
    QString id;    // the CLI option's name and the request's key: "token", "ttl", "job"
    QString label; // "Holder token", "Time to live (ms)"
    Source source = Source::Operator;
    bool required = true;
    bool integer = false; // a whole number (validated before anything is sent)
    // The console asks for it; false for a refinement of a CLI flag the
    // console offers as its own action (--older-than with --stuck).
    bool console = true;
};

// One action's request: the target as the console (or the profile, or the
// pattern's conventional layout) says it is, and the inputs by id.
struct ActionRequest
{
    SharedObject object;
    QByteArray target; // the key as the operator gave it (a token key, a family prefix)
    std::optional<ObjectState> shown; // the state the console showed, when there is one
    QHash<QString, QByteArray> inputs;
    QList<QByteArray> families; // token families the console knows (token revoke)
    // The server it will run on (INFO), for actions whose commands depend on
    // it (ServerIdentity::has); no version when unknown.
    ServerIdentity server;

    QByteArray input(const QString &id) const { return inputs.value(id); }
    bool has(const QString &id) const { return inputs.contains(id); }
    qint64 integer(const QString &id, qint64 fallback = -1) const;
};

// An operator action a pattern offers (PatternUnit::actions()): how the CLI
// names it ("<section> <verb> KEY --input ..."), what it asks for, and the
// ScriptCall it builds. The GUI and the CLI build every call here, so both run
// the same script with the same checks; the actions engine runs it.
struct PatternAction
{
    QString id;         // the ScriptCall's action, in the audit log: "lock.force-release"
    QString verb;       // the CLI's: "release" in "lock release KEY"
    QString label;      // the console's button: "Force release…"
    QString objectName; // the console's button objectName ("forceReleaseButton")
    QList<ActionInput> inputs;
    // The target need not exist or be found (token issue: a family prefix).
    bool targetIsPrefix = false;
    // Offered by the console only (its own button, no CLI verb): an action
    // that needs what the console shows (ActionRequest::shown).
    bool consoleOnly = false;
    // Repeated while each run does a full batch (the reply's first element
    // counts what it examined, the second what it did): requeue --stuck.
    int batch = 0;
    // Why the request cannot be built (a usage problem: missing or bad input),
    // one sentence; empty when it can. Nothing is sent when it says something.
    std::function<QString(const ActionRequest &request)> check;
    std::function<ScriptCall(const ActionRequest &request)> build;
    // A usage line for the CLI's help ("lock release KEY --token T").
    QString usage;
};

} // namespace gatehouse
