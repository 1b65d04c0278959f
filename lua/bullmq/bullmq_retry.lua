-- bullmq_retry.lua: retry a finished BullMQ job (5 and 6) as BullMQ's own
-- reprocessJob does (Job.retry, the Queue's retryJobs): ZREM it from "failed"
-- (or "completed"), HDEL finishedOn, processedOn and failedReason (or
-- returnvalue), push it to wait (LPUSH; "prioritized" when it has a priority;
-- "paused" on a paused BullMQ 5 queue), the "0" marker when the queue is not
-- paused or maxed, and the "waiting" event. Attempts are kept, as by default.
-- A job with a parent is refused: its dependencies are the application's.
--
-- KEYS[1] meta HASH      KEYS[2] wait LIST       KEYS[3] active LIST
-- KEYS[4] paused LIST    KEYS[5] marker ZSET     KEYS[6] events STREAM
-- KEYS[7] prioritized ZSET  KEYS[8] priority counter ("pc") STRING
-- KEYS[9] the finished set ZSET ("failed" or "completed")
-- ARGV[1] the queue's key prefix; ARGV[2] a job id, or "" for the oldest
-- ARGV[3] of KEYS[9]; ARGV[4] "failed" or "completed"; ARGV[5] cut (bytes)
-- Reply   one job: 1 retried, 0 not in that set, -2 no such job, -4 has a
--         parent; all: {retried, retried, id...}
-- Cost    O(log N) per job
--#include shared/key_types.part.lua
--#include shared/job_batch.part.lua
--#include bullmq/bullmq_queue.part.lua
--#include bullmq/bullmq_wait.part.lua
local bad = queueTypesBad() or wrongType(7, 'zset') or wrongType(8, 'string')
    or wrongType(9, 'zset') or readQueue()
if bad then
    return bad
end
local prefix = ARGV[1]
local state = ARGV[4]

local function retry(id)
    local jobKey = prefix .. id
    if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
        return -2
    end
    if redis.call('HEXISTS', jobKey, 'parentKey') == 1 then
        return -4
    end
    if redis.call('ZREM', KEYS[9], id) == 0 then
        return 0
    end
    redis.call('HDEL', jobKey, 'finishedOn', 'processedOn',
        state == 'failed' and 'failedReason' or 'returnvalue')
    toWait(jobKey, id, state)
    return 1
end

if ARGV[2] ~= '' then
    return retry(ARGV[2])
end
return batchReply(redis.call('ZRANGE', KEYS[9], 0, tonumber(ARGV[3]) - 1), retry,
    tonumber(ARGV[5]))
