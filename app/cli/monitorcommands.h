// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <alerts/alertengine.h>
#include <history/historystore.h>
#include <monitor/connectiontimeline.h>
#include <monitor/discovery.h>
#include <monitor/monitor.h>

#include <QElapsedTimer>
#include <QTimer>

#include <memory>

namespace gatehouse::cli {

// `snapshot [--json]`: discover, read everything once, print.
// `watch [--interval MS] [--count N]`: a line per tick (JSON lines with --json),
// stale readings marked; a lost connection is retried, with a line when it
// goes and one for the gap when it is back.
class SnapshotCommand : public Session
{
    Q_OBJECT
public:
    SnapshotCommand(const RedisEndpoint &endpoint, Monitor::Options options, bool json, bool watch,
                    int count, QObject *parent = nullptr);
    // snapshot --json: at most limit elements per section (-1: all).
    void setLimit(qsizetype limit) { m_limit = limit; }
    // watch --history: every tick's figures go to this history file.
    void setHistoryFile(const QString &path, const HistoryStore::Options &options = {})
    {
        m_historyFile = path;
        m_historyOptions = options;
    }
    // watch --alerts: print the rules' firings and resolutions instead of a
    // line per tick; failOnAlert: end (after --count ticks, SIGINT or
    // SIGTERM) with ExitAlertFired when any fired.
    void setAlerts(const QList<AlertRule> &rules, bool failOnAlert);

protected:
    void onReady() override;
    void onConnectionLost(const QString &why) override;
    void onReconnected(qint64 gapMs) override;

private:
    void printTick(const Snapshot &snapshot);
    void printText(const Snapshot &snapshot);
    void printWatchLine(const Snapshot &snapshot);
    void printWorldEvents(const Snapshot &snapshot);
    void printAlert(const AlertEvent &event);
    int endCode() const;
    // snapshot: a server that stops answering (stopped, DEBUG SLEEP, a stalled
    // network: the socket stays open) ends the run with a sentence, not a hang.
    void checkSilence();

    Monitor::Options m_options;
    QTimer m_silenceCheck;        // snapshot only, every second
    QElapsedTimer m_progress;     // since the last scan progress
    QElapsedTimer m_progressLine; // since the last progress line on stderr
    bool m_progressShown = false;
    qsizetype m_limit = -1;
    std::unique_ptr<Monitor> m_monitor;
    QString m_historyFile;
    HistoryStore::Options m_historyOptions;
    std::unique_ptr<HistoryStore> m_history; // written on its own thread
    std::unique_ptr<AlertEngine> m_alerts;   // watch --alerts only
    ConnectionTimeline m_timeline;           // watch --history: recorded in the file
    bool m_failOnAlert = false;
    bool m_json = false;
    bool m_watch = false;
    int m_count = 0; // watch: ticks to print, 0 = until interrupted
    int m_printed = 0;
    int m_missed = 0; // ticks printed while the connection was lost
    bool m_lost = false;
    bool m_discovered = false;
    int m_worldGeneration = 0; // the last ServerStatus::World printed
    bool m_worldWhole = false;
};

// `profile suggest`: autodetect, print the profile that finds the same as JSON.
class SuggestCommand : public Session
{
    Q_OBJECT
public:
    using Session::Session;

protected:
    void onReady() override;

private:
    std::unique_ptr<Discovery> m_discovery;
};

// `profile accept KEY|FAMILY --profile FILE`, `profile reject ...`:
// autodetect (with FILE's earlier verdicts), find the candidate or instance
// named, and write the verdict into FILE: an accepted one's rule (it is then
// shown), a rejected one's family glob (its keys are then ordinary).
class ProfileVerdictCommand : public Session
{
    Q_OBJECT
public:
    ProfileVerdictCommand(const RedisEndpoint &endpoint, bool accept, QByteArray target,
                          QString file, Profile profile, QObject *parent = nullptr);

protected:
    void onReady() override;

private:
    void decide();

    bool m_accept = true;
    QByteArray m_target;
    QString m_file;
    Profile m_profile;
    std::unique_ptr<Discovery> m_discovery;
};

} // namespace gatehouse::cli
