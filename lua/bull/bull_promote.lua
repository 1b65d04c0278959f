-- bull_promote.lua: run delayed Bull 3/4 jobs now as Bull's own promote does
-- (lib/commands/promote-5.lua, bull 4.16.5; Job#promote): ZREM from delayed,
-- then LPUSH to wait ("paused" while "meta-paused" exists), or for a job with
-- a priority the place addJobWithPriority gives it (includes/
-- addJobWithPriority.lua: ZADD priority, LINSERT before the job at its rank),
-- and HSET "delay" 0. Bull's "waiting@<token>" event belongs to one Queue
-- instance and is not published; workers blocked on wait take the job anyway.
--
-- KEYS[1] delayed ZSET  KEYS[2] wait LIST  KEYS[3] paused LIST
-- KEYS[4] meta-paused STRING  KEYS[5] priority ZSET
-- ARGV[1] the queue's key prefix ("bull:emails:"); ARGV[2] a job id, or ""
-- for the ARGV[3] delayed jobs due soonest; ARGV[4] cut (bytes)
-- Reply   one job: 1 promoted, 0 not delayed, -2 no such job;
--         all: {promoted, promoted, id...}
--         errors "GHTYPE <i> <type> <expected>" (nothing written)
-- Cost    O(N) in the target list's length per prioritised job (LINSERT)
--#include shared/key_types.part.lua
--#include shared/job_batch.part.lua
local bad = wrongType(1, 'zset') or wrongType(2, 'list') or wrongType(3, 'list')
    or wrongType(4, 'string') or wrongType(5, 'zset')
if bad then
    return bad
end
local prefix = ARGV[1]
local target = KEYS[2]
if redis.call('EXISTS', KEYS[4]) == 1 then
    target = KEYS[3]
end

-- includes/addJobWithPriority.lua, as Bull has it.
local function addJobWithPriority(priority, id)
    redis.call('ZADD', KEYS[5], priority, id)
    local count = redis.call('ZCOUNT', KEYS[5], 0, priority)
    local len = redis.call('LLEN', target)
    local at = redis.call('LINDEX', target, len - (count - 1))
    if at then
        redis.call('LINSERT', target, 'BEFORE', at, id)
    else
        redis.call('RPUSH', target, id)
    end
end

local function promote(id)
    local jobKey = prefix .. id
    if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
        return -2
    end
    if redis.call('ZREM', KEYS[1], id) == 0 then
        return 0
    end
    local priority = tonumber(redis.call('HGET', jobKey, 'priority')) or 0
    if priority == 0 then
        redis.call('LPUSH', target, id)
    else
        addJobWithPriority(priority, id)
    end
    redis.call('HSET', jobKey, 'delay', 0)
    return 1
end

if ARGV[2] ~= '' then
    return promote(ARGV[2])
end
return batchReply(redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1), promote,
    tonumber(ARGV[4]))
