-- rq_requeue.lua: put RQ 1.x jobs back on their queue from one of the
-- queue's registries, as RQ's own BaseRegistry.requeue does (rq/registry.py
-- of RQ 1.13, with Queue.enqueue_job and Queue.push_job_id of rq/queue.py):
-- ZREM the job from the registry, clear started_at and ended_at and write
-- exc_info as RQ does (zlib of ""), status "queued", origin, enqueued_at
-- (RQ's utcformat), the queue's default timeout (180 s) when the job has
-- none, EXPIRE by the job's own "ttl" when it has one (Job.cleanup), SADD
-- the queue to rq:queues and RPUSH its id (the back: at_front is false).
-- From the failed registry (FailedJobRegistry.requeue, `rq requeue`), or
-- from the started registry an abandoned job: one whose score (its expiry:
-- the worker's heartbeat plus its timeout) is in the past, so no live
-- worker holds it (what StartedJobRegistry.cleanup would fail). A started
-- job whose score is in the future is never moved (a worker is running it).
-- RQ 2.x started-registry members are "job_id:execution_id"; Gatehouse
-- reads them but does not write RQ 2's execution records: refused.
--
-- KEYS[1] the queue LIST rq:queue:<name>   KEYS[2] the registry ZSET
-- (rq:failed:<name> or rq:wip:<name>)     KEYS[3] rq:queues SET
-- ARGV[1] the job key prefix "rq:job:"; ARGV[2] a job id, or "" for the
-- first ARGV[4] of the registry (abandoned only, with "abandoned")
-- ARGV[3] "failed" or "abandoned"; ARGV[5] cut of echoed ids (bytes)
-- ARGV[6] the queue's name (a job's "origin" must be it)
-- Reply   one job: 1 requeued, 0 not in that registry, -1 not abandoned
--         (a worker holds it: its score is in the future), -2 no such job,
--         -4 the job belongs to another queue; all: {requeued, requeued, id...}
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(log N) per job plus O(batch) for the page; batch <= ARGV[4]
local function wrongType(i, want)
    local t = redis.call('TYPE', KEYS[i])['ok']
    if t ~= 'none' and t ~= want then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. want)
    end
end
local bad = wrongType(1, 'list') or wrongType(2, 'zset') or wrongType(3, 'set')
if bad then
    return bad
end
local prefix = ARGV[1]
local abandoned = ARGV[3] == 'abandoned'
local name = ARGV[6]
local t = redis.call('TIME')
local nowSec = tonumber(t[1])
local nowUsec = tonumber(t[2])

-- RQ's utcformat: '%Y-%m-%dT%H:%M:%S.%fZ' in UTC (days to civil date,
-- H. Hinnant's algorithm; Redis's Lua has no os.date).
local function utcformat(sec, usec)
    local days = math.floor(sec / 86400)
    local rem = sec - days * 86400
    local z = days + 719468
    local era = math.floor(z / 146097)
    local doe = z - era * 146097
    local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524)
        - math.floor(doe / 146096)) / 365)
    local y = yoe + era * 400
    local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
    local mp = math.floor((5 * doy + 2) / 153)
    local d = doy - math.floor((153 * mp + 2) / 5) + 1
    local m = mp < 10 and mp + 3 or mp - 9
    if m <= 2 then
        y = y + 1
    end
    return string.format('%04d-%02d-%02dT%02d:%02d:%02d.%06dZ', y, m, d,
        math.floor(rem / 3600), math.floor(rem % 3600 / 60), rem % 60, usec)
end
-- zlib.compress(b'') as RQ writes an emptied exc_info.
local emptyExcInfo = 'x\156\3\0\0\0\0\1'

-- Whether id can be requeued, without writing: 1, or the reply for it.
local function check(id)
    if string.find(id, ':', 1, true) then
        return nil, 'GHSHAPE 2 member ' .. string.sub(id, 1, 80)
            .. ' is an RQ 2 execution (job_id:execution_id); Gatehouse writes RQ 1 only'
    end
    local score = redis.call('ZSCORE', KEYS[2], id)
    if not score then
        return 0
    end
    local jobKey = prefix .. id
    if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
        return -2
    end
    if abandoned and tonumber(score) > nowSec then
        return -1
    end
    local origin = redis.call('HGET', jobKey, 'origin')
    if origin and origin ~= name then
        return -4
    end
    return 1
end

local function requeue(id)
    local jobKey = prefix .. id
    redis.call('ZREM', KEYS[2], id)
    redis.call('HSET', jobKey, 'started_at', '', 'ended_at', '', 'exc_info', emptyExcInfo,
        'status', 'queued', 'origin', name, 'enqueued_at', utcformat(nowSec, nowUsec))
    if not redis.call('HGET', jobKey, 'timeout') then
        redis.call('HSET', jobKey, 'timeout', 180) -- Queue.DEFAULT_TIMEOUT
    end
    local ttl = tonumber(redis.call('HGET', jobKey, 'ttl'))
    if ttl and ttl > 0 then
        redis.call('EXPIRE', jobKey, ttl)
        redis.call('EXPIRE', jobKey .. ':dependents', ttl)
        redis.call('EXPIRE', prefix .. ':' .. id .. ':dependencies', ttl) -- RQ's own name
    end
    redis.call('SADD', KEYS[3], KEYS[1])
    redis.call('RPUSH', KEYS[1], id)
end

if ARGV[2] ~= '' then
    local ok, err = check(ARGV[2])
    if err then
        return redis.error_reply(err)
    end
    if ok == 1 then
        requeue(ARGV[2])
    end
    return ok
end

local batch = tonumber(ARGV[4])
local ids
if abandoned then
    ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', nowSec, 'LIMIT', 0, batch)
else
    ids = redis.call('ZRANGE', KEYS[2], 0, batch - 1)
end
-- Every member is checked before the first write.
local todo = {}
for _, id in ipairs(ids) do
    local ok, err = check(id)
    if err then
        return redis.error_reply(err)
    end
    if ok == 1 then
        todo[#todo + 1] = id
    end
end
local cut = tonumber(ARGV[5])
local reply = {#todo, #todo}
for _, id in ipairs(todo) do
    requeue(id)
    reply[#reply + 1] = string.sub(id, 1, cut)
end
return reply
