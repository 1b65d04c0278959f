// SPDX-License-Identifier: MIT
#include "environmentgate.h"

#include "clioptions.h"

#include <actions/actionengine.h>
#include <actions/auditlog.h>
#include <redis/redisvalue.h>

#include <QCommandLineParser>
#include <QDateTime>
#include <QJsonArray>
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
                                const QStringList &words, bool force, const QString &message)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QJsonArray keys;
    if (words.size() > 2)
        keys.append(keyToJson(words.at(2).toUtf8()));
    AuditLog audit(nullptr);
    if (!auditLog.isEmpty())
        audit.setPath(auditLog);
    return audit.append(
        QJsonObject{{QStringLiteral("time"),
                     QDateTime::fromMSecsSinceEpoch(now).toUTC().toString(Qt::ISODateWithMs)},
                    {QStringLiteral("timeMs"), double(now)},
                    {QStringLiteral("connection"), connection},
                    {QStringLiteral("user"), ActionEngine::osUser()},
                    {QStringLiteral("action"), words.mid(0, 2).join(QLatin1Char('.'))},
                    {QStringLiteral("keys"), keys},
                    {QStringLiteral("force"), force},
                    {QStringLiteral("outcome"), QStringLiteral("refused")},
                    {QStringLiteral("message"), message}},
        false);
}

} // namespace gatehouse::cli
