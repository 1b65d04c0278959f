// SPDX-License-Identifier: MIT
#pragma once

#include "command.h"

#include <deployment/deployment.h>
#include <metrics/metricsfeed.h>
#include <metrics/metricsserver.h>

#include <QSocketNotifier>
#include <QTimer>

#include <memory>
#include <vector>

namespace gatehouse::cli {

// `serve --metrics ADDR [--seconds N]`: watches one deployment, or several
// (--deployment NAME=URL, each sample labelled deployment="NAME"), like
// `watch` (each reconnects after a lost connection) and serves their latest
// snapshots at http://ADDR/metrics for Prometheus, until SIGINT or SIGTERM,
// or for N seconds. Listens before connecting to Redis, so a taken port
// fails at once. One deployment whose first connection fails ends the run;
// one of several is made again every RetryMs while the others are served.
class ServeCommand : public Command
{
    Q_OBJECT
public:
    struct Options
    {
        MetricsServer::Address address;
        bool allowRemote = false;
        int maxObjectsPerPattern = MetricsExposition::DefaultMaxObjectsPerPattern;
        int seconds = 0; // 0: until a signal
    };
    ServeCommand(const QList<Deployment::Options> &deployments, Options options,
                 QObject *parent = nullptr);
    ~ServeCommand() override;

    // Listens; false (and the sentence on stderr) when it cannot.
    bool listen();
    void start();

    static constexpr int RetryMs = 5000;

private:
    void onSignal();
    // Makes deployment i and its feed (again, after a failure).
    void make(int i);
    void failed(int i, const QString &why);

    Options m_options;
    QList<Deployment::Options> m_deploymentOptions;
    QList<int> m_sources;      // each deployment's in m_server
    QStringList m_lastFailure; // each deployment's, said once until it changes
    MetricsServer m_server;
    std::vector<std::unique_ptr<Deployment>> m_deployments;
    std::vector<std::unique_ptr<MetricsFeed>> m_feeds; // before the deployments go
    QTimer m_stopTimer;
    std::unique_ptr<QSocketNotifier> m_signals;
};

} // namespace gatehouse::cli
