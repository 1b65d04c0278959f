// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace gatehouse::cli {

// `history KEY [--since T] [--until T] [--figure NAME] [--csv|--json]`:
// what the history file of the connection holds of one object. Reads the
// file only (no Redis connection).
struct HistoryRequest
{
    QString path;       // the connection's history file (HistoryStore::fileFor)
    QString connection; // the URL without secrets, for sentences
    QByteArray key;
    qint64 sinceMs = 0;
    qint64 untilMs = 0;
    QString figure; // empty: every figure
    bool csv = false;
    bool json = false;
};

// T: an ISO 8601 time ("2026-11-23T03:10:00Z", local time without a zone),
// "now", or a duration back from nowMs ("2h", "30m", "90s", "7d", "1h30m").
// nullopt and *error (a sentence) when T is neither.
std::optional<qint64> parseHistoryTime(const QString &text, qint64 nowMs, QString *error);

// Prints the history; returns the exit code (ExitOk, ExitNothingDone when
// there is none for the key, ExitFailure when the file cannot be read).
int runHistory(const HistoryRequest &request);

} // namespace gatehouse::cli
