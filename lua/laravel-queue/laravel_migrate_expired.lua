-- laravel_migrate_expired.lua: put a Laravel queue's expired reservations
-- back on its queue, as Laravel's RedisQueue::migrateExpiredJobs does with
-- LuaScripts::migrateExpiredJobs (illuminate/queue 8.83, src/Illuminate/Queue/
-- LuaScripts.php and RedisQueue.php): a reserved job whose score (its
-- reservation's expiry, epoch seconds: pop time + retry_after) is at or
-- before now is ZREMed from ":reserved", RPUSHed to the queue as reserved
-- (its "attempts" already counted by the pop), with one "1" RPUSHed to
-- ":notify" per job. Laravel's script moves every expired job in one run;
-- this one moves at most ARGV[2] per run (the console repeats it), or the
-- one job named by ARGV[3] (its payload's "id"), and takes only members
-- that are Laravel job payloads (JSON objects with "job", "id" and
-- "attempts"): a member of any other shape is refused before any write.
--
-- KEYS[1] the reserved ZSET "<prefix>queues:<q>:reserved"
-- KEYS[2] the queue LIST "<prefix>queues:<q>"
-- KEYS[3] the notify LIST "<prefix>queues:<q>:notify"
-- ARGV[1] now in epoch seconds, or "" for the server's TIME
-- ARGV[2] at most this many jobs per run; ARGV[3] a job's "id", or "" for any
-- ARGV[4] cut of echoed ids (bytes)
-- Reply   all: {examined, moved, id...}; one job: 1 moved, 0 not reserved,
--         -1 its reservation has not expired (a worker may still run it)
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    all: O(log N + M) for M jobs moved (at most ARGV[2]); one job: a
--         ZSCAN of the reserved set (the jobs running now)
local types = {'zset', 'list', 'list'}
for i = 1, 3 do
    local t = redis.call('TYPE', KEYS[i])['ok']
    if t ~= 'none' and t ~= types[i] then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. types[i])
    end
end
local now = tonumber(ARGV[1])
if not now then
    now = tonumber(redis.call('TIME')[1])
end
local function jobOf(member)
    local ok, job = pcall(cjson.decode, member)
    if ok and type(job) == 'table' and type(job['job']) == 'string'
        and job['id'] ~= nil and type(job['attempts']) == 'number' then
        return job
    end
    return nil
end
local cut = tonumber(ARGV[4])

if ARGV[3] ~= '' then
    local glob = '*"id":"' .. string.gsub(ARGV[3], '([%*%?%[%]\\])', '\\%1') .. '"*'
    local cursor = '0'
    repeat
        local r = redis.call('ZSCAN', KEYS[1], cursor, 'MATCH', glob, 'COUNT', 1000)
        cursor = r[1]
        for i = 1, #r[2], 2 do
            local job = jobOf(r[2][i])
            if job and tostring(job['id']) == ARGV[3] then
                if tonumber(r[2][i + 1]) > now then
                    return -1
                end
                redis.call('ZREM', KEYS[1], r[2][i])
                redis.call('RPUSH', KEYS[2], r[2][i])
                redis.call('RPUSH', KEYS[3], 1)
                return 1
            end
        end
    until cursor == '0'
    return 0
end

local batch = tonumber(ARGV[2])
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, batch)
local ids = {}
for i, member in ipairs(expired) do
    local job = jobOf(member)
    if not job then
        return redis.error_reply('GHSHAPE 1 member ' .. i .. ' of the reserved set is not a '
            .. 'Laravel job payload')
    end
    ids[#ids + 1] = string.sub(tostring(job['id']), 1, cut)
end
for _, member in ipairs(expired) do
    redis.call('ZREM', KEYS[1], member)
    redis.call('RPUSH', KEYS[2], member)
    redis.call('RPUSH', KEYS[3], 1)
end
local reply = {#expired, #expired}
for _, id in ipairs(ids) do
    reply[#reply + 1] = id
end
return reply
