-- sidekiq_move.lua: Sidekiq Web's buttons on one job of the retry, scheduled
-- or dead set (Sidekiq 6, 7 and 8; lib/sidekiq/api.rb SortedEntry#retry,
-- #add_to_queue, #delete, #kill and DeadSet#kill; lib/sidekiq/client.rb
-- atomic_push): the entry is found by its score and jid (several entries can
-- share a score) and removed from its set, then
--   retry   (retry and dead pages): retry_count given back (minus one) and
--           enqueued_at set to now, SADD "queues" and LPUSH "queue:<name>"
--   enqueue (scheduled page, "Add to Queue"): the same without retry_count
--   kill    ZADD to "dead" at now, trimmed as DeadSet#kill does (older than
--           180 days, ranks 0 to -10000 with the default max_jobs)
--   delete  nothing more
-- in one script, so the job is always in exactly one place. The job's JSON
-- is edited in place (one "enqueued_at" / "retry_count" number each, found
-- exactly once at the top level, else left as is), never re-encoded: cjson
-- would turn an empty array in its args into an object.
--
-- KEYS[1] the job's set ZSET (retry, schedule or dead)
-- KEYS[2] queues SET     KEYS[3] dead ZSET
-- ARGV[1] retry | enqueue | kill | delete
-- ARGV[2] the jid
-- ARGV[3] its score as Sidekiq Web shows it, or "" to look among the first
--         ARGV[4] entries (soonest first)
-- ARGV[4] page size
-- ARGV[5] the redis-namespace prefix ("" or "myapp:"): the queue is
--         ARGV[5] .. "queue:" .. the job's queue, as Sidekiq names it
-- Reply   1 done, 0 no such job in the set, -2 not a Sidekiq job record
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(log N + M) for M entries at the score (or the page)
local function typeOf(key)
    return redis.call('TYPE', key)['ok']
end
local function wrongType(i, want)
    local t = typeOf(KEYS[i])
    if t ~= 'none' and t ~= want then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. want)
    end
end
local bad = wrongType(1, 'zset') or wrongType(2, 'set') or wrongType(3, 'zset')
if bad then
    return bad
end
local op, jid, score, page, ns = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]

local entries
if score ~= '' then
    entries = redis.call('ZRANGEBYSCORE', KEYS[1], score, score)
else
    entries = redis.call('ZRANGE', KEYS[1], 0, page - 1)
end
local member, job
for _, e in ipairs(entries) do
    if string.find(e, jid, 1, true) then
        local ok, j = pcall(cjson.decode, e)
        if ok and type(j) == 'table' and j['jid'] == jid then
            member, job = e, j
            break
        end
    end
end
if not member then
    return 0
end
if type(job['queue']) ~= 'string' and (op == 'retry' or op == 'enqueue') then
    return -2
end

local t = redis.call('TIME')
local nowS = tonumber(t[1]) + tonumber(t[2]) / 1000000

-- Replaces the one top-level number of field name, if it occurs exactly once.
local function setNumber(json, name, value)
    local pattern = '"' .. name .. '":%-?[%d%.eE%+%-]+'
    local _, n = string.gsub(json, pattern, '')
    if n ~= 1 then
        return json
    end
    local out = string.gsub(json, pattern, function()
        return '"' .. name .. '":' .. value
    end)
    return out
end

if op == 'retry' or op == 'enqueue' then
    local queueKey = ns .. 'queue:' .. job['queue']
    local qt = typeOf(queueKey)
    if qt ~= 'none' and qt ~= 'list' then
        return redis.error_reply('GHSHAPE 1 queue ' .. queueKey .. ' is a ' .. qt .. ', not a list')
    end
    local payload = member
    if op == 'retry' and tonumber(job['retry_count']) then
        payload = setNumber(payload, 'retry_count', string.format('%d', job['retry_count'] - 1))
    end
    local old = tonumber(job['enqueued_at'])
    if old and old > 1e11 then -- Sidekiq 8: ms
        payload = setNumber(payload, 'enqueued_at', string.format('%d', math.floor(nowS * 1000)))
    elseif old then
        payload = setNumber(payload, 'enqueued_at', string.format('%.6f', nowS))
    end
    redis.call('ZREM', KEYS[1], member)
    redis.call('SADD', KEYS[2], job['queue'])
    redis.call('LPUSH', queueKey, payload)
    return 1
elseif op == 'kill' then
    redis.call('ZREM', KEYS[1], member)
    redis.call('ZADD', KEYS[3], string.format('%.6f', nowS), member)
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', string.format('%.6f', nowS - 180 * 24 * 3600))
    redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -10000) -- DeadSet#kill: 0, -max_jobs
    return 1
elseif op == 'delete' then
    redis.call('ZREM', KEYS[1], member)
    return 1
end
return redis.error_reply('GHSHAPE 1 unknown operation ' .. op)
