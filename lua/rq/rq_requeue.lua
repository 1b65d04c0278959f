-- rq_requeue.lua: put RQ jobs (1.x and 2.x) back on their queue from one of
-- the queue's registries, as RQ's own BaseRegistry.requeue does (rq/registry.py
-- of RQ 1.13 and 2.10, with Queue.enqueue_job and Queue.push_job_id of
-- rq/queue.py): ZREM the job from the registry, clear started_at and ended_at
-- and write exc_info as RQ does (zlib of ""), status "queued", origin,
-- enqueued_at (RQ's utcformat), the queue's default timeout (180 s) when the
-- job has none, EXPIRE by the job's own "ttl" when it has one (Job.cleanup),
-- SADD the queue to rq:queues and RPUSH its id (the back: at_front is false).
-- From the failed registry (FailedJobRegistry.requeue, `rq requeue`), or
-- from the started registry an abandoned job: one whose score (its expiry:
-- the worker's heartbeat plus its timeout) is in the past, so no live
-- worker holds it (what StartedJobRegistry.cleanup would fail). A started
-- job whose score is in the future is never moved (a worker is running it).
-- RQ 2 keeps a started job as "job_id:execution_id" members (rq/executions.py)
-- with an rq:execution:<member> hash and the job's rq:executions:<id> ZSET of
-- execution ids (scored expiry + 60 s while the execution heartbeats): each
-- dead execution is ended as RQ's Execution.delete ends one (DEL its hash,
-- ZREM it from the started registry and from the job's executions), then the
-- job is requeued as above. A job with a live execution (one whose member's
-- score is in the future) is refused. A member of neither shape (several
-- ':') is refused before anything is written. A started member that is a
-- job's own id (RQ 1 takes ids with ':') is that job; the failed registry
-- holds job ids only. A full page of the started registry with RQ 2 members
-- takes its jobs' members past the page too (one ZSCAN), so that no job is
-- requeued once per page.
--
-- KEYS[1] the queue LIST rq:queue:<name>   KEYS[2] the registry ZSET
-- (rq:failed:<name> or rq:wip:<name>)     KEYS[3] rq:queues SET
-- ARGV[1] the job key prefix "rq:job:"; ARGV[2] a job id, or "" for the
-- first ARGV[4] of the registry (abandoned only, with "abandoned")
-- ARGV[3] "failed" or "abandoned"; ARGV[5] cut of echoed ids (bytes)
-- ARGV[6] the queue's name (a job's "origin" must be it)
-- ARGV[7] RQ 2's execution hash prefix "rq:execution:"; ARGV[8] its
-- executions ZSET prefix "rq:executions:"
-- Reply   one job: 1 requeued, 0 not in that registry, -1 not abandoned
--         (a worker holds it: its score is in the future), -2 no such job,
--         -4 the job belongs to another queue; all: {page size or 0 (see the end), requeued, id...}
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    one job: O(N) in the started registry (a ZSCAN for its RQ 2
--         members; N is the jobs running now); all: O(log N) per member plus
--         O(executions) per job, batch <= ARGV[4] members, and O(N) when the
--         page is full and holds RQ 2 members (their jobs' other members)
--#include shared/key_types.part.lua
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

local executionPrefix = ARGV[7]
local executionsPrefix = ARGV[8]

-- A member's job id and execution id (nil for RQ 1's bare id); an error
-- for a member of neither shape. The failed registry holds job ids (RQ 1
-- and 2's FailedJobRegistry.add). RQ 1 takes any job id, ':' too ("report:42",
-- RQ 2's are [A-Za-z0-9_-]+): a member that is a job's own id (its hash
-- exists) is that job, never an execution of "report".
local function parse(member)
    if not abandoned then
        return member, nil
    end
    local colon = string.find(member, ':', 1, true)
    if not colon or redis.call('TYPE', prefix .. member)['ok'] == 'hash' then
        return member, nil
    end
    local exec = string.sub(member, colon + 1)
    if exec == '' or string.find(exec, ':', 1, true) then
        return nil, nil, 'GHSHAPE 2 member ' .. string.sub(member, 1, 80)
            .. ' is of neither RQ 1 (job id) nor RQ 2 (job_id:execution_id) shape'
    end
    return string.sub(member, 1, colon - 1), exec
end

-- id's members of KEYS[2] with their scores: RQ 1's bare id, and (started
-- registry) RQ 2's "id:<execution>" members, found by ZSCAN (a glob of id
-- escaped).
local function membersOf(id)
    local found, seen = {}, {}
    local score = redis.call('ZSCORE', KEYS[2], id)
    if score then
        found[1] = {id, score}
        seen[id] = true
    end
    if abandoned then
        local glob = string.gsub(id, '([%*%?%[%]\\])', '\\%1') .. ':*'
        local cursor = '0'
        repeat
            local r = redis.call('ZSCAN', KEYS[2], cursor, 'MATCH', glob, 'COUNT', 1000)
            cursor = r[1]
            for i = 1, #r[2], 2 do
                local job, _, err = parse(r[2][i])
                -- (an RQ 1 job "id:..." of its own is not id's)
                if not seen[r[2][i]] and (err or job == id) then
                    seen[r[2][i]] = true
                    found[#found + 1] = {r[2][i], r[2][i + 1]}
                end
            end
        until cursor == '0'
    end
    return found
end

-- Whether id (with members, its members of KEYS[2] and their scores) can
-- be requeued, without writing: 1, or the reply for it; or an error.
local function check(id, members)
    if #members == 0 then
        return 0
    end
    for _, m in ipairs(members) do
        local job, _, err = parse(m[1])
        if err then
            return nil, err
        end
        if job ~= id then
            return nil, 'GHSHAPE 2 member ' .. string.sub(m[1], 1, 80) .. ' is not of job '
                .. string.sub(id, 1, 80)
        end
    end
    local jobKey = prefix .. id
    if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
        return -2
    end
    if abandoned then
        for _, m in ipairs(members) do
            if tonumber(m[2]) > nowSec then
                return -1
            end
        end
        -- A live RQ 2 execution of the job not among members (a page of
        -- the registry holds only the expired ones): by the job's executions,
        -- the latest first (scored by expiry + 60: a live one's is highest).
        local execs = redis.call('ZREVRANGE', executionsPrefix .. id, 0, 99)
        for _, exec in ipairs(execs) do
            local score = redis.call('ZSCORE', KEYS[2], id .. ':' .. exec)
            if score and tonumber(score) > nowSec then
                return -1
            end
        end
    end
    local origin = redis.call('HGET', jobKey, 'origin')
    if origin and origin ~= name then
        return -4
    end
    return 1
end

local function requeue(id, members)
    local jobKey = prefix .. id
    for _, m in ipairs(members) do
        redis.call('ZREM', KEYS[2], m[1])
        local _, exec = parse(m[1])
        if exec then -- Execution.delete
            redis.call('DEL', executionPrefix .. m[1])
            redis.call('ZREM', executionsPrefix .. id, exec)
        end
    end
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
    local members = membersOf(ARGV[2])
    local ok, err = check(ARGV[2], members)
    if err then
        return redis.error_reply(err)
    end
    if ok == 1 then
        requeue(ARGV[2], members)
    end
    return ok
end

local batch = tonumber(ARGV[4])
local page
if abandoned then
    page = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', nowSec, 'WITHSCORES', 'LIMIT', 0, batch)
else
    page = redis.call('ZRANGE', KEYS[2], 0, batch - 1, 'WITHSCORES')
end
-- The page's members by job, in order; every job is checked before the
-- first write.
local jobs, membersByJob = {}, {}
for i = 1, #page, 2 do
    local job, _, err = parse(page[i])
    if err then
        return redis.error_reply(err)
    end
    if not membersByJob[job] then
        membersByJob[job] = {}
        jobs[#jobs + 1] = job
    end
    table.insert(membersByJob[job], {page[i], page[i + 1]})
end
-- A full page may leave an RQ 2 job's other members past it (a second dead
-- execution scored later): requeued without them, the next page would
-- requeue the job again (twice on its queue) and RQ's cleanup would fail
-- the requeued job. One pass over the started registry takes every member
-- of the page's jobs (a live one among them refuses its job).
if abandoned and #page >= 2 * batch then
    local inPage, rq2 = {}, false
    for i = 1, #page, 2 do
        inPage[page[i]] = true
        rq2 = rq2 or select(2, parse(page[i])) ~= nil
    end
    local cursor = '0'
    while rq2 do
        local r = redis.call('ZSCAN', KEYS[2], cursor, 'COUNT', 1000)
        cursor = r[1]
        for i = 1, #r[2], 2 do
            if not inPage[r[2][i]] then
                local job, exec = parse(r[2][i])
                if exec and membersByJob[job] then
                    inPage[r[2][i]] = true -- (ZSCAN may return one twice)
                    table.insert(membersByJob[job], {r[2][i], r[2][i + 1]})
                end
            end
        end
        rq2 = cursor ~= '0'
    end
end
local todo = {}
for _, job in ipairs(jobs) do
    local ok, err = check(job, membersByJob[job])
    if err then
        return redis.error_reply(err)
    end
    if ok == 1 then
        todo[#todo + 1] = job
    end
end
-- "Examined" tells the CLI whether to ask again: the page's size when this
-- run took anything (the next page starts past what it took, so a refused
-- job or a job of two members in the page does not end --stuck early), 0
-- when it took nothing (a page of refused jobs would come back unchanged).
local cut = tonumber(ARGV[5])
local reply = {#todo > 0 and #page / 2 or 0, #todo}
for _, job in ipairs(todo) do
    requeue(job, membersByJob[job])
    reply[#reply + 1] = string.sub(job, 1, cut)
end
return reply
