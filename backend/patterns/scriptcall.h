// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace gatehouse {

// An operator action as it will run: which of Gatehouse's scripts (lua/<script>.lua),
// with which KEYS and ARGV. The confirmation shows exactly this; the audit log
// records it. Built by the pattern units; run by the actions engine.
struct ScriptCall
{
    QString action; // "lock.force-release", "queue.requeue", ...
    QString script; // file name in lua/ without ".lua"; empty for a plain command
    QList<QByteArray> keys;
    QList<QByteArray> args;
    QList<QByteArray> command; // actions Lua cannot do (CONFIG SET): the command itself
    QString summary;           // one sentence for the confirmation dialog

    bool isValid() const { return !script.isEmpty() || !command.isEmpty(); }
};

} // namespace gatehouse
