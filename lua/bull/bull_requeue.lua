-- bull_requeue.lua: put Bull 3/4 jobs that stalled (in "active" with no
-- ":lock") back to wait as Bull's own moveStalledJobsToWait does
-- (lib/commands/moveStalledJobsToWait-7.lua, bull 4.16): LREM from active,
-- HINCRBY "stalledCounter", RPUSH to wait ("paused" while "meta-paused"
-- exists), PUBLISH on "<stalled key>@". Unlike a worker's check it does not
-- fail a job past maxStalledCount: the operator asked for it to run again.
-- A job whose lock exists is never moved.
--
-- KEYS[1] wait LIST  KEYS[2] active LIST  KEYS[3] paused LIST
-- KEYS[4] meta-paused STRING  KEYS[5] stalled SET (its name is the channel's)
-- ARGV[1] the queue's key prefix ("bull:emails:"); ARGV[2] a job id, or ""
-- for every stalled job among the oldest ARGV[3] active; ARGV[4] cut (bytes)
-- Reply   one job: 1 requeued, 0 not in active, -1 locked, -2 no such job;
--         all: {requeued, requeued, id...}
--         errors "GHTYPE <i> <type> <expected>" (nothing written)
-- Cost    O(N) in active's length per job (LREM), N <= batch
--#include shared/key_types.part.lua
--#include shared/job_batch.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'list') or wrongType(3, 'list')
    or wrongType(4, 'string') or wrongType(5, 'set')
if bad then
    return bad
end
local prefix = ARGV[1]
local target = KEYS[1]
if redis.call('EXISTS', KEYS[4]) == 1 then
    target = KEYS[3]
end

local function requeue(id)
    local jobKey = prefix .. id
    if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
        return -2
    end
    if redis.call('EXISTS', jobKey .. ':lock') == 1 then
        return -1
    end
    if redis.call('LREM', KEYS[2], 1, id) == 0 then
        return 0
    end
    redis.call('HINCRBY', jobKey, 'stalledCounter', 1)
    redis.call('RPUSH', target, id)
    redis.call('PUBLISH', KEYS[5] .. '@', id)
    return 1
end

if ARGV[2] ~= '' then
    return requeue(ARGV[2])
end
local ids = redis.call('LRANGE', KEYS[2], -tonumber(ARGV[3]), -1)
local oldestFirst = {}
for i = #ids, 1, -1 do
    oldestFirst[#oldestFirst + 1] = ids[i]
end
return batchReply(oldestFirst, requeue, tonumber(ARGV[4]))
