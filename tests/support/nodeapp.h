// SPDX-License-Identifier: MIT
#pragma once

// A real Node application of tests/libraries (bullmq-app.js by default) on a
// test's server: its one-shot commands and its long-running workers.
// Header-only: a test that uses it defines GATEHOUSE_LIBRARIES_DIR.

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <memory>

namespace gatehouse::test {

struct NodeApp
{
    QString module; // "bullmq" (6) or "bullmq5"
    QString url;
    QString queue = QStringLiteral("emails");
    QString script = QStringLiteral("bullmq-app.js");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();

    QStringList args(const QString &command, const QStringList &more = {}) const
    {
        return QStringList{QStringLiteral(GATEHOUSE_LIBRARIES_DIR "/") + script, module, url, queue,
                           command}
               + more;
    }
    QStringList args(const QString &command, const QString &arg) const
    {
        return args(command, arg.isEmpty() ? QStringList() : QStringList{arg});
    }
    // Runs a command to its end; its stdout, trimmed ("<failed>" when it failed).
    QString run(const QString &command, const QStringList &more) const
    {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral("node"), args(command, more));
        if (!p.waitForFinished(60000) || p.exitCode() != 0) {
            qWarning("node %s %s failed: %s", qPrintable(command), qPrintable(more.join(' ')),
                     p.readAllStandardError().constData());
            return QStringLiteral("<failed>");
        }
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }
    QString run(const QString &command, const QString &arg = {}) const
    {
        return run(command, arg.isEmpty() ? QStringList() : QStringList{arg});
    }
    // A long-running worker; returns once it printed want.
    std::unique_ptr<QProcess> start(const QString &command, const QString &arg,
                                    const QByteArray &want) const
    {
        auto p = std::make_unique<QProcess>();
        p->setProcessEnvironment(env);
        p->start(QStringLiteral("node"), args(command, arg));
        QByteArray out;
        QDeadlineTimer deadline(30000);
        while (!out.contains(want) && !deadline.hasExpired()
               && p->state() != QProcess::NotRunning) {
            p->waitForReadyRead(200);
            out += p->readAllStandardOutput();
        }
        if (!out.contains(want))
            qWarning("node %s did not print %s: %s %s", qPrintable(command), want.constData(),
                     out.constData(), p->readAllStandardError().constData());
        return p;
    }
    QJsonObject json(const QString &command) const
    {
        return QJsonDocument::fromJson(run(command).toUtf8()).object();
    }
    QJsonObject counts() const { return json(QStringLiteral("counts")); }
};

} // namespace gatehouse::test
