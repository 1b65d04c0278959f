-- bullmq_pause.lua: pause or resume a BullMQ queue (5 and 6) as BullMQ's own
-- pause does: HSET (HDEL) "paused" in meta, the marker deleted on pause and
-- set again on resume when jobs wait, and the "paused"/"resumed" event.
-- BullMQ 5 also moves the waiting jobs between wait and paused; where
-- BullMQ renames, this appends when the destination is not empty, so no job
-- is ever overwritten.
--
-- KEYS[1] meta HASH  KEYS[2] wait LIST  KEYS[3] paused LIST
-- KEYS[4] prioritized ZSET  KEYS[5] delayed ZSET  KEYS[6] marker ZSET
-- KEYS[7] events STREAM
-- ARGV[1] "paused" or "resumed"
-- Reply   1 changed, 0 already so
-- Cost    O(1), O(N) moving a BullMQ 5 list onto a non-empty one
--#include shared/key_types.part.lua
local bad = wrongType(1, 'hash') or wrongType(2, 'list') or wrongType(3, 'list')
    or wrongType(4, 'zset') or wrongType(5, 'zset') or wrongType(6, 'zset')
    or wrongType(7, 'stream')
if bad then
    return bad
end
local meta = redis.call('HMGET', KEYS[1], 'paused', 'version', 'opts.maxLenEvents')
local version = meta[2]
if redis.call('EXISTS', KEYS[1]) == 0 then
    return redis.error_reply('GHSHAPE 1 no BullMQ meta hash: not a BullMQ 5 or 6 queue')
end
if version and not (string.match(version, '^bullmq:5%.') or string.match(version, '^bullmq:6%.')) then
    return redis.error_reply('GHSHAPE 1 its layout is ' .. version .. ', not BullMQ 5 or 6')
end
local pausing = ARGV[1] == 'paused'
if pausing == (meta[1] ~= false) then
    return 0
end
local function move(from, to)
    if redis.call('EXISTS', from) == 0 then
        return
    end
    if redis.call('EXISTS', to) == 0 then
        redis.call('RENAME', from, to)
        return
    end
    while redis.call('LLEN', from) > 0 do
        local jobs = redis.call('LRANGE', from, 0, 999)
        redis.call('RPUSH', to, unpack(jobs))
        redis.call('LTRIM', from, #jobs, -1)
    end
end
local v5 = version and string.match(version, '^bullmq:5%.')
if pausing then
    if v5 then
        move(KEYS[2], KEYS[3])
    end
    redis.call('HSET', KEYS[1], 'paused', 1)
    redis.call('DEL', KEYS[6])
else
    move(KEYS[3], KEYS[2]) -- BullMQ 5's paused list (6 moves a legacy one too)
    redis.call('HDEL', KEYS[1], 'paused')
    if redis.call('LLEN', KEYS[2]) + redis.call('ZCARD', KEYS[4]) > 0 then
        redis.call('ZADD', KEYS[6], 0, '0')
    else
        local first = redis.call('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')
        if first[2] then
            redis.call('ZADD', KEYS[6], math.floor(tonumber(first[2]) / 0x1000), '1')
        end
    end
end
redis.call('XADD', KEYS[7], 'MAXLEN', '~', tonumber(meta[3]) or 10000, '*', 'event', ARGV[1])
return 1
