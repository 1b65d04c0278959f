-- bull_retry.lua: retry a finished Bull 3/4 job as Bull's own reprocessJob
-- does (lib/commands/reprocessJob-6.lua, bull 4.16; Job#retry): refused while
-- its lock exists; HDEL finishedOn, processedOn and failedReason, HSET
-- retriedOn (server time), ZREM from the finished set, LPUSH to wait
-- ("paused" while "meta-paused" exists). Bull's local "waiting@<token>" event
-- belongs to one Queue instance and is not published.
--
-- KEYS[1] wait LIST  KEYS[2] paused LIST  KEYS[3] meta-paused STRING
-- KEYS[4] the finished set ZSET ("failed" or "completed")
-- ARGV[1] the queue's key prefix; ARGV[2] a job id, or "" for the oldest
-- ARGV[3] of KEYS[4]; ARGV[4] cut (bytes)
-- Reply   one job: 1 retried, 0 not in that set, -1 locked, -2 no such job;
--         all: {retried, retried, id...}
--         errors "GHTYPE <i> <type> <expected>" (nothing written)
-- Cost    O(log N) per job
--#include shared/key_types.part.lua
--#include shared/job_batch.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'list') or wrongType(3, 'string')
    or wrongType(4, 'zset')
if bad then
    return bad
end
local prefix = ARGV[1]
local target = KEYS[1]
if redis.call('EXISTS', KEYS[3]) == 1 then
    target = KEYS[2]
end
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)

local function retry(id)
    local jobKey = prefix .. id
    if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
        return -2
    end
    if redis.call('EXISTS', jobKey .. ':lock') == 1 then
        return -1
    end
    if redis.call('ZREM', KEYS[4], id) == 0 then
        return 0
    end
    redis.call('HDEL', jobKey, 'finishedOn', 'processedOn', 'failedReason')
    redis.call('HSET', jobKey, 'retriedOn', nowMs)
    redis.call('LPUSH', target, id)
    return 1
end

if ARGV[2] ~= '' then
    return retry(ARGV[2])
end
return batchReply(redis.call('ZRANGE', KEYS[4], 0, tonumber(ARGV[3]) - 1), retry,
    tonumber(ARGV[4]))
