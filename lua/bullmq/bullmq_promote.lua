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
local function wrongType(i, want)
    local t = redis.call('TYPE', KEYS[i])['ok']
    if t ~= 'none' and t ~= want then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. want)
    end
end
local bad = wrongType(1, 'hash') or wrongType(2, 'list') or wrongType(3, 'list')
    or wrongType(4, 'list') or wrongType(5, 'zset') or wrongType(6, 'stream')
    or wrongType(7, 'zset') or wrongType(8, 'string') or wrongType(9, 'zset')
if bad then
    return bad
end
local meta = redis.call('HMGET', KEYS[1], 'paused', 'concurrency', 'version', 'opts.maxLenEvents')
local version = meta[3]
if redis.call('EXISTS', KEYS[1]) == 0 then
    return redis.error_reply('GHSHAPE 1 no BullMQ meta hash: not a BullMQ 5 or 6 queue')
end
if version and not (string.match(version, '^bullmq:5%.') or string.match(version, '^bullmq:6%.')) then
    return redis.error_reply('GHSHAPE 1 its layout is ' .. version .. ', not BullMQ 5 or 6')
end
local prefix = ARGV[1]
local target = KEYS[2]
if meta[1] and version and string.match(version, '^bullmq:5%.') then
    target = KEYS[4]
end
local maxEvents = tonumber(meta[4]) or 10000
local blocked = meta[1] ~= false
if not blocked and meta[2] then
    blocked = redis.call('LLEN', KEYS[3]) >= tonumber(meta[2])
end

local function promote(id)
    local jobKey = prefix .. id
    if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
        return -2
    end
    if redis.call('ZREM', KEYS[9], id) == 0 then
        return 0
    end
    local priority = tonumber(redis.call('HGET', jobKey, 'priority')) or 0
    if priority == 0 then
        redis.call('LPUSH', target, id)
    else
        local counter = redis.call('INCR', KEYS[8])
        redis.call('ZADD', KEYS[7], priority * 0x100000000 + counter % 0x100000000, id)
    end
    if not blocked then
        redis.call('ZADD', KEYS[5], 0, '0')
    end
    redis.call('HSET', jobKey, 'delay', 0)
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', maxEvents, '*', 'event', 'waiting', 'jobId', id,
        'prev', 'delayed')
    return 1
end

if ARGV[2] ~= '' then
    return promote(ARGV[2])
end
local ids = redis.call('ZRANGE', KEYS[9], 0, tonumber(ARGV[3]) - 1)
local cut = tonumber(ARGV[4])
local reply = {0, 0}
for _, id in ipairs(ids) do
    if promote(id) == 1 then
        reply[#reply + 1] = string.sub(id, 1, cut)
    end
end
reply[1] = #reply - 2
reply[2] = #reply - 2
return reply
