-- horizon_retry_failed.lua: retry one failed Laravel Horizon job as Horizon's
-- RetryFailedJob does (laravel/horizon v5.29.1, src/Jobs/RetryFailedJob.php,
-- with RedisQueue::pushRaw, JobPayload::prepare, RedisJobRepository::pushed
-- and storeRetryReference): the failed job's payload with a new id and uuid,
-- attempts 0, retry_of the failed id, retryUntil moved as prepareNewTimeout
-- moves it and pushedAt now, RPUSHed to the job's Laravel queue with one
-- notification (LuaScripts::push); the new job recorded as Horizon records a
-- pushed one (ZADD recent_jobs and pending_jobs by -now, its hash with
-- status pending, EXPIREAT now + ARGV[4] s); and the retry appended to the
-- failed job's retried_by. Horizon's pushRaw also re-derives the payload's
-- type, tags and silenced from the job object it has; they are kept here.
-- The failed job must still be in failed_jobs with status "failed", its
-- queue must be the one the target list is named for, and its payload a
-- Laravel job's; otherwise nothing is written.
--
-- KEYS[1] the failed job's HASH "<horizon>:<id>"   KEYS[2] "<horizon>:failed_jobs" ZSET
-- KEYS[3] the Laravel queue LIST "<prefix>queues:<queue>"   KEYS[4] its ":notify" LIST
-- KEYS[5] "<horizon>:recent_jobs" ZSET   KEYS[6] "<horizon>:pending_jobs" ZSET
-- KEYS[7] the new job's HASH "<horizon>:<new id>"
-- ARGV[1] the failed job's id; ARGV[2] the new id (a UUID the console made)
-- ARGV[3] the queue's name (KEYS[3] without "<prefix>queues:")
-- ARGV[4] the pending job record's lifetime, s (Horizon's trim.pending: 3600)
-- Reply   1 retried, 0 not a failed job (not in failed_jobs, or its status
--         is not "failed"), -2 no such job hash, -4 the job belongs to another
--         queue, -5 the new id is taken
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(log N) in the sets, O(payload) to rewrite the payload
local types = {'hash', 'zset', 'list', 'list', 'zset', 'zset', 'hash'}
for i = 1, 7 do
    local t = redis.call('TYPE', KEYS[i])['ok']
    if t ~= 'none' and t ~= types[i] then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. types[i])
    end
end
if redis.call('EXISTS', KEYS[1]) == 0 then
    return -2
end
if not redis.call('ZSCORE', KEYS[2], ARGV[1])
    or redis.call('HGET', KEYS[1], 'status') ~= 'failed' then
    return 0
end
if redis.call('HGET', KEYS[1], 'queue') ~= ARGV[3] then
    return -4
end
if redis.call('EXISTS', KEYS[7]) == 1 then
    return -5
end
local raw = redis.call('HGET', KEYS[1], 'payload')
local ok, payload = pcall(cjson.decode, raw or '')
if not ok or type(payload) ~= 'table' or type(payload['job']) ~= 'string'
    or type(payload['attempts']) ~= 'number' then
    return redis.error_reply('GHSHAPE 1 the payload of job ' .. string.sub(ARGV[1], 1, 80)
        .. ' is not a Laravel job payload')
end

local retries = {}
local previous = redis.call('HGET', KEYS[1], 'retried_by')
if previous then
    local okRetries, decoded = pcall(cjson.decode, previous)
    if not okRetries or type(decoded) ~= 'table' then
        return redis.error_reply('GHSHAPE 1 retried_by of job ' .. string.sub(ARGV[1], 1, 80)
            .. ' is not a JSON array')
    end
    retries = decoded
end
local time = redis.call('TIME')
local nowSec = tonumber(time[1])
local now = time[1] .. '.' .. string.format('%06d', tonumber(time[2]))
local retryUntil = payload['retryUntil']
if retryUntil == nil or retryUntil == cjson.null then
    retryUntil = payload['timeoutAt']
end
local pushedAt = tonumber(payload['pushedAt']) or tonumber(now)
if type(retryUntil) == 'number' then
    payload['retryUntil'] = nowSec + math.ceil(retryUntil - pushedAt)
else
    payload['retryUntil'] = cjson.null
end
payload['id'] = ARGV[2]
payload['uuid'] = ARGV[2]
payload['attempts'] = 0
payload['retry_of'] = ARGV[1]
payload['pushedAt'] = now
local encoded = cjson.encode(payload)

redis.call('RPUSH', KEYS[3], encoded)
redis.call('RPUSH', KEYS[4], 1)
redis.call('ZADD', KEYS[5], '-' .. now, ARGV[2])
redis.call('ZADD', KEYS[6], '-' .. now, ARGV[2])
redis.call('HSET', KEYS[7], 'id', ARGV[2], 'connection',
    redis.call('HGET', KEYS[1], 'connection') or 'redis', 'queue', ARGV[3], 'name',
    tostring(payload['displayName'] or payload['job']), 'status', 'pending', 'payload', encoded,
    'created_at', now, 'updated_at', now)
redis.call('EXPIREAT', KEYS[7], nowSec + tonumber(ARGV[4]))
retries[#retries + 1] = {id = ARGV[2], status = 'pending', retried_at = nowSec}
redis.call('HSET', KEYS[1], 'retried_by', cjson.encode(retries))
return 1
