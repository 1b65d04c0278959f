// SPDX-License-Identifier: MIT
#include "metricsendpoint.h"

#include <metrics/metricsserver.h>
#include <monitor/monitor.h>

#include <QHash>
#include <QSettings>

namespace gatehouse {

namespace {
const char s_defaultAddress[] = "127.0.0.1:9187";
}

MetricsEndpoint::MetricsEndpoint(QObject *parent)
    : QObject(parent)
{
    m_thread.setObjectName(QStringLiteral("gatehouse-metrics"));
    m_server = new MetricsServer;
    m_server->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_server, &QObject::deleteLater);
    m_thread.start();

    QSettings settings;
    m_address = settings.value(QStringLiteral("metrics/address"), QLatin1String(s_defaultAddress))
                    .toString();
    m_toggle.setCheckable(true);
    m_toggle.setChecked(settings.value(QStringLiteral("metrics/enabled"), false).toBool());
    m_toggle.setObjectName(QStringLiteral("serveMetrics"));
    // Serving metrics changes nothing in Redis: it stays enabled in read-only mode.
    m_toggle.setText(tr("Serve &metrics for Prometheus (%1)").arg(m_address));
    m_toggle.setToolTip(tr("Expose every live figure at http://%1/metrics in the Prometheus text "
                           "format (loopback only; set the address with --metrics).")
                            .arg(m_address));
    connect(&m_toggle, &QAction::toggled, this, &MetricsEndpoint::setEnabled);
}

MetricsEndpoint::~MetricsEndpoint()
{
    // The server closes on its own thread, then is deleted there.
    QMetaObject::invokeMethod(m_server, &MetricsServer::close, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

bool MetricsEndpoint::setAddress(const QString &address, QString *error)
{
    if (!MetricsServer::parseAddress(address, error))
        return false;
    // For this run only: the settings keep what the operator chose in the menu.
    m_address = address;
    m_toggle.setText(tr("Serve &metrics for Prometheus (%1)").arg(m_address));
    const QSignalBlocker block(&m_toggle); // startIfEnabled() starts it
    m_toggle.setChecked(true);
    return true;
}

void MetricsEndpoint::add(Monitor *monitor, const QString &name, bool named)
{
    Feed f;
    f.monitor = monitor;
    f.source = m_sources++;
    f.name = name;
    f.named = named;
    MetricsServer *server = m_server;
    // Queued, in order, to the server's thread: the source exists before
    // the first snapshot reaches it.
    QMetaObject::invokeMethod(server, [server] { server->addSource(QString()); });
    f.snapshots = connect(
        monitor, &Monitor::snapshotReady, server,
        [server, source = f.source](const Snapshot &s) { server->setSnapshotOf(source, s); });
    // The tick's cost is read on the monitor's thread when the tick ends,
    // then handed over by value.
    f.cost
        = connect(monitor, &Monitor::tickFinished, monitor, [monitor, server, source = f.source] {
              const TickCost cost{monitor->lastTickWallMs(), monitor->lastTickCommands(),
                                  monitor->lastTickRoundTrips(), monitor->lastTickObjectsRead()};
              QMetaObject::invokeMethod(
                  server, [server, source, cost] { server->setTickCostOf(source, cost); });
          });
    m_feeds.push_back(f);
    relabel();
}

void MetricsEndpoint::remove(Monitor *monitor)
{
    for (auto it = m_feeds.begin(); it != m_feeds.end(); ++it) {
        if (it->monitor != monitor)
            continue;
        disconnect(it->snapshots);
        disconnect(it->cost);
        QMetaObject::invokeMethod(
            m_server, [server = m_server, source = it->source] { server->removeSource(source); });
        m_feeds.erase(it);
        relabel();
        return;
    }
}

void MetricsEndpoint::relabel()
{
    const bool several = m_feeds.size() > 1;
    QHash<QString, int> seen; // two windows on one server: "url", "url#2"
    for (const Feed &f : m_feeds) {
        QString label = several || f.named ? f.name : QString();
        if (const int n = ++seen[label]; n > 1)
            label += QStringLiteral("#%1").arg(n);
        QMetaObject::invokeMethod(m_server, [server = m_server, source = f.source, label] {
            server->setSourceName(source, label);
        });
    }
}

void MetricsEndpoint::startIfEnabled()
{
    if (m_toggle.isChecked() && !m_serving)
        apply(true);
}

void MetricsEndpoint::setEnabled(bool on)
{
    QSettings settings;
    settings.setValue(QStringLiteral("metrics/enabled"), on);
    settings.setValue(QStringLiteral("metrics/address"), m_address);
    apply(on);
}

void MetricsEndpoint::apply(bool on)
{
    if (!on) {
        QMetaObject::invokeMethod(m_server, &MetricsServer::close, Qt::BlockingQueuedConnection);
        m_serving = false;
        return;
    }
    QString error;
    const auto address = MetricsServer::parseAddress(m_address, &error);
    bool ok = false;
    QString url;
    if (address) {
        // A listen is quick (a bind), so the GUI waits for its answer.
        QMetaObject::invokeMethod(
            m_server,
            [&] {
                ok = m_server->listen(*address, false, &error);
                url = m_server->url();
            },
            Qt::BlockingQueuedConnection);
    }
    m_serving = ok;
    if (!ok) {
        const QSignalBlocker block(&m_toggle);
        m_toggle.setChecked(false);
        Q_EMIT failed(error);
        return;
    }
    Q_EMIT serving(url);
}

} // namespace gatehouse
