-- bullmq/bullmq_queue.part.lua: what a script that moves BullMQ jobs (5 and 6)
-- to wait reads of the queue first, after shared/key_types.part.lua:
--   queueTypesBad()  wrongType of KEYS[1..6] (below), the first that is bad
--   readQueue()      reads the meta hash; the error when the queue's layout
--                    is not BullMQ 5 or 6, and otherwise nil, having set:
--     meta       HMGET of the meta hash: paused, concurrency, version,
--                opts.maxLenEvents
--     target     where a job waits: "wait", or "paused" on a paused BullMQ 5
--                queue (BullMQ 6 keeps a paused queue's jobs in "wait")
--     maxEvents  the events stream's cap
--   blocked()        whether workers take nothing now (paused, or as many
--                    active jobs as the queue's concurrency): no "0" marker
-- A script checks every key's type before readQueue(), so a key of the wrong
-- type is named before a missing meta hash; both before anything is written.
-- KEYS[1] meta HASH      KEYS[2] wait LIST       KEYS[3] active LIST
-- KEYS[4] paused LIST    KEYS[5] marker ZSET     KEYS[6] events STREAM
local meta, target, maxEvents

local function queueTypesBad()
    return wrongType(1, 'hash') or wrongType(2, 'list') or wrongType(3, 'list')
        or wrongType(4, 'list') or wrongType(5, 'zset') or wrongType(6, 'stream')
end

local function readQueue()
    meta = redis.call('HMGET', KEYS[1], 'paused', 'concurrency', 'version', 'opts.maxLenEvents')
    local version = meta[3]
    if redis.call('EXISTS', KEYS[1]) == 0 then
        return redis.error_reply('GHSHAPE 1 no BullMQ meta hash: not a BullMQ 5 or 6 queue')
    end
    if version and not (string.match(version, '^bullmq:5%.')
            or string.match(version, '^bullmq:6%.')) then
        return redis.error_reply('GHSHAPE 1 its layout is ' .. version .. ', not BullMQ 5 or 6')
    end
    target = KEYS[2]
    if meta[1] and version and string.match(version, '^bullmq:5%.') then
        target = KEYS[4]
    end
    maxEvents = tonumber(meta[4]) or 10000
end

local function blocked()
    if meta[1] then
        return true
    end
    if meta[2] then
        return redis.call('LLEN', KEYS[3]) >= tonumber(meta[2])
    end
    return false
end
