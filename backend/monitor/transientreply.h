// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisvalue.h>

namespace gatehouse {

// A refusal that passes by itself: a script running past its time (BUSY),
// a server loading its data (LOADING), a Cluster without a slot's master
// (TRYAGAIN, CLUSTERDOWN), a replica without its master (MASTERDOWN). Not
// a reading of the key, and not a reason to stop: what was read before
// stays, ageing, until the server answers again.
inline bool isTransientRefusal(const RedisValue &v)
{
    if (!v.isError())
        return false;
    const QByteArray code = v.errorCode();
    return code == "BUSY" || code == "LOADING" || code == "TRYAGAIN" || code == "CLUSTERDOWN"
           || code == "MASTERDOWN";
}

} // namespace gatehouse
