// SPDX-License-Identifier: MIT
#include "deployment.h"

#include <history/historyfeed.h>

#include <QDateTime>
#include <QThread>

namespace gatehouse {

Deployment::Deployment(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    // The caller's thread: serve's few deployments cost one thread no more
    // than a hop per round trip would.
    , m_client(m_options.endpoint, QThread::currentThread())
    , m_watch(&m_client)
{
    m_watch.setReconnecting(true);
    connect(&m_watch, &ConnectionWatch::firstReady, this, &Deployment::onFirstReady);
    connect(&m_watch, &ConnectionWatch::lost, this, &Deployment::connectionLost);
    connect(&m_watch, &ConnectionWatch::back, this, &Deployment::reconnected);
    connect(&m_watch, &ConnectionWatch::closed, this, [this](const QString &why) {
        if (!m_failed) {
            m_failed = true;
            Q_EMIT failed(why);
        }
    });
}

// The monitor goes first: its last tick may still feed the history store.
Deployment::~Deployment()
{
    m_monitor.reset();
}

void Deployment::start()
{
    m_client.open();
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

void Deployment::onFirstReady()
{
    m_monitor = std::make_unique<Monitor>(&m_client, m_options.monitor);
    Monitor *monitor = m_monitor.get();
    connect(monitor, &Monitor::failed, this, [this](const QString &why) {
        if (!m_failed) {
            m_failed = true;
            Q_EMIT failed(why);
        }
    });
    // A scan cut by a node that did not answer is made again (Monitor);
    // the figures are whole after the first scan that was not.
    connect(monitor, &Monitor::discoveryFinished, this, [this](bool cancelled) {
        if (cancelled)
            return;
        m_discovered = true;
        m_monitor->refreshNow();
    });
    connect(monitor, &Monitor::snapshotReady, this, &Deployment::snapshotReady);
    connect(monitor, &Monitor::tickOverdue, this, &Deployment::snapshotReady);
    connect(monitor, &Monitor::tickOverdue, this, &Deployment::tickOverdue);
    if (!m_options.historyFile.isEmpty()) {
        // What the console would chart, written on the store's own thread.
        m_history = std::make_unique<HistoryStore>(m_options.historyFile, m_options.historyOptions);
        connect(m_history.get(), &HistoryStore::problem, this, &Deployment::historyProblem);
        m_history->open();
        // Only what the monitor replaced since the last tick is compared:
        // an idle object costs this thread nothing (feedHistory).
        connect(monitor, &Monitor::tickFinished, this, [this](const Snapshot &s) {
            feedHistory(*m_monitor, *m_history, s, m_discovered);
        });
        // The objects get their ids in the file as discovery finds them
        // (HistoryStore::registerObjects): the first tick after it writes
        // their records only.
        connect(monitor, &Monitor::objectsFound, this, [this](const QList<PatternObject> &objects) {
            if (!m_discovered)
                m_history->registerObjects(objects);
        });
        // The connection's timeline (gatehouse-cli timeline reads it back).
        connect(monitor, &Monitor::snapshotReady, this, [this](const Snapshot &s) {
            for (const ConnectionTimeline::Entry &e :
                 m_timeline.observe(s, QDateTime::currentMSecsSinceEpoch()))
                m_history->recordEvent(e.atMs, QByteArray(), e.historyKind(), e.text);
        });
    }
    connect(monitor, &Monitor::tickFinished, this, &Deployment::tickFinished);
    m_monitor->start();
    Q_EMIT started();
}

} // namespace gatehouse
