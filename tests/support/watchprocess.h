// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QStringList>

namespace gatehouse::test {

// `gatehouse-cli watch --json` (GATEHOUSE_CLI) as a child process, read as
// it prints: each snapshot line and each event line ({"event": ...}) parsed
// as it arrives. The destructor stops the process (by its QProcess).
class WatchProcess
{
public:
    // args: the connection and watch options, without "watch --json".
    explicit WatchProcess(const QString &program, const QStringList &args);
    ~WatchProcess();
    WatchProcess(const WatchProcess &) = delete;
    WatchProcess &operator=(const WatchProcess &) = delete;

    bool started() const { return m_started; }
    // Reads what arrived (the test's event loop must spin: waitUntil).
    void poll();
    // Every snapshot line so far (lines with "server"), and event lines.
    const QList<QJsonObject> &snapshots() const { return m_snapshots; }
    QList<QJsonObject> events(const QString &name) const;
    const QList<QJsonObject> &allEvents() const { return m_events; }
    QJsonObject latest() const { return m_snapshots.value(m_snapshots.size() - 1); }
    QString errors() { return QString::fromUtf8(m_process.readAllStandardError()); }
    // "running", or how the process ended, with the last event line and
    // the end of what it wrote on stderr: for a failure's message.
    QString status();

    // Every object of a snapshot, whatever its section, by key (a family's
    // key is its prefix); each carries "section" (locks, queues, ...).
    static QHash<QString, QJsonObject> objects(const QJsonObject &snapshot);

private:
    QProcess m_process;
    QByteArray m_pending;
    QList<QJsonObject> m_snapshots;
    QList<QJsonObject> m_events;
    bool m_started = false;
};

} // namespace gatehouse::test
