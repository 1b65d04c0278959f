// SPDX-License-Identifier: MIT
#pragma once

#include "historychanges.h"
#include "historycodec.h"

#include <map>
#include <utility>
#include <vector>

namespace gatehouse::Internal {

// One object's records with their times (server ms), in time order.
using TimedRecords = std::vector<std::pair<qint64, ChangeRecord>>;

// An hour's one-minute buckets of every object (the `buckets` table), from
// the hour's ticks (server ms, in time order; a full tick starts every
// object's state again) and each object's records of the hour (its full
// ticks' and its minutes' records, in time order). A minute in which an
// object was not present has no bucket; a figure's NaN samples are left
// out of its min, max and mean.
std::map<quint32, HourBuckets> hourBuckets(const MinuteTicks &hourTicks,
                                           const std::map<quint32, TimedRecords> &records);

} // namespace gatehouse::Internal
