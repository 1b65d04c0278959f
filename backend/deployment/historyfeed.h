// SPDX-License-Identifier: MIT
#pragma once

#include <history/historystore.h>

#include <memory>

namespace gatehouse {

class Monitor;

// Every tick of monitor into store, written from the end of the first
// discovery on (its ticks list a growing part of the keyspace, each one a
// full comparison, and the first record of every object found would go
// through the minute's rows as well as the keyframe after it). Only what the
// monitor replaced since the last tick is compared (Monitor::takeReplaced):
// an idle object costs nothing, nor does its re-read under budgeted polling
// when it only confirms its last reading. Also the objects' ids as discovery finds them
// (HistoryStore::registerObjects) and the connection's timeline
// (ConnectionTimeline: `gatehouse-cli timeline` and the Timeline page read
// it back). Direct: the figures are computed on the monitor's thread and
// written on the store's, the caller's thread does neither. The store is
// held weakly: closing it never races a tick.
void feedHistoryFrom(Monitor *monitor, const std::shared_ptr<HistoryStore> &store);

} // namespace gatehouse
