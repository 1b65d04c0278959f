// SPDX-License-Identifier: MIT
#pragma once

// The real limiter libraries of tests/libraries on a test's server: npm
// redis-semaphore (semaphore-app.js: "hold" a permit until killed, "try" one
// acquire) and Debian's Python limits (limits_app.py: "hit", "stats",
// "reset"). Header-only: a test that uses it defines GATEHOUSE_LIBRARIES_DIR.

#include "librarytest.h"

#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <memory>

namespace gatehouse::test {

inline const QString LimiterLibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
inline const QString Python = QStringLiteral("/usr/bin/python3"); // Debian's, with python3-limits

// What is missing of the two libraries, as the sentence a test fails with;
// empty when both are installed.
inline QString limiterLibrariesMissing()
{
    if (!QFile::exists(LimiterLibrariesDir + QStringLiteral("/node_modules/redis-semaphore")))
        return QStringLiteral("npm redis-semaphore is not installed: run .ci/install-deps");
    if (QProcess::execute(Python, {QStringLiteral("-c"), QStringLiteral("import limits")}) != 0)
        return QStringLiteral("python3-limits is not installed: run .ci/install-deps");
    return QString();
}

// One run of a driver to its end: its output, trimmed, or "<failed>" with a
// warning that carries its stderr.
inline QString runDriver(const QString &program, const QStringList &args)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("%s %s failed: %s", qPrintable(program), qPrintable(args.join(QLatin1Char(' '))),
                 p.readAllStandardError().constData());
        return QStringLiteral("<failed>");
    }
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

// semaphore-app.js on a server.
struct SemaphoreApp
{
    QString url;

    QStringList args(const QStringList &more) const
    {
        return QStringList{LimiterLibrariesDir + QStringLiteral("/semaphore-app.js"), url} + more;
    }
    // One command to its end ("try KEY LIMIT LOCK_TIMEOUT_MS" prints "acquired"
    // or "full").
    QString run(const QStringList &more) const
    {
        return runDriver(QStringLiteral("node"), args(more));
    }
};

// A process holding permits ("hold KEY LIMIT PERMITS LOCK_TIMEOUT_MS", PERMITS
// 0 for a Semaphore): started, its holder identifier read from its first
// line; what it prints after ("lost") in rest().
struct SemaphoreHolder
{
    std::unique_ptr<QProcess> process;
    QByteArray identifier;
    QByteArray output;

    bool start(const SemaphoreApp &app, const QStringList &more)
    {
        process = std::make_unique<QProcess>();
        process->start(QStringLiteral("node"), app.args(more));
        if (!pollUntil(
                [this] {
                    return process->canReadLine() || process->state() == QProcess::NotRunning;
                },
                30000)
            || !process->canReadLine()) {
            qWarning("semaphore-app.js %s: %s", qPrintable(more.join(QLatin1Char(' '))),
                     process->readAllStandardError().constData());
            return false;
        }
        identifier = process->readLine().trimmed();
        return !identifier.isEmpty();
    }
    QByteArray rest()
    {
        output += process->readAllStandardOutput();
        return output;
    }
};

// limits_app.py on a server: "hit STRATEGY LIMIT N NAMESPACE KEY" prints the
// hits taken, "stats …" the library's window stats as JSON.
struct LimitsApp
{
    QString url;

    QString run(const QString &command, const QStringList &more) const
    {
        return runDriver(Python, QStringList{LimiterLibrariesDir + QStringLiteral("/limits_app.py"),
                                             url, command}
                                     + more);
    }
};

} // namespace gatehouse::test
