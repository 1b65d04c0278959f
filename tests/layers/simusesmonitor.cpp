// SPDX-License-Identifier: MIT
// A file of the simulator's layer that uses the monitor, a layer the simulator
// does not link (tests/layers/CMakeLists.txt builds it with and without).
#include <monitor/monitor.h>
#include <sim/simulator.h>

namespace gatehouse {

// The monitor a simulator would watch its own traffic with.
QObject *simulatorMonitor(RedisClient *client)
{
    return new Monitor(client, Monitor::Options());
}

} // namespace gatehouse
