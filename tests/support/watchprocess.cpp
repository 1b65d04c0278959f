// SPDX-License-Identifier: MIT
#include "watchprocess.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace gatehouse::test {

WatchProcess::WatchProcess(const QString &program, const QStringList &args)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("REDISCLI_AUTH"));
    m_process.setProcessEnvironment(env);
    m_process.start(program, args + QStringList{QStringLiteral("watch"), QStringLiteral("--json")});
    m_started = m_process.waitForStarted(10000);
}

WatchProcess::~WatchProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.terminate();
        if (!m_process.waitForFinished(5000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
}

void WatchProcess::poll()
{
    m_pending += m_process.readAllStandardOutput();
    qsizetype end;
    while ((end = m_pending.indexOf('\n')) >= 0) {
        const QByteArray line = m_pending.left(end);
        m_pending.remove(0, end + 1);
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.contains(QLatin1String("event")))
            m_events.append(o);
        else if (o.contains(QLatin1String("server")))
            m_snapshots.append(o);
    }
}

QList<QJsonObject> WatchProcess::events(const QString &name) const
{
    QList<QJsonObject> out;
    for (const QJsonObject &e : m_events) {
        if (e.value(QLatin1String("event")).toString() == name)
            out.append(e);
    }
    return out;
}

QHash<QString, QJsonObject> WatchProcess::objects(const QJsonObject &snapshot)
{
    QHash<QString, QJsonObject> out;
    for (auto it = snapshot.constBegin(); it != snapshot.constEnd(); ++it) {
        if (!it.value().isArray() || it.key() == QLatin1String("candidates")
            || it.key() == QLatin1String("other"))
            continue;
        for (const QJsonValue &v : it.value().toArray()) {
            QJsonObject o = v.toObject();
            const QString key = o.value(QLatin1String("key")).toString();
            if (key.isEmpty())
                continue;
            o.insert(QStringLiteral("section"), it.key());
            out.insert(key, o);
        }
    }
    return out;
}

QString WatchProcess::status()
{
    QString out = m_process.state() == QProcess::Running ? QStringLiteral("running")
                  : m_process.exitStatus() == QProcess::CrashExit
                      ? QStringLiteral("crashed")
                      : QStringLiteral("exited with %1").arg(m_process.exitCode());
    if (!m_events.isEmpty())
        out += QStringLiteral("; last event ")
               + QString::fromUtf8(
                   QJsonDocument(m_events.last()).toJson(QJsonDocument::Compact).left(300));
    const QString err = errors().trimmed();
    if (!err.isEmpty())
        out += QStringLiteral("; stderr ") + err.right(500);
    return out;
}

} // namespace gatehouse::test
