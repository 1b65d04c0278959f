// SPDX-License-Identifier: MIT
#pragma once

#include "topology.h"

#include <QList>

namespace gatehouse {

// The indices of topology.nodes as an operator reads them: the masters in
// slot order, each followed by its replicas, then any node left (a replica
// whose master is not known).
QList<int> nodeOrder(const Topology &topology);

} // namespace gatehouse
