// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

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

protected:
    void onReady() override;
    void onConnectionLost(const QString &why) override;
    void onReconnected(qint64 gapMs) override;

private:
    void printTick(const Snapshot &snapshot);
    void printText(const Snapshot &snapshot);
    void printWatchLine(const Snapshot &snapshot);
    // snapshot: a server that stops answering (stopped, DEBUG SLEEP, a stalled
    // network: the socket stays open) ends the run with a sentence, not a hang.
    void checkSilence();

    Monitor::Options m_options;
    QTimer m_silenceCheck;    // snapshot only, every second
    QElapsedTimer m_progress; // since the last scan progress
    std::unique_ptr<Monitor> m_monitor;
    bool m_json = false;
    bool m_watch = false;
    int m_count = 0; // watch: ticks to print, 0 = until interrupted
    int m_printed = 0;
    int m_missed = 0; // ticks printed while the connection was lost
    bool m_lost = false;
    bool m_discovered = false;
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

} // namespace gatehouse::cli
