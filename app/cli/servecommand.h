// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <history/historystore.h>
#include <metrics/metricsserver.h>
#include <monitor/monitor.h>

#include <QSocketNotifier>
#include <QTimer>

#include <memory>

namespace gatehouse::cli {

// `serve --metrics ADDR [--seconds N]`: runs the monitor like `watch` (it
// reconnects after a lost connection) and serves its latest snapshot at
// http://ADDR/metrics for Prometheus, until SIGINT or SIGTERM, or for N
// seconds. Listens before connecting to Redis, so a taken port fails at once.
class ServeCommand : public Session
{
    Q_OBJECT
public:
    struct Options
    {
        MetricsServer::Address address;
        bool allowRemote = false;
        int maxObjectsPerPattern = MetricsExposition::DefaultMaxObjectsPerPattern;
        int seconds = 0;     // 0: until a signal
        QString historyFile; // not empty: every tick also goes into this history file
        HistoryStore::Options historyOptions;
    };
    ServeCommand(const RedisEndpoint &endpoint, Monitor::Options monitorOptions, Options options,
                 QObject *parent = nullptr);
    ~ServeCommand() override;

    // Listens; false (and the sentence on stderr) when it cannot.
    bool listen();

protected:
    void onReady() override;
    void onConnectionLost(const QString &why) override;
    void onReconnected(qint64 gapMs) override;

private:
    void onSignal();

    Monitor::Options m_monitorOptions;
    Options m_options;
    MetricsServer m_server;
    std::unique_ptr<Monitor> m_monitor;
    std::unique_ptr<HistoryStore> m_history;
    bool m_discovered = false;
    QTimer m_stopTimer;
    std::unique_ptr<QSocketNotifier> m_signals;
};

} // namespace gatehouse::cli
