// SPDX-License-Identifier: MIT
#include "deployment.h"

#include "consolereads.h"
#include "historyfeed.h"

#include <actions/actionengine.h>
#include <alerts/alertengine.h>
#include <monitor/jobbrowser.h>
#include <redis/connectionwatch.h>
#include <redis/redisclient.h>

#include <QThread>

namespace gatehouse {

Deployment::Deployment(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{
    QThread *thread = m_options.thread ? m_options.thread : QThread::currentThread();
    m_anchor.moveToThread(thread);
    if (m_options.alerts) {
        m_alerts = std::make_unique<AlertEngine>();
        m_alerts->setRules(*m_options.alerts);
        // Firings and resolutions beside the figures.
        connect(m_alerts.get(), &AlertEngine::transition, this, [this](const AlertEvent &e) {
            recordEvent(e.atMs, e.key, QStringLiteral("alert.") + e.stateId(), e.sentence());
        });
    }
    // The monitor's connection lives on the monitor's thread: no hop per
    // round trip.
    m_client = std::make_unique<RedisClient>(m_options.endpoint, thread);
    if (!m_options.retryFirstConnection) {
        m_watch = std::make_unique<ConnectionWatch>(m_client.get());
        m_watch->setReconnecting(true);
        connect(m_watch.get(), &ConnectionWatch::firstReady, this, [this] {
            makeMonitor();
            m_monitor->start();
            Q_EMIT started();
        });
        connect(m_watch.get(), &ConnectionWatch::lost, this, &Deployment::connectionLost);
        connect(m_watch.get(), &ConnectionWatch::back, this, &Deployment::reconnected);
        connect(m_watch.get(), &ConnectionWatch::closed, this, &Deployment::fail);
    } else {
        makeMonitor();
        connect(m_client.get(), &RedisClient::ready, this, &Deployment::started,
                Qt::SingleShotConnection);
    }
    if (m_options.demoTraffic)
        m_simulator = std::make_unique<Simulator>(m_client.get(), *m_options.demoTraffic);
    if (m_options.actions) {
        RedisEndpoint master = m_options.endpoint;
        master.readFromReplicas = false;
        m_actionsClient = std::make_unique<RedisClient>(master);
        m_actions = std::make_unique<ActionEngine>(m_actionsClient.get());
        m_actions->setReadOnly(m_options.readOnly);
        if (!m_options.auditLogPath.isEmpty())
            m_actions->setAuditLogPath(m_options.auditLogPath);
        m_reads = std::make_unique<ConsoleReads>(m_actionsClient.get());
        m_jobs = std::make_unique<JobBrowser>(m_actionsClient.get());
    }
    if (m_options.thread) {
        m_client->moveToThread(thread);
        if (m_monitor)
            m_monitor->moveToThread(thread);
        if (m_simulator)
            m_simulator->moveToThread(thread);
    }
}

// The traffic and the monitor go first (its last tick may still feed the
// history store), then their connection: all on their own thread, before the
// server they watch may go away.
Deployment::~Deployment()
{
    m_jobs.reset();
    m_reads.reset();
    m_actions.reset();
    m_actionsClient.reset();
    onThread([this] {
        m_simulator.reset();
        m_monitor.reset();
        m_watch.reset();
        m_client.reset();
    });
}

void Deployment::onThread(const std::function<void()> &job)
{
    if (m_anchor.thread() == QThread::currentThread())
        job();
    else
        QMetaObject::invokeMethod(&m_anchor, job, Qt::BlockingQueuedConnection);
}

void Deployment::start()
{
    if (m_actionsClient)
        m_actionsClient->open();
    QMetaObject::invokeMethod(m_client.get(), &RedisClient::open);
    if (m_options.retryFirstConnection)
        QMetaObject::invokeMethod(m_monitor.get(), &Monitor::start);
    if (m_simulator)
        QMetaObject::invokeMethod(m_simulator.get(), &Simulator::start);
}

void Deployment::close()
{
    QMetaObject::invokeMethod(m_client.get(), [this] {
        if (m_monitor)
            m_monitor->close();
        else
            m_client->close();
    });
    if (m_actionsClient)
        m_actionsClient->close();
}

ConnectionStatus Deployment::actionsConnection() const
{
    if (!m_actionsClient)
        return {};
    const RedisClient &c = *m_actionsClient;
    return {c.state(), c.errorString(), c.nextAttemptAtMs(), c.errorKind()};
}

void Deployment::evaluateAlerts(const Snapshot &snapshot)
{
    if (m_alerts && m_discovered)
        m_alerts->evaluate(snapshot);
}

void Deployment::recordEvent(qint64 atMs, const QByteArray &key, const QString &kind,
                             const QString &text)
{
    if (m_history)
        m_history->recordEvent(atMs, key, kind, text);
}

QString Deployment::sentencePrefix() const
{
    return m_options.name.isEmpty() ? QString()
                                    : QStringLiteral("deployment %1: ").arg(m_options.name);
}

void Deployment::fail(const QString &why)
{
    if (m_failed)
        return;
    m_failed = true;
    Q_EMIT failed(why);
}

void Deployment::makeMonitor()
{
    m_monitor = std::make_unique<Monitor>(m_client.get(), m_options.monitor);
    Monitor *monitor = m_monitor.get();
    connect(monitor, &Monitor::failed, this, &Deployment::fail);
    // A scan cut by a node that did not answer is made again (Monitor);
    // the figures are whole after the first scan that was not.
    connect(
        monitor, &Monitor::discoveryFinished, monitor,
        [this, monitor](bool cancelled) {
            if (cancelled)
                return;
            m_discovered = true;
            monitor->refreshNow();
        },
        Qt::DirectConnection);
    // Emitted on the monitor's thread: each follower's own queued connection
    // takes it to its thread (the metrics endpoint's never waits for the
    // GUI's).
    connect(monitor, &Monitor::snapshotReady, this, &Deployment::snapshotReady,
            Qt::DirectConnection);
    connect(monitor, &Monitor::tickOverdue, this, &Deployment::snapshotReady, Qt::DirectConnection);
    // The rules see a tick before whoever follows the deployment does (watch
    // --alerts prints the transitions, then counts the tick).
    connect(monitor, &Monitor::tickOverdue, this, [this](const Snapshot &s) {
        evaluateAlerts(s);
        Q_EMIT tickOverdue(s);
    });
    if (!m_options.historyFile.isEmpty())
        writeHistory();
    connect(
        monitor, &Monitor::tickFinished, monitor,
        [this, monitor] { Q_EMIT tickCost(monitor->lastTickCost()); }, Qt::DirectConnection);
    connect(monitor, &Monitor::tickFinished, this, [this](const Snapshot &s) {
        evaluateAlerts(s);
        Q_EMIT tickFinished(s);
    });
}

void Deployment::writeHistory()
{
    // What the console would chart, written on the store's own thread.
    m_history = std::make_shared<HistoryStore>(m_options.historyFile, m_options.historyOptions);
    connect(m_history.get(), &HistoryStore::problem, this, &Deployment::historyProblem);
    m_history->open();
    feedHistoryFrom(m_monitor.get(), m_history);
}

} // namespace gatehouse
