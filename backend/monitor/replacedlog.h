// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QtGlobal>

namespace gatehouse {

// Which of the monitor's tracked objects had their published state replaced
// (read again, marked stale or gone) between two snapshots, by index into the
// snapshot's objects (Monitor::takeReplaced). Bounded whether or not anyone
// takes it: once more were replaced than there are objects, or objects came,
// went or moved, it says "all" instead of listing them.
class ReplacedLog
{
public:
    struct Taken
    {
        quint64 monitor = 0;       // tells monitors apart (a reconnect makes a new one)
        quint64 sinceSequence = 0; // the snapshot of the last take; 0 before the first
        quint64 sequence = 0;      // the latest snapshot
        bool all = true;           // compare every object
        QList<int> indices;        // perhaps repeated
    };

    // The state of object index, one of objects, was replaced.
    void replaced(int index, qsizetype objects);
    // Objects came, went or moved: every index may name another object.
    void moved() { m_pendingAll = true; }
    // A snapshot of objects objects was made: what was replaced since the
    // last one joins what the snapshots since the last take replaced.
    void made(qsizetype objects);
    // What the snapshots made since the last take replaced, up to the one of
    // sequence (the latest).
    Taken take(quint64 monitor, quint64 sequence);
    // Whether anyone took the list since the first snapshot (a monitor
    // nobody takes it from need not judge which re-reads to leave out).
    bool taken() const { return m_since != 0; }

private:
    QList<int> m_pending; // since the last snapshot was made
    QList<int> m_made;    // in the snapshots made since the last take
    bool m_pendingAll = true;
    bool m_madeAll = true;
    quint64 m_since = 0;
};

} // namespace gatehouse
