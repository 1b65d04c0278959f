// SPDX-License-Identifier: MIT
#include "metricsendpoint.h"

#include <metrics/metricsfeed.h>
#include <metrics/metricsserver.h>

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

void MetricsEndpoint::add(Deployment *deployment, const QString &name, bool named)
{
    if (!deployment)
        return;
    const int source = m_sources++;
    MetricsServer *server = m_server;
    // Queued, in order, to the server's thread: the source exists before
    // the first snapshot reaches it.
    QMetaObject::invokeMethod(server, [server] { server->addSource(QString()); });
    m_feeds.push_back({std::make_unique<MetricsFeed>(deployment, server, source), name, named});
    relabel();
}

void MetricsEndpoint::remove(Deployment *deployment)
{
    for (auto it = m_feeds.begin(); it != m_feeds.end(); ++it) {
        if (it->feed->deployment() != deployment)
            continue;
        QMetaObject::invokeMethod(m_server, [server = m_server, source = it->feed->source()] {
            server->removeSource(source);
        });
        m_feeds.erase(it); // disconnects
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
        QMetaObject::invokeMethod(m_server, [server = m_server, source = f.feed->source(), label] {
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
