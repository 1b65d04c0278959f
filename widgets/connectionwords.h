// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>

#include <QString>

namespace gatehouse {

// The status bar's and banner's sentences about the connection and the
// readings, from the snapshot's structured figures (never parsed back).
class ConnectionWords
{
public:
    // The connection's sentence without its " Next attempt in 87 ms." (that
    // count is shown live from ConnectionStatus::nextAttemptAtMs instead;
    // the sentence's own copy would stand still).
    static QString withoutAttempt(const QString &message);
    // "Reconnecting… next attempt in 3.2 s": leftMs to the next attempt.
    static QString reconnecting(qint64 leftMs);
    // The banner's title while not connected: "Connection lost:
    // reconnecting: showing data from 12:04:33." (lastMs: local epoch ms of
    // the last reading; <= 0: none).
    static QString offline(ConnectionState state, qint64 lastMs);
    // The same, with the last reading of server (none before its first).
    static QString offline(ConnectionState state, const ServerStatus &server);
    // "Scanning 12,000 of ~90,000 keys" (total is DBSIZE at the start: an
    // estimate, keys come and go while SCAN runs).
    static QString scanning(qint64 scanned, qint64 total);
    // The events label: live, polling, paused, or not live while offline.
    static QString events(const ServerStatus &server, bool offline);
    static QString eventsToolTip(const ServerStatus &server);
};

} // namespace gatehouse
