// SPDX-License-Identifier: MIT
// Resque (Resque 2 and node-resque): a namespace is one deployment.
#include "kit/shapecases.h"
#include "resqueshapes.h"
#include "rq/rqshapes.h"
#include "sidekiq/sidekiqshapes.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = resqueShapes("resque:", true, now);

    // Never a Sidekiq one, beside Sidekiq's and RQ's own keys (which are not
    // taken for Resque); its workers' strings, stats and scheduler lock are
    // not locks, counters or tokens. Resque's queues and queue lists alone
    // (no failed list, worker, heartbeat or delayed schedule) are not
    // called Resque.
    p.cases << objectsCase(
        "deployments are one object each",
        resqueShapes("resque:", true, now) + resqueShapes("app:jobs:", false, now)
            + sidekiqShapes("", now) + sidekiqShapes("myapp:", now) + rqQueueShapes("emails", now)
            + QList<KeyShape>{sizedShape("bare:queues", "set", 1), listShape("bare:queue:q")},
        {"resque app:jobs:queues", "resque resque:queues", "rq rq:queue:emails",
         "sidekiq bare:queues", "sidekiq myapp:queues", "sidekiq queues"});
    return p;
}

const ShapeRegistrar s_registrar("resque", &shapes);

} // namespace
} // namespace gatehouse::test
