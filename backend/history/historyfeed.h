// SPDX-License-Identifier: MIT
#pragma once

#include <history/historystore.h>
#include <monitor/monitor.h>

namespace gatehouse {

// A tick's snapshot into the history file (the console, watch --history, serve
// --history), with what the monitor replaced since the last one: the store
// compares only those objects (HistoryStore::Replaced). Call it at every
// tickFinished, write or not (write false: discovery is still running), so
// that each take follows on from the last.
inline void feedHistory(Monitor &monitor, HistoryStore &history, const Snapshot &snapshot,
                        bool write)
{
    Monitor::Replaced taken = monitor.takeReplaced();
    if (!write)
        return;
    HistoryStore::Replaced replaced;
    replaced.source = taken.monitor;
    replaced.sinceSequence = taken.sinceSequence;
    replaced.sequence = taken.sequence;
    replaced.all = taken.all;
    replaced.indices = std::move(taken.indices);
    history.append(snapshot, replaced);
}

} // namespace gatehouse
