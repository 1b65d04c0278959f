// SPDX-License-Identifier: MIT
#pragma once

#include <alerts/alertrule.h>
#include <history/historystore.h>
#include <monitor/monitor.h>
#include <redis/redisendpoint.h>
#include <sim/simulator.h>

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>

class QThread;

namespace gatehouse {

class RedisClient;

class ActionEngine;
class AlertEngine;
class ConnectionWatch;
class ConsoleReads;
class JobBrowser;

// One Redis deployment watched for as long as the process runs or its window
// is open: its connection and monitor, the history file every tick goes
// into, its alert rules, and, for the console, the actions' connection with
// their engine and the console's reads (server panel, tokens, job pages) and
// the demo's traffic. What the console makes once per window, `serve` once per
// deployment it watches, and `watch` once.
//
// Two ways to start. By default the first handshake fails fast (a wrong URL
// or password is said at once, failed()) and the monitor is made once it
// succeeds. With retryFirstConnection (the console) the monitor exists from
// the start and the first connection is retried as a lost one is: the window
// says why behind its banner meanwhile. Either way a lost connection is
// retried after the first handshake and the monitor re-reads what it shows
// (see Monitor on reconnects and failovers).
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
        bool retryFirstConnection = false;
        // Not null: the connection, the monitor and the demo's traffic run on
        // this thread (running, and outliving the deployment), so that a tick
        // of tens of thousands of objects never stalls the creating thread.
        // Null: the creating thread's (serve's few deployments cost one
        // thread no more than a hop per round trip would). Only with
        // retryFirstConnection: the monitor a first handshake makes would be
        // made on the creating thread.
        QThread *thread = nullptr;
        // The demo's traffic into the deployment, from start() on.
        std::optional<Simulator::Options> demoTraffic;
        // The actions' own connection (always to the master, whatever
        // readFromReplicas says) and engine, on the creating thread where
        // their outcomes are shown.
        bool actions = false;
        bool readOnly = false; // the action engine refuses every write
        QString auditLogPath;  // with actions: where they are audited; empty: the default
        // Set: these rules are evaluated on every tick once the first scan
        // has finished (alerts()), and with a history file each firing and
        // resolution goes into it.
        std::optional<QList<AlertRule>> alerts;
    };

    explicit Deployment(Options options, QObject *parent = nullptr);
    // Stops the monitor and the traffic, on their thread, before returning.
    ~Deployment() override;

    // Connects; started() or failed() follows.
    void start();
    // Closes every connection: the monitor's (its ticks and the demo's
    // traffic stop with it) and the actions'. Nothing is read or written
    // until the deployment is made again (File > Disconnect).
    void close();
    const QString &name() const { return m_options.name; }
    const RedisEndpoint &endpoint() const { return m_options.endpoint; }
    // "deployment eu: " before a sentence about it; empty without a name.
    QString sentencePrefix() const;
    // Null until started(), unless retryFirstConnection. It lives on the
    // deployment's thread: from another, ask it with QMetaObject::invokeMethod.
    Monitor *monitor() const { return m_monitor.get(); }
    // The actions' connection and engine, and the console's reads over that
    // connection (ConsoleReads, JobBrowser), on the creating thread; null
    // unless Options::actions.
    RedisClient *actionsClient() const { return m_actionsClient.get(); }
    ActionEngine *actions() const { return m_actions.get(); }
    ConsoleReads *reads() const { return m_reads.get(); }
    JobBrowser *jobs() const { return m_jobs.get(); }
    // The actions' connection as its client reports it now (the console's
    // banner until the first snapshot); Disconnected without actions.
    ConnectionStatus actionsConnection() const;
    // The demo's traffic, on the deployment's thread; null unless
    // Options::demoTraffic.
    Simulator *simulator() const { return m_simulator.get(); }
    // The rules' engine, on the creating thread; null unless Options::alerts.
    AlertEngine *alerts() const { return m_alerts.get(); }
    // The history file's store, open; null without one. Its figures come
    // from the monitor's thread, its writes go on a thread of its own.
    const std::shared_ptr<HistoryStore> &history() const { return m_history; }
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
    // Not with retryFirstConnection (the monitor's snapshots say it).
    void connectionLost(const QString &why);
    void reconnected(qint64 gapMs);
    // The monitor's snapshots: published (at most ten a second), overdue
    // (a tick that has not finished in time, marked stale), and each full
    // tick's, after which monitor()->lastTick*() describe it.
    // snapshotReady and tickCost are emitted on the monitor's thread:
    // connect them with a context object.
    void snapshotReady(const gatehouse::Snapshot &snapshot);
    void tickFinished(const gatehouse::Snapshot &snapshot);
    // A tick that has not finished in time (also in snapshotReady).
    void tickOverdue(const gatehouse::Snapshot &snapshot);
    // What each full tick cost, read when it finished (before tickFinished
    // reaches another thread, where monitor()->lastTick*() may already
    // describe the next one).
    void tickCost(const gatehouse::TickCost &cost);
    // The history file could not be written as asked (a sentence).
    void historyProblem(const QString &message);

private:
    void makeMonitor();
    // The alert rules on a tick the monitor finished (or overdue), once the
    // first scan has.
    void evaluateAlerts(const Snapshot &snapshot);
    void fail(const QString &why);
    // Every tick into the history file (feedHistoryFrom).
    void writeHistory();
    // Calls job on the deployment's thread (now, when it is this one) and
    // waits for it.
    void onThread(const std::function<void()> &job);

    Options m_options;
    QObject m_anchor; // on the deployment's thread: the context of onThread
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<ConnectionWatch> m_watch; // not with retryFirstConnection
    std::unique_ptr<Monitor> m_monitor;
    std::unique_ptr<Simulator> m_simulator;
    std::unique_ptr<RedisClient> m_actionsClient;
    std::unique_ptr<ActionEngine> m_actions;
    std::unique_ptr<ConsoleReads> m_reads;
    std::unique_ptr<JobBrowser> m_jobs;
    std::unique_ptr<AlertEngine> m_alerts;
    std::shared_ptr<HistoryStore> m_history;
    std::atomic<bool> m_discovered = false;
    bool m_failed = false;
};

} // namespace gatehouse
