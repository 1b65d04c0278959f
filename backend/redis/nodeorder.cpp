// SPDX-License-Identifier: MIT
#include "nodeorder.h"

namespace gatehouse {

QList<int> nodeOrder(const Topology &topology)
{
    QList<int> order;
    for (int m : topology.masters()) {
        order << m;
        for (int i = 0; i < topology.nodes.size(); ++i) {
            if (topology.nodes.at(i).role != QLatin1String("master")
                && topology.nodes.at(i).masterId == topology.nodes.at(m).id)
                order << i;
        }
    }
    for (int i = 0; i < topology.nodes.size(); ++i) {
        if (!order.contains(i))
            order << i;
    }
    return order;
}

} // namespace gatehouse
