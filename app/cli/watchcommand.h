// SPDX-License-Identifier: MIT
#pragma once

#include "command.h"

#include <alerts/alertengine.h>
#include <deployment/deployment.h>

#include <memory>

namespace gatehouse::cli {

// `watch [--interval MS] [--count N] [--json] [--history FILE] [--alerts]`:
// one Deployment followed for as long as it runs. A line per tick (JSON
// lines with --json), stale readings marked; a lost connection is retried,
// with a line when it goes and one for the gap when it is back; a master
// switch or a restart said when it is seen and when every object was read
// again. The first connection still fails fast.
class WatchCommand : public Command
{
    Q_OBJECT
public:
    WatchCommand(const RedisEndpoint &endpoint, Monitor::Options options, bool json, int count,
                 QObject *parent = nullptr);
    ~WatchCommand() override;
    // --history: every tick's figures, the connection's timeline and the
    // alerts' transitions go to this history file.
    void setHistoryFile(const QString &path, const HistoryStore::Options &options = {});
    // --alerts: print the rules' firings and resolutions instead of a line
    // per tick; failOnAlert: end (after --count ticks, SIGINT or SIGTERM)
    // with ExitAlertFired when any fired.
    void setAlerts(const QList<AlertRule> &rules, bool failOnAlert);
    void start();

private:
    void printTick(const Snapshot &snapshot);
    void printWatchLine(const Snapshot &snapshot);
    void printWorldEvents(const Snapshot &snapshot);
    void printAlert(const AlertEvent &event);
    void onConnectionLost(const QString &why);
    void onReconnected(qint64 gapMs);
    int endCode() const;

    Deployment::Options m_options;
    std::unique_ptr<Deployment> m_deployment;
    bool m_failOnAlert = false;
    bool m_json = false;
    int m_count = 0; // ticks to print, 0 = until interrupted
    int m_printed = 0;
    int m_missed = 0; // ticks printed while the connection was lost
    bool m_lost = false;
    int m_worldGeneration = 0; // the last ServerStatus::World printed
    bool m_worldWhole = false;
};

} // namespace gatehouse::cli
