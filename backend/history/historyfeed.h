// SPDX-License-Identifier: MIT
#pragma once

#include <history/historystore.h>
#include <monitor/monitor.h>

#include <memory>

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

// Every tick of monitor into store (feedHistory), written from the end of the
// first discovery on: its ticks list a growing part of the keyspace, each one
// a full comparison, and the first record of every object found would go
// through the minute's rows as well as the keyframe after it. Direct: the
// figures are computed on the monitor's thread, written on the store's; the
// caller's thread does neither. The store is held weakly: closing it never
// races a tick.
inline void feedHistoryFrom(Monitor *monitor, const std::shared_ptr<HistoryStore> &store)
{
    auto discovered = std::make_shared<bool>(false);
    QObject::connect(
        monitor, &Monitor::discoveryFinished, store.get(),
        [discovered](bool) { *discovered = true; }, Qt::DirectConnection);
    QObject::connect(
        monitor, &Monitor::tickFinished, store.get(),
        [monitor, discovered, weak = std::weak_ptr<HistoryStore>(store)](const Snapshot &s) {
            if (const auto locked = weak.lock())
                feedHistory(*monitor, *locked, s, *discovered);
        },
        Qt::DirectConnection);
}

} // namespace gatehouse
