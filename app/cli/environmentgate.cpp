// SPDX-License-Identifier: MIT
#include "environmentgate.h"

#include "clioptions.h"

#include <actions/actionengine.h>
#include <actions/auditlog.h>

#include <QCommandLineParser>
#include <QJsonObject>

namespace gatehouse::cli {

Environment cliEnvironment(const QCommandLineParser &parser, const CliOptions &options)
{
    const QString label = parser.isSet(options.environment)
                              ? parser.value(options.environment)
                              : qEnvironmentVariable("GATEHOUSE_ENVIRONMENT");
    return Environment::named(label.trimmed());
}

QString environmentRefusal(const Environment &env, const QString &typed, const QString &what,
                           const QString &where)
{
    if (!env.isSet())
        return {};
    if (!typed.isEmpty() && !env.typedBack(typed))
        return QStringLiteral("--confirm-environment \"%1\" is not this connection's "
                              "environment (%2, %3).")
            .arg(typed, env.label.trimmed(), where);
    if (!env.isProduction() || env.typedBack(typed))
        return {};
    return QStringLiteral("%1 is marked %2. To run \"%3\" there, type its environment back: "
                          "--confirm-environment %4.")
        .arg(where, env.shown(), what, env.label.trimmed());
}

QString auditEnvironmentRefusal(const QString &auditLog, const QString &connection,
                                const QString &environment, const ScriptCall &call, bool force,
                                const QString &message)
{
    ActionOutcome refused;
    refused.result = ActionOutcome::Result::Refused;
    refused.message = message;
    QJsonObject entry = ActionEngine::auditEntry(call, refused, connection, environment);
    entry.insert(QStringLiteral("force"), force);
    AuditLog audit(nullptr);
    if (!auditLog.isEmpty())
        audit.setPath(auditLog);
    return audit.append(entry, false);
}

} // namespace gatehouse::cli
