// SPDX-License-Identifier: MIT
#pragma once

#include <history/historystore.h>
#include <monitor/connectiontimeline.h>
#include <monitor/monitor.h>
#include <redis/connectionwatch.h>
#include <redis/redisclient.h>

#include <QObject>
#include <QString>

#include <memory>

namespace gatehouse {

// One Redis deployment watched for as long as the process runs: its
// connection, its monitor and, when asked, its history file. The first
// handshake fails fast (a wrong URL or password is said at once); after it
// a lost connection is retried and the monitor re-reads what it shows (see
// Monitor on reconnects and failovers). What `serve` makes once per
// deployment it watches, and `watch` once.
class Deployment : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString name; // the deployment label; empty when there is only one
        RedisEndpoint endpoint;
        Monitor::Options monitor;
        QString historyFile; // not empty: every tick also goes into this history file
        HistoryStore::Options historyOptions;
    };

    explicit Deployment(Options options, QObject *parent = nullptr);
    ~Deployment() override;

    // Connects; started() or failed() follows.
    void start();
    const QString &name() const { return m_options.name; }
    const RedisEndpoint &endpoint() const { return m_options.endpoint; }
    // "deployment eu: " before a sentence about it; empty without a name.
    QString sentencePrefix() const;
    // Null until started().
    Monitor *monitor() const { return m_monitor.get(); }
    // The first scan has finished: every tick from here on is whole.
    bool isDiscovered() const { return m_discovered; }
    // Writes an event into the history file beside the figures (an alert's
    // firing, say); nothing without one. The connection's timeline is
    // written there already (ConnectionTimeline).
    void recordEvent(qint64 atMs, const QByteArray &key, const QString &kind, const QString &text);

Q_SIGNALS:
    // Connected for the first time; the monitor runs.
    void started();
    // The first connection failed, or the monitor cannot go on (a scan
    // refused): the deployment stops; why is a sentence.
    void failed(const QString &why);
    void connectionLost(const QString &why);
    void reconnected(qint64 gapMs);
    // The monitor's snapshots: published (at most ten a second), overdue
    // (a tick that has not finished in time, marked stale), and each full
    // tick's, after which monitor()->lastTick*() describe it.
    void snapshotReady(const gatehouse::Snapshot &snapshot);
    void tickFinished(const gatehouse::Snapshot &snapshot);
    // A tick that has not finished in time (also in snapshotReady).
    void tickOverdue(const gatehouse::Snapshot &snapshot);
    // The history file could not be written as asked (a sentence).
    void historyProblem(const QString &message);

private:
    void onFirstReady();

    Options m_options;
    RedisClient m_client;
    ConnectionWatch m_watch;
    std::unique_ptr<Monitor> m_monitor;
    std::unique_ptr<HistoryStore> m_history;
    ConnectionTimeline m_timeline; // with a history file: written into it
    bool m_discovered = false;
    bool m_failed = false;
};

} // namespace gatehouse
