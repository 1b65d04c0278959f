// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <monitor/discovery.h>
#include <monitor/monitor.h>

#include <QElapsedTimer>
#include <QTimer>

#include <memory>

namespace gatehouse::cli {

// `snapshot [--json]`: discover, read everything once, print. (`watch` is
// WatchCommand.)
class SnapshotCommand : public Session
{
    Q_OBJECT
public:
    SnapshotCommand(const RedisEndpoint &endpoint, Monitor::Options options, bool json,
                    QObject *parent = nullptr);
    // snapshot --json: at most limit elements per section (-1: all).
    void setLimit(qsizetype limit) { m_limit = limit; }

protected:
    void onReady() override;

private:
    void printTick(const Snapshot &snapshot);
    void printText(const Snapshot &snapshot);
    // A server that stops answering (stopped, DEBUG SLEEP, a stalled
    // network: the socket stays open) ends the run with a sentence, not a hang.
    void checkSilence();

    Monitor::Options m_options;
    QTimer m_silenceCheck;        // every second
    QElapsedTimer m_progress;     // since the last scan progress
    QElapsedTimer m_progressLine; // since the last progress line on stderr
    QElapsedTimer m_refused;      // since the scan was first refused for now (BUSY, LOADING)
    bool m_progressShown = false;
    qsizetype m_limit = -1;
    std::unique_ptr<Monitor> m_monitor;
    bool m_json = false;
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
