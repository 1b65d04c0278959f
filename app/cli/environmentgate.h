// SPDX-License-Identifier: MIT
#pragma once

#include <actions/environment.h>
#include <patterns/scriptcall.h>

#include <QString>

class QCommandLineParser;

namespace gatehouse::cli {

struct CliOptions;

// The connection's environment as the operator named it: --environment, else
// $GATEHOUSE_ENVIRONMENT (a shell profile on a production host sets it once).
Environment cliEnvironment(const QCommandLineParser &parser, const CliOptions &options);

// Why a write (an action, simulate) may not run on a connection marked env:
// on production (Environment::isProduction) only with its name typed back
// with --confirm-environment (typed); a name typed that is not env's is
// refused on any environment. Empty when it may run; else the sentence,
// which says what to type (an action's refusal, audited, carries it). what: the command as the
// operator gave it; where: the connection as displayed.
QString environmentRefusal(const Environment &env, const QString &typed, const QString &what,
                           const QString &where);

// An action refused by the environment, in the audit log (auditLog, or the
// default) without connecting: the call it would have made (its action id,
// keys and arguments, secrets masked), force, the sentence. Empty, or why
// the log could not be written.
QString auditEnvironmentRefusal(const QString &auditLog, const QString &connection,
                                const QString &environment, const ScriptCall &call, bool force,
                                const QString &message);

} // namespace gatehouse::cli
