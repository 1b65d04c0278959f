// SPDX-License-Identifier: MIT
#include "metricsendpoint.h"

#include <metrics/metricsserver.h>
#include <monitor/monitor.h>

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

void MetricsEndpoint::attach(Monitor *monitor)
{
    disconnect(m_feed);
    disconnect(m_cost);
    m_monitor = monitor;
    if (!monitor)
        return;
    // Queued: the monitor's thread to the server's.
    m_feed = connect(monitor, &Monitor::snapshotReady, m_server, &MetricsServer::setSnapshot);
    // The tick's cost is read on the monitor's thread when the tick ends,
    // then handed over by value.
    m_cost = connect(monitor, &Monitor::tickFinished, monitor, [monitor, server = m_server] {
        const TickCost cost{monitor->lastTickWallMs(), monitor->lastTickCommands(),
                            monitor->lastTickRoundTrips(), monitor->lastTickObjectsRead()};
        QMetaObject::invokeMethod(server, [server, cost] { server->setTickCost(cost); });
    });
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
