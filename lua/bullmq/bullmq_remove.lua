-- bullmq_remove.lua: remove BullMQ jobs (5 and 6) as BullMQ's own removeJob
-- does for a job without a parent or children: refused while its ":lock"
-- exists (a worker is running it); otherwise the id leaves every state list
-- and set, the job hash and its side keys (":logs", ":dependencies",
-- ":processed", ":failed", ":unsuccessful") are deleted, and the "removed"
-- event names the state it left. With ARGV[2] = "" it removes the oldest
-- ARGV[4] members of KEYS[11] finished more than ARGV[3] ms ago: clean.
--
-- KEYS[1] meta HASH        KEYS[2] wait LIST        KEYS[3] active LIST
-- KEYS[4] paused LIST      KEYS[5] prioritized ZSET KEYS[6] delayed ZSET
-- KEYS[7] completed ZSET   KEYS[8] failed ZSET      KEYS[9] waiting-children ZSET
-- KEYS[10] events STREAM   KEYS[11] the set cleaned (completed or failed)
-- ARGV[1] the queue's key prefix; ARGV[2] a job id, or "" to clean
-- ARGV[3] clean: finished more than this many ms ago (server time); ARGV[4] clean: batch;
-- ARGV[5] "count" to only count what clean would remove
-- Reply   one job: 1 removed, -1 locked, -2 no such job, -4 has a parent or
--         children; clean: {removed, removed} or {count} when counting
-- Cost    O(N) in the lists' lengths per job (LREM)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'hash') or wrongType(2, 'list') or wrongType(3, 'list')
    or wrongType(4, 'list') or wrongType(5, 'zset') or wrongType(6, 'zset')
    or wrongType(7, 'zset') or wrongType(8, 'zset') or wrongType(9, 'zset')
    or wrongType(10, 'stream') or wrongType(11, 'zset')
if bad then
    return bad
end
local meta = redis.call('HMGET', KEYS[1], 'version', 'opts.maxLenEvents')
local version = meta[1]
if redis.call('EXISTS', KEYS[1]) == 0 then
    return redis.error_reply('GHSHAPE 1 no BullMQ meta hash: not a BullMQ 5 or 6 queue')
end
if version and not (string.match(version, '^bullmq:5%.') or string.match(version, '^bullmq:6%.')) then
    return redis.error_reply('GHSHAPE 1 its layout is ' .. version .. ', not BullMQ 5 or 6')
end
local prefix = ARGV[1]
local maxEvents = tonumber(meta[2]) or 10000
local states = {
    {2, 'wait', 'list'}, {3, 'active', 'list'}, {4, 'paused', 'list'},
    {5, 'prioritized', 'zset'}, {6, 'delayed', 'zset'}, {7, 'completed', 'zset'},
    {8, 'failed', 'zset'}, {9, 'waiting-children', 'zset'},
}

local function remove(id)
    local jobKey = prefix .. id
    if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
        return -2
    end
    if redis.call('EXISTS', jobKey .. ':lock') == 1 then
        return -1
    end
    if redis.call('HEXISTS', jobKey, 'parentKey') == 1
        or redis.call('EXISTS', jobKey .. ':dependencies') == 1 then
        return -4
    end
    local prev = 'unknown'
    for _, s in ipairs(states) do
        local n
        if s[3] == 'list' then
            n = redis.call('LREM', KEYS[s[1]], 0, id)
        else
            n = redis.call('ZREM', KEYS[s[1]], id)
        end
        if n > 0 then
            prev = s[2]
        end
    end
    redis.call('DEL', jobKey, jobKey .. ':logs', jobKey .. ':processed', jobKey .. ':failed',
        jobKey .. ':unsuccessful')
    redis.call('XADD', KEYS[10], 'MAXLEN', '~', maxEvents, '*', 'event', 'removed', 'jobId', id,
        'prev', prev)
    return 1
end

if ARGV[2] ~= '' then
    return remove(ARGV[2])
end
local now = redis.call('TIME')
local before = '(' .. (tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - tonumber(ARGV[3]))
if ARGV[5] == 'count' then
    return {redis.call('ZCOUNT', KEYS[11], '-inf', before)}
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[11], '-inf', before, 'LIMIT', 0, tonumber(ARGV[4]))
local removed = 0
for _, id in ipairs(ids) do
    if remove(id) == 1 then
        removed = removed + 1
    end
end
return {removed, removed}
