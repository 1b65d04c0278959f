-- bullmq/bullmq_wait.part.lua: toWait(jobKey, id, prev) puts a job where it
-- waits as BullMQ's own addJobInTargetList and addJobWithPriority do: LPUSH to
-- target, or, with a priority, ZADD to "prioritized" scored by priority and
-- the queue's counter; the "0" marker unless blocked(); the "waiting" event
-- with the state it left (prev). After bullmq/bullmq_queue.part.lua.
-- KEYS[7] prioritized ZSET  KEYS[8] priority counter ("pc") STRING
local function toWait(jobKey, id, prev)
    local priority = tonumber(redis.call('HGET', jobKey, 'priority')) or 0
    if priority == 0 then
        redis.call('LPUSH', target, id)
    else
        local counter = redis.call('INCR', KEYS[8])
        redis.call('ZADD', KEYS[7], priority * 0x100000000 + counter % 0x100000000, id)
    end
    if not blocked() then
        redis.call('ZADD', KEYS[5], 0, '0')
    end
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', maxEvents, '*', 'event', 'waiting', 'jobId', id,
        'prev', prev)
end
