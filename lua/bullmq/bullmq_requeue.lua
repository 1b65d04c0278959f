-- bullmq_requeue.lua: put BullMQ jobs that stalled (in "active" with no
-- ":lock": their worker died or stopped renewing it) back to wait, as
-- BullMQ's own moveStalledJobsToWait does (BullMQ 5 and 6): LREM from active,
-- HINCRBY "stc", push to the right end of wait (of "paused" on a paused
-- BullMQ 5 queue), the "0" marker when the queue is not paused or maxed, and
-- the "stalled" and "waiting" events. Unlike a worker's check it does not
-- fail a job past maxStalledCount: the operator asked for it to run again.
-- A job whose lock exists is never moved (its worker is running it).
--
-- KEYS[1] meta HASH      KEYS[2] wait LIST       KEYS[3] active LIST
-- KEYS[4] paused LIST    KEYS[5] marker ZSET     KEYS[6] events STREAM
-- ARGV[1] the queue's key prefix ("bull:emails:"): job and lock keys are
--         ARGV[1] .. id and ARGV[1] .. id .. ":lock", as BullMQ names them
-- ARGV[2] a job id, or "" for every stalled job among the oldest ARGV[3]
-- ARGV[3] batch size (the oldest active jobs examined)
-- ARGV[4] the cut of echoed ids (bytes)
-- Reply   one job: 1 requeued, 0 not in active, -1 locked (a worker holds it),
--         -2 no such job; all: {requeued, requeued, id...} (the CLI repeats
--         while a whole batch was requeued: locked jobs are examined again)
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(N) in active's length per job (LREM), N <= batch
--#include shared/key_types.part.lua
--#include bullmq/bullmq_queue.part.lua
local bad = queueTypesBad() or readQueue()
if bad then
    return bad
end
local prefix = ARGV[1]

local function requeue(id)
    local jobKey = prefix .. id
    local t = redis.call('TYPE', jobKey)['ok']
    if t ~= 'hash' then
        return -2
    end
    if redis.call('EXISTS', jobKey .. ':lock') == 1 then
        return -1
    end
    if redis.call('LREM', KEYS[3], 1, id) == 0 then
        return 0
    end
    redis.call('HINCRBY', jobKey, 'stc', 1)
    redis.call('RPUSH', target, id)
    if not blocked() then
        redis.call('ZADD', KEYS[5], 0, '0')
    end
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', maxEvents, '*', 'event', 'waiting', 'jobId', id,
        'prev', 'active')
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', maxEvents, '*', 'event', 'stalled', 'jobId', id)
    return 1
end

if ARGV[2] ~= '' then
    if redis.call('TYPE', prefix .. ARGV[2])['ok'] ~= 'hash' then
        return -2
    end
    return requeue(ARGV[2])
end

local batch = tonumber(ARGV[3])
local cut = tonumber(ARGV[4])
local ids = redis.call('LRANGE', KEYS[3], -batch, -1)
local done = {}
for i = #ids, 1, -1 do -- oldest first
    local id = ids[i]
    if string.sub(id, 1, 2) ~= '0:' and requeue(id) == 1 then
        done[#done + 1] = string.sub(id, 1, cut)
    end
end
local reply = {#done, #done}
for _, id in ipairs(done) do
    reply[#reply + 1] = id
end
return reply
