// SPDX-License-Identifier: MIT
#pragma once

#include "monitorbench.h"

namespace gatehouse::bench {

// Figure 4: the console showing the tracked objects of figure 3 and
// refreshing at 1 Hz; a probe timer on the GUI thread measures how late the
// event loop runs it (stalls), for `seconds`.
// events: keyspace events on (the adaptive refresh) or off (every object
// read every tick, every row's state new every second).
QList<Figure> runGuiBench(const RedisEndpoint &endpoint, const MonitorBenchSizes &sizes,
                          int seconds, bool events);

} // namespace gatehouse::bench
