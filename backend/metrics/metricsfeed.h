// SPDX-License-Identifier: MIT
#pragma once

#include <QMetaObject>

namespace gatehouse {

class Deployment;
class MetricsServer;

// One deployment feeding one source of a metrics endpoint: every snapshot
// it publishes (an overdue tick's, marked stale, too) and what each full
// tick cost. The same feed for the console's endpoint, on a thread of its
// own, and for `serve`, on the deployment's: what reaches the server is
// queued to its thread when that is another, in order, so the source exists
// before the first snapshot reaches it. Works from before the deployment's
// first connection (serve makes its monitor only then) and across
// reconnections. Disconnected when destroyed.
class MetricsFeed
{
public:
    MetricsFeed(Deployment *deployment, MetricsServer *server, int source);
    ~MetricsFeed();
    MetricsFeed(const MetricsFeed &) = delete;
    MetricsFeed &operator=(const MetricsFeed &) = delete;

    Deployment *deployment() const { return m_deployment; }
    int source() const { return m_source; }

private:
    Deployment *m_deployment;
    int m_source;
    QMetaObject::Connection m_snapshots;
    QMetaObject::Connection m_cost;
};

} // namespace gatehouse
