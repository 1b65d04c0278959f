// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>

#include <functional>

class QObject;
class QTimer;

namespace gatehouse {

// When the monitor's snapshots go out (DESIGN.md: at most ten a second). A
// change goes out at once after a quiet period, otherwise within
// changeIntervalMs of the last emission that carried one; a routine state (the
// server's figures, a tick's readings with keyspace events live) goes with the
// next emission, or alone once routineIntervalMs passed without any. Only
// emissions carrying a change count against changeIntervalMs: a routine one
// just before never delays a write's. Each emission is made when it fires
// (send), so it carries the latest state. On the context's thread.
class SnapshotPacer
{
public:
    // The timer is a child of context: it moves with it to another thread.
    SnapshotPacer(QObject *context, int changeIntervalMs, int routineIntervalMs,
                  std::function<void()> send);
    SnapshotPacer(const SnapshotPacer &) = delete;
    SnapshotPacer &operator=(const SnapshotPacer &) = delete;

    // The state changed.
    void changed();
    // A routine state is there to publish.
    void routine();
    // An emission is due, at the latest when its timer fires.
    bool pending() const { return m_pending; }

private:
    void fire();

    const int m_changeIntervalMs;
    const int m_routineIntervalMs;
    std::function<void()> m_send;
    QTimer *m_timer;                // single shot: the next emission
    bool m_pending = false;         // an emission is due
    bool m_carriesChange = false;   // ... and it carries a change
    QElapsedTimer m_lastEmit;       // since the last emission
    QElapsedTimer m_lastChangeEmit; // since the last one carrying a change
};

} // namespace gatehouse
