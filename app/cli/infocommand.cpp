// SPDX-License-Identifier: MIT
#include "infocommand.h"

#include <actions/auditlog.h>
#include <history/historystore.h>
#include <monitor/profile.h>

#include <QCoreApplication>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTextStream>

#include <hiredis/hiredis.h>

namespace gatehouse::cli {

namespace {

void line(QTextStream &out, const char *what, const QString &value)
{
    out << QString::fromLatin1(what).leftJustified(22) << value << Qt::endl;
}

QString orDefault(const QString &given, const QString &fallback)
{
    return given.isEmpty() ? fallback : given;
}

// Lines of the Commands list ("  noun ...") with their continuation lines,
// and option entries ("  --name ...") with theirs.
QList<QStringList> entries(const QString &fullHelp, bool options)
{
    QList<QStringList> out;
    bool inCommands = false;
    for (const QString &l : fullHelp.split(QLatin1Char('\n'))) {
        if (l.startsWith(QLatin1String("Commands:"))) {
            inCommands = true;
            continue;
        }
        if (l.startsWith(QLatin1String("Options:")) || l.startsWith(QLatin1String("Arguments:")))
            inCommands = false;
        const bool start = options ? l.startsWith(QLatin1String("  -"))
                                   : inCommands && l.startsWith(QLatin1String("  ")) && l.size() > 2
                                         && l.at(2).isLower();
        if (start)
            out.append({l});
        else if (!out.isEmpty() && l.startsWith(QLatin1String("   ")) && (options || inCommands))
            out.last().append(l);
        else if (!out.isEmpty() && !l.startsWith(QLatin1String("  ")))
            out.append(QStringList()); // a blank or heading ends the entry
    }
    out.removeAll(QStringList());
    return out;
}

} // namespace

void printLocalInfo(const RedisEndpoint &endpoint, const InfoPaths &paths)
{
    QTextStream out(stdout);
    const QString config = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation);
    const QString historyDir = orDefault(paths.historyDir, HistoryStore::defaultDirectory());
    line(out, "gatehouse-cli", QCoreApplication::applicationVersion());
    line(out, "Qt",
         QStringLiteral("%1 (built with %2)")
             .arg(QLatin1String(qVersion()), QLatin1String(QT_VERSION_STR)));
    line(out, "hiredis",
         QStringLiteral("%1.%2.%3").arg(HIREDIS_MAJOR).arg(HIREDIS_MINOR).arg(HIREDIS_PATCH));
    line(out, "settings", QSettings().fileName());
    line(out, "profile", orDefault(paths.profile, QStringLiteral("none: autodetection")));
    line(out, "built-in profiles", Profile::builtInNames().join(QStringLiteral(", ")));
    line(out, "saved profiles", config + QStringLiteral("/profiles/"));
    line(out, "deployment verdicts", Profile::connectionFile(endpoint));
    line(out, "history directory", historyDir);
    line(out, "history file", HistoryStore::fileFor(endpoint, historyDir));
    line(out, "audit log", orDefault(paths.auditLog, AuditLog::defaultPath()));
    line(out, "passwords",
         QStringLiteral("--pass, REDISCLI_AUTH, or the URL (the console keeps "
                        "saved ones in the desktop keychain, QtKeychain)"));
    line(out, "server", endpoint.address());
}

void InfoCommand::onReady()
{
    client().command({"INFO", "server"}, this, [this](const RedisValue &v) {
        if (v.isError()) {
            fail(QStringLiteral("INFO server failed: %1").arg(v.errorMessage()));
            return;
        }
        const QString info = QString::fromUtf8(v.bytes());
        const auto field = [&](const char *name) {
            const QRegularExpression re(QStringLiteral("^%1:(.*)$").arg(QLatin1String(name)),
                                        QRegularExpression::MultilineOption);
            return re.match(info).captured(1).trimmed();
        };
        QTextStream out(stdout);
        line(out, "server version",
             QStringLiteral("%1 (%2)").arg(field("redis_version"), field("redis_mode")));
        done(0);
    });
}

QString subjectHelp(const QString &subject, const QString &fullHelp)
{
    QString out;
    for (const QStringList &e : entries(fullHelp, false)) {
        if (e.first().split(QLatin1Char(' '), Qt::SkipEmptyParts).value(0) == subject)
            out += e.join(QLatin1Char('\n')) + QLatin1Char('\n');
    }
    if (out.isEmpty())
        return {};
    QString options;
    const QRegularExpression about(QStringLiteral("(^|[ ,(])%1[ :,]").arg(subject));
    for (const QStringList &e : entries(fullHelp, true)) {
        const QString text = e.join(QLatin1Char(' '));
        if (about.match(text.section(QLatin1Char(' '), 3)).hasMatch())
            options += e.join(QLatin1Char('\n')) + QLatin1Char('\n');
    }
    if (!options.isEmpty())
        out += QStringLiteral("\nOptions:\n") + options;
    return out;
}

QStringList helpSubjects(const QString &fullHelp)
{
    QStringList out;
    for (const QStringList &e : entries(fullHelp, false)) {
        const QString noun = e.first().split(QLatin1Char(' '), Qt::SkipEmptyParts).value(0);
        if (!out.contains(noun))
            out << noun;
    }
    return out;
}

} // namespace gatehouse::cli
