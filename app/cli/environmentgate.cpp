// SPDX-License-Identifier: MIT
#include "environmentgate.h"

#include "clioptions.h"

#include <QCommandLineParser>

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
        return QStringLiteral("Refused: --confirm-environment \"%1\" is not this connection's "
                              "environment (%2, %3). Nothing was sent.")
            .arg(typed, env.label.trimmed(), where);
    if (!env.isProduction() || env.typedBack(typed))
        return {};
    return QStringLiteral("Refused: %1 is marked %2. To run \"%3\" there, type its environment "
                          "back: --confirm-environment %4. Nothing was sent.")
        .arg(where, env.shown(), what, env.label.trimmed());
}

} // namespace gatehouse::cli
