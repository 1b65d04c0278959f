// SPDX-License-Identifier: MIT
// The patterns Gatehouse knows: one registration line per pattern. A new
// pattern is a folder (backend/patterns/<pattern>/, lua/<pattern>/) plus a
// line here; nothing else in Gatehouse names it.
#include "patternregistry.h"

#include "asynq/asynqunit.h"
#include "bee-queue/beequeueunit.h"
#include "bull/bullunit.h"
#include "bullmq/bullmqunit.h"
#include "celery/celeryunit.h"
#include "dramatiq/dramatiqunit.h"
#include "fixed-window/fixedwindowunit.h"
#include "laravel-horizon/laravelhorizonunit.h"
#include "laravel-queue/laravelqueueunit.h"
#include "legacy-lock/legacylockunit.h"
#include "lock/lockunit.h"
#include "python-limits/pythonlimitsunit.h"
#include "redis-semaphore/redissemaphoreunit.h"
#include "redisson-delayed-queue/redissondelayedqueueunit.h"
#include "redisson-limiter/redissonlimiterunit.h"
#include "redisson-lock/redissonlockunit.h"
#include "redisson-semaphore/redissonsemaphoreunit.h"
#include "reliable-queue/reliablequeueunit.h"
#include "resource-consumer/resourceconsumerunit.h"
#include "resque/resqueunit.h"
#include "rq/rqunit.h"
#include "sidekiq/sidekiqunit.h"
#include "sliding-window/slidingwindowunit.h"
#include "sorted-set-semaphore/semaphoreunit.h"
#include "stream-group/streamgroupunit.h"
#include "symfony-delayed/symfonydelayedunit.h"
#include "token-family/tokenfamilyunit.h"
#include "token-hash/tokenhashunit.h"

namespace gatehouse {

void registerBuiltInPatterns(PatternRegistry &registry)
{
    registry.add(std::make_unique<SlidingWindowUnit>());
    registry.add(std::make_unique<ResourceConsumerUnit>());
    registry.add(std::make_unique<PythonLimitsUnit>());
    registry.add(std::make_unique<FixedWindowUnit>());
    registry.add(std::make_unique<RedissonLimiterUnit>());
    registry.add(std::make_unique<LockUnit>());
    registry.add(std::make_unique<LegacyLockUnit>());
    registry.add(std::make_unique<TokenFamilyUnit>());
    registry.add(std::make_unique<TokenHashUnit>());
    registry.add(std::make_unique<ReliableQueueUnit>());
    registry.add(std::make_unique<RedisSemaphoreUnit>());
    registry.add(std::make_unique<SemaphoreUnit>());
    registry.add(std::make_unique<BullMqUnit>());
    registry.add(std::make_unique<BullUnit>());
    registry.add(std::make_unique<RqUnit>());
    registry.add(std::make_unique<CeleryUnit>());
    registry.add(std::make_unique<LaravelQueueUnit>());
    registry.add(std::make_unique<LaravelHorizonUnit>());
    registry.add(std::make_unique<SymfonyDelayedUnit>());
    registry.add(std::make_unique<SidekiqUnit>());
    registry.add(std::make_unique<RedissonLockUnit>());
    registry.add(std::make_unique<RedissonSemaphoreUnit>());
    registry.add(std::make_unique<RedissonDelayedQueueUnit>());
    registry.add(std::make_unique<StreamGroupUnit>());
    registry.add(std::make_unique<AsynqUnit>());
    registry.add(std::make_unique<DramatiqUnit>());
    registry.add(std::make_unique<BeeQueueUnit>());
    registry.add(std::make_unique<ResqueUnit>());
}

} // namespace gatehouse
