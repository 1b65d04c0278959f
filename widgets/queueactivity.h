// SPDX-License-Identifier: MIT
#pragma once

#include <history/historystore.h>
#include <monitor/snapshot.h>
#include <patterns/presentation.h>

#include <QHash>
#include <QMutex>
#include <QSet>

#include <functional>
#include <memory>
#include <optional>

namespace gatehouse {

// The Overview's chart of every queue together: jobs stuck and in flight
// summed over the queues of a snapshot, and the jobs they finished (the
// rises of each queue's own done counts, the figures its throughput chart
// charts per minute, summed), as a history ChartPanel draws like an
// object's: live from the snapshots recorded, older ranges summed from the
// history file's per-queue figures.
class QueueActivity
{
public:
    // The key its history is published under.
    static const QByteArray Key;

    QueueActivity();

    static QList<Chart> charts();

    // One snapshot's figures: what sum() finds, add() keeps.
    struct Sums
    {
        qint64 atMs = 0; // the snapshot's server time
        double stuck = 0;
        double inFlight = 0;
        QHash<QByteArray, double> done; // each queue's done count (its done figures summed)
        // Jobs per second finished by the queues that keep no count (a
        // reliable queue's, from its LREM events): counted by the time
        // between two sums.
        double donePerS = 0;
        QList<QPair<QByteArray, PatternKind>> queues;
    };
    // Reads every object of the snapshot once: any thread (a million
    // objects take a while, so the Overview sums off the GUI thread).
    static Sums sum(const Snapshot &snapshot);
    // Adds the sums to the live history, which keeps the last 15 minutes.
    // True when they name a queue no sums named before: what reader() sums
    // from the history file changed (the chart reads it again).
    bool add(const Sums &sums);
    // sum() and add() at once (tests; a small snapshot).
    void record(const Snapshot &snapshot) { add(sum(snapshot)); }
    qint64 lastAtMs() const { return m_lastAtMs; }
    ObjectHistoryPtr history() const { return m_published; }
    // Reads [fromMs, toMs] of the queues last recorded from the history file
    // and sums them (thread-safe: ChartPanel::HistoryReader).
    using Reader = std::function<std::optional<HistoryRange>(
        const QString &path, const QByteArray &key, qint64 fromMs, qint64 toMs)>;
    Reader reader() const;

private:
    struct Shared
    {
        QMutex mutex;
        QList<QPair<QByteArray, PatternKind>> queues; // guarded by mutex
    };
    std::shared_ptr<Shared> m_shared;
    QHash<QByteArray, double> m_lastDone; // each queue's done count at the last record
    QSet<QByteArray> m_known;             // every queue any sums named
    double m_done = 0;                    // finished since the first record
    qint64 m_lastAtMs = -1;
    ObjectHistoryPtr m_published;
};

} // namespace gatehouse
