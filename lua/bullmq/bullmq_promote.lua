-- bullmq_promote.lua: run a delayed BullMQ job (5 and 6) now, as BullMQ's own
-- promote does: ZREM it from "delayed", push it to wait (LPUSH;
-- "prioritized" when it has a priority; "paused" on a paused BullMQ 5 queue),
-- the "0" marker when the queue is not paused or maxed, HSET delay 0 and the
-- "waiting" event.
--
-- KEYS[1] meta HASH      KEYS[2] wait LIST       KEYS[3] active LIST
-- KEYS[4] paused LIST    KEYS[5] marker ZSET     KEYS[6] events STREAM
-- KEYS[7] prioritized ZSET  KEYS[8] priority counter STRING  KEYS[9] delayed ZSET
-- ARGV[1] the queue's key prefix; ARGV[2] a job id, or "" for the ARGV[3]
-- due soonest; ARGV[4] cut (bytes)
-- Reply   one job: 1 promoted, 0 not delayed, -2 no such job;
--         all: {promoted, promoted, id...}
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

local function promote(id)
    local jobKey = prefix .. id
    if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
        return -2
    end
    if redis.call('ZREM', KEYS[9], id) == 0 then
        return 0
    end
    redis.call('HSET', jobKey, 'delay', 0)
    toWait(jobKey, id, 'delayed')
    return 1
end

if ARGV[2] ~= '' then
    return promote(ARGV[2])
end
return batchReply(redis.call('ZRANGE', KEYS[9], 0, tonumber(ARGV[3]) - 1), promote,
    tonumber(ARGV[4]))
