// SPDX-License-Identifier: MIT
#pragma once
// A PHP driver script of tests/libraries/ (laravel_app.php, symfony_app.php)
// run with Debian's php-cli: one command to completion, or a worker left
// running for the test to kill. Header-only.

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>

#include <memory>

namespace gatehouse::test {

struct PhpApp
{
    QString script;      // the driver's path
    QStringList leading; // the arguments before the command (URL, prefix, queue)

    static QString php() { return QStringLiteral("/usr/bin/php"); }

    QStringList args(const QStringList &command) const
    {
        return QStringList{script} + leading + command;
    }
    // The command's output, trimmed; "<failed>" (and a warning with its
    // stderr) when it did not exit 0.
    QString run(const QStringList &command) const
    {
        QProcess p;
        p.start(php(), args(command));
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit
            || p.exitCode() != 0) {
            qWarning("%s %s failed: %s", qPrintable(script),
                     qPrintable(command.join(QLatin1Char(' '))),
                     p.readAllStandardError().constData());
            return QStringLiteral("<failed>");
        }
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }
    std::unique_ptr<QProcess> start(const QStringList &command) const
    {
        auto p = std::make_unique<QProcess>();
        p->start(php(), args(command));
        return p;
    }
    // The driver's "counts" command: the library's own figures as JSON.
    QJsonObject counts() const
    {
        return QJsonDocument::fromJson(run({QStringLiteral("counts")}).toUtf8()).object();
    }
};

} // namespace gatehouse::test
