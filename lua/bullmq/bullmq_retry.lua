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
local state = ARGV[4]
local target = KEYS[2]
if meta[1] and version and string.match(version, '^bullmq:5%.') then
    target = KEYS[4]
end
local maxEvents = tonumber(meta[4]) or 10000
local blocked = meta[1] ~= false
if not blocked and meta[2] then
    blocked = redis.call('LLEN', KEYS[3]) >= tonumber(meta[2])
end

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
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', maxEvents, '*', 'event', 'waiting', 'jobId', id,
        'prev', state)
    return 1
end

if ARGV[2] ~= '' then
    return retry(ARGV[2])
end
local ids = redis.call('ZRANGE', KEYS[9], 0, tonumber(ARGV[3]) - 1)
local cut = tonumber(ARGV[5])
local reply = {0, 0}
for _, id in ipairs(ids) do
    if retry(id) == 1 then
        reply[#reply + 1] = string.sub(id, 1, cut)
    end
end
reply[1] = #reply - 2
reply[2] = #reply - 2
return reply
