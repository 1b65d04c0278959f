-- bull_clean.lua: remove the finished Bull 3/4 jobs of one set older than a
-- grace period as Bull's own clean does (lib/commands/cleanJobsInSet-3.lua,
-- bull 4.16.5; Queue#clean(grace, type, limit)): ZRANGEBYSCORE the set up to
-- the cut-off, LIMIT the batch; a job whose ":lock" exists is left; a job is
-- removed when the first of its finishedOn, processedOn, timestamp is before
-- the cut-off (or it has none): ZREM from the set and priority, DEL the job
-- hash and ":logs", and out of the rate limiter's group set. The cut-off is
-- the server's time less ARGV[2] (Bull: the client's Date.now() - grace).
--
-- KEYS[1] the set cleaned ZSET (completed or failed)  KEYS[2] priority ZSET
-- KEYS[3] limiter:index HASH
-- ARGV[1] the queue's key prefix; ARGV[2] grace (ms); ARGV[3] batch;
-- ARGV[4] "count" to only count what would be removed (by score), or ""
-- Reply   {removed, removed}, or {count} when counting
--         errors "GHTYPE <i> <type> <expected>" (nothing written)
-- Cost    O(log N + batch)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'zset') or wrongType(2, 'zset') or wrongType(3, 'hash')
if bad then
    return bad
end
local prefix = ARGV[1]
local now = redis.call('TIME')
local maxTimestamp = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
    - tonumber(ARGV[2])
if ARGV[4] == 'count' then
    return {redis.call('ZCOUNT', KEYS[1], 0, '(' .. maxTimestamp)}
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], 0, maxTimestamp, 'LIMIT', 0, tonumber(ARGV[3]))
local removed = 0
for _, id in ipairs(ids) do
    local jobKey = prefix .. id
    if redis.call('EXISTS', jobKey .. ':lock') == 0 then
        local jobTS
        for _, ts in ipairs(redis.call('HMGET', jobKey, 'finishedOn', 'processedOn', 'timestamp')) do
            if ts then
                jobTS = tonumber(ts)
                break
            end
        end
        if not jobTS or jobTS < maxTimestamp then
            local limitedSetKey = redis.call('HGET', KEYS[3], id)
            redis.call('ZREM', KEYS[1], id)
            redis.call('ZREM', KEYS[2], id)
            redis.call('DEL', jobKey, jobKey .. ':logs')
            if limitedSetKey and redis.call('TYPE', limitedSetKey)['ok'] == 'set' then
                redis.call('SREM', limitedSetKey, id)
            end
            redis.call('HDEL', KEYS[3], id)
            removed = removed + 1
        end
    end
end
return {removed, removed}
