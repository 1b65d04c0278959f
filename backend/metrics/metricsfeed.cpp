// SPDX-License-Identifier: MIT
#include "metricsfeed.h"

#include "metricsserver.h"

#include <deployment/deployment.h>

namespace gatehouse {

MetricsFeed::MetricsFeed(Deployment *deployment, MetricsServer *server, int source)
    : m_deployment(deployment)
    , m_source(source)
{
    // Every snapshot the monitor publishes (at most ten a second) replaces
    // the one served; a scrape renders the latest once.
    m_snapshots = QObject::connect(
        deployment, &Deployment::snapshotReady, server,
        [server, source](const Snapshot &s) { server->setSnapshotOf(source, s); });
    m_cost = QObject::connect(
        deployment, &Deployment::tickCost, server,
        [server, source](const TickCost &cost) { server->setTickCostOf(source, cost); });
}

MetricsFeed::~MetricsFeed()
{
    QObject::disconnect(m_snapshots);
    QObject::disconnect(m_cost);
}

} // namespace gatehouse
