-- resque_requeue_worker.lua: put the job a stuck Resque worker holds back on
-- its queue and unregister the worker, as node-resque's forceCleanWorker
-- followed by retryStuckJobs does (node-resque 9.7.1 dist/core/queue.js:
-- INCR stat:failed, DEL the worker's stat:failed:<name>,
-- stat:processed:<name>, worker:ping:<name>, worker:<id>:started and
-- worker:<id>, SREM workers <id>; the failure it writes is then retried,
-- which pushes {class, queue, args} back onto the queue). Ruby Resque 2's
-- prune_dead_workers (lib/resque/worker.rb, v2.6.0) unregisters the same way
-- (also HDEL workers:heartbeat <id>, stat:*:<id>) and fails the job with
-- DirtyExit; Gatehouse requeues it at once instead of leaving a failure to
-- retry. A worker is stuck, by node-resque's cleanOldWorkers(age) rule, when
-- the job it works on started (run_at) at least ARGV[3] ms ago by the
-- server's clock; a worker still within it, idle or gone is left alone.
--
-- KEYS[1] the workers SET "<ns>:workers"
-- KEYS[2] the queues SET "<ns>:queues"
-- KEYS[3] the counter "<ns>:stat:failed"
-- KEYS[4] Resque 2's heartbeat HASH "<ns>:workers:heartbeat"
-- ARGV[1] the namespace "<ns>:" (a worker's keys are named by its id, so
--         they are not in KEYS: Resque's keys carry no hash tag)
-- ARGV[2] the worker id ("host:pid:queues"), or "" for every stuck worker
-- ARGV[3] the stuck threshold (ms)
-- ARGV[4] workers per run (with ARGV[2] "")
-- Reply   one worker: 1 requeued, 0 not registered, -1 not stuck yet (its
--         job is younger than the threshold), -2 idle (works on nothing),
--         -3 what it works on is not Resque's ({queue, run_at, payload})
--         -4 its args hold what cjson would not write back exactly (a number
--         of more than 14 significant digits, an empty nested list)
--         every stuck worker: {requeued, requeued, id...} (run again while a whole
--         batch was requeued)
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(1) per worker; O(workers) to list them for every stuck one
-- cjson writes numbers with 14 significant digits and every empty table as
-- {}: args it would not write back exactly are refused, never changed.
local function faithful(v, depth)
    if type(v) == 'number' then
        return tonumber(cjson.encode(v)) == v
    end
    if type(v) == 'table' then
        if depth > 64 or (depth > 0 and next(v) == nil) then
            return false
        end
        for _, x in pairs(v) do
            if not faithful(x, depth + 1) then
                return false
            end
        end
    end
    return true
end
local function keyType(key)
    return redis.call('TYPE', key)['ok']
end
for i, want in ipairs({'set', 'set', 'string', 'hash'}) do
    local t = keyType(KEYS[i])
    if t ~= 'none' and t ~= want then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. want)
    end
end
local ns = ARGV[1]
local threshold = tonumber(ARGV[3]) or 0
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function daysFromCivil(y, m, d)
    y = m <= 2 and y - 1 or y
    local era = math.floor(y / 400)
    local yoe = y - era * 400
    local mp = (m + 9) % 12
    local doy = math.floor((153 * mp + 2) / 5) + d - 1
    local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
    return era * 146097 + doe - 719468
end
local months = {Jan = 1, Feb = 2, Mar = 3, Apr = 4, May = 5, Jun = 6, Jul = 7, Aug = 8,
                Sep = 9, Oct = 10, Nov = 11, Dec = 12}
-- run_at as Resque 2 (ISO 8601), older Resque (Time#to_s) or node-resque
-- (Date#toString) writes it; ms, nil when none of them.
local function runAtMs(s)
    if type(s) ~= 'string' then
        return nil
    end
    local y, mo, d, h, mi, se, rest = string.match(s,
        '^(%d%d%d%d)-(%d%d)-(%d%d)[T ](%d%d):(%d%d):(%d%d)(.*)$')
    if not y then
        local mon
        mon, d, y, h, mi, se, rest = string.match(s,
            '^%a%a%a (%a%a%a) (%d%d) (%d%d%d%d) (%d%d):(%d%d):(%d%d) GMT(.*)$')
        mo = mon and months[mon]
        if not mo then
            return nil
        end
    end
    rest = string.gsub(rest, '^%.%d+', '')
    local offset = 0
    local sign, oh, om = string.match(rest, '^%s*([+-])(%d%d):?(%d%d)')
    if sign then
        offset = (tonumber(oh) * 60 + tonumber(om)) * 60
        if sign == '-' then
            offset = -offset
        end
    end
    local secs = daysFromCivil(tonumber(y), tonumber(mo), tonumber(d)) * 86400
                     + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(se) - offset
    return secs * 1000
end

-- The checks of one worker; the keys and job to write, or a refusal.
local function examine(id)
    if redis.call('SISMEMBER', KEYS[1], id) == 0 then
        return nil, 0
    end
    local workerKey = ns .. 'worker:' .. id
    local wt = keyType(workerKey)
    if wt == 'none' then
        return nil, -2
    end
    if wt ~= 'string' then
        return nil, nil, 'GHSHAPE 1 ' .. string.sub(workerKey, 1, 80) .. ' is a ' .. wt
    end
    local ok, working = pcall(cjson.decode, redis.call('GET', workerKey))
    if not ok or type(working) ~= 'table' or type(working.payload) ~= 'table'
        or type(working.payload.class) ~= 'string' or type(working.payload.args) ~= 'table'
        or working.payload.jid ~= nil or type(working.queue) ~= 'string' or working.queue == '' then
        return nil, -3
    end
    if not faithful(working.payload.args, 0) then
        return nil, -4
    end
    local started = runAtMs(working.run_at)
    if not started or nowMs - started < threshold then
        return nil, -1
    end
    local name = string.match(id, '^(.*):[^:]*$') or id
    local plan = {
        worker = workerKey, queue = ns .. 'queue:' .. working.queue, queueName = working.queue,
        payload = working.payload,
        dels = {workerKey .. ':started', ns .. 'worker:ping:' .. name,
                ns .. 'stat:failed:' .. name, ns .. 'stat:processed:' .. name,
                ns .. 'stat:failed:' .. id, ns .. 'stat:processed:' .. id}}
    local qt = keyType(plan.queue)
    if qt ~= 'none' and qt ~= 'list' then
        return nil, nil, 'GHSHAPE 1 queue ' .. string.sub(plan.queue, 1, 80) .. ' is a ' .. qt
    end
    for _, k in ipairs(plan.dels) do
        local kt = keyType(k)
        if kt ~= 'none' and kt ~= 'string' then
            return nil, nil, 'GHSHAPE 1 ' .. string.sub(k, 1, 80) .. ' is a ' .. kt
        end
    end
    return plan
end

local function requeue(id, plan)
    local p = plan.payload
    local args = next(p.args) == nil and '[]' or cjson.encode(p.args)
    local job
    if p.queue ~= nil then
        job = '{"class":' .. cjson.encode(p.class) .. ',"queue":' .. cjson.encode(plan.queueName)
                  .. ',"args":' .. args .. '}'
    else
        job = '{"class":' .. cjson.encode(p.class) .. ',"args":' .. args .. '}'
    end
    redis.call('INCR', KEYS[3])
    for _, k in ipairs(plan.dels) do
        redis.call('DEL', k)
    end
    redis.call('DEL', plan.worker)
    redis.call('SREM', KEYS[1], id)
    redis.call('HDEL', KEYS[4], id)
    redis.call('SADD', KEYS[2], plan.queueName)
    redis.call('RPUSH', plan.queue, job)
end

if ARGV[2] ~= '' then
    local plan, refusal, err = examine(ARGV[2])
    if err then
        return redis.error_reply(err)
    end
    if not plan then
        return refusal
    end
    requeue(ARGV[2], plan)
    return 1
end

-- Every stuck worker: all checked first, then written.
local batch = tonumber(ARGV[4]) or 100
local ids = redis.call('SMEMBERS', KEYS[1])
local plans, chosen = {}, {}
for _, id in ipairs(ids) do
    if #chosen >= batch then
        break
    end
    local plan, _, err = examine(id)
    if err then
        return redis.error_reply(err)
    end
    if plan then
        plans[#plans + 1] = plan
        chosen[#chosen + 1] = id
    end
end
for i, id in ipairs(chosen) do
    requeue(id, plans[i])
end
local reply = {#chosen, #chosen}
for _, id in ipairs(chosen) do
    reply[#reply + 1] = id
end
return reply
