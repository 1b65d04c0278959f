-- resque_failed.lua: retry or remove one failed Resque job, as Resque's own
-- Failure::Redis does (resque/resque lib/resque/failure/redis.rb, v2.6.0:
-- requeue(id) pushes the payload back with Job.create; remove(id) is LSET of
-- the entry to "" then LREM 1 "") and node-resque's retryAndRemoveFailed /
-- removeFailed (node-resque 9.7.1 dist/core/queue.js: LREM 1 of the entry,
-- then enqueue). A retry removes the failure too (requeue and remove). The
-- job goes back as its library wrote it: node-resque's {class, queue, args}
-- when the failed payload carries "queue", Resque's {class, args} otherwise,
-- pushed right (RPUSH) onto "<ns>:queue:<queue>" and its name added to
-- "<ns>:queues" (Resque.push, Queue#enqueue).
--
-- The entry is named by its index and, when given, the SHA1 of the entry the
-- console showed: a list that moved on (another entry at that index) is
-- refused. Nothing is written until the entry, its payload and the queue
-- list's type are checked.
--
-- KEYS[1] the failed LIST "<ns>:failed"
-- KEYS[2] the queues SET "<ns>:queues"
-- ARGV[1] "retry" or "remove"
-- ARGV[2] the entry's index in the failed list (0 = oldest)
-- ARGV[3] the entry's SHA1 (hex) as shown, or "" to take the entry at index
-- ARGV[4] the queue key prefix "<ns>:queue:" (the queue list is named by
--         the entry, so it is not in KEYS: Resque's keys carry no hash tag)
-- Reply   1 done, 0 no entry at that index, -1 the entry changed, -3 the
--         entry is not a Resque failure (payload {class, args}, a queue), -4
--         (retry) its args hold what cjson would not write back exactly (a
--         number of more than 14 significant digits, an empty nested list)
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(index) for LINDEX/LSET, O(N) for LREM in the failed list's length
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
local function wrongType(key, i, want)
    local t = redis.call('TYPE', key)['ok']
    if t ~= 'none' and t ~= want then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. want)
    end
end
local bad = wrongType(KEYS[1], 1, 'list') or wrongType(KEYS[2], 2, 'set')
if bad then
    return bad
end
local index = tonumber(ARGV[2])
if not index or index < 0 or index ~= math.floor(index) then
    return redis.error_reply('GHSHAPE 1 index ' .. string.sub(ARGV[2], 1, 40) .. ' is not one')
end
local entry = redis.call('LINDEX', KEYS[1], index)
if not entry then
    return 0
end
if ARGV[3] ~= '' and redis.sha1hex(entry) ~= ARGV[3] then
    return -1
end
local ok, failure = pcall(cjson.decode, entry)
if not ok or type(failure) ~= 'table' or type(failure.payload) ~= 'table' then
    return -3
end
local payload = failure.payload
if type(payload.class) ~= 'string' or type(payload.args) ~= 'table' or payload.jid ~= nil
    or type(failure.queue) ~= 'string' or failure.queue == '' then
    return -3
end
local queueKey = ARGV[4] .. failure.queue
if ARGV[1] == 'retry' then
    local t = redis.call('TYPE', queueKey)['ok']
    if t ~= 'none' and t ~= 'list' then
        return redis.error_reply('GHSHAPE 1 queue ' .. string.sub(queueKey, 1, 80) .. ' is a '
                                     .. t .. ', not a list')
    end
end
if ARGV[1] == 'retry' and not faithful(payload.args, 0) then
    return -4
end
-- Resque's remove: the entry becomes the sentinel, then one sentinel goes.
redis.call('LSET', KEYS[1], index, '')
redis.call('LREM', KEYS[1], 1, '')
if ARGV[1] == 'retry' then
    -- cjson writes an empty table as {}: Resque's args are an array.
    local args = next(payload.args) == nil and '[]' or cjson.encode(payload.args)
    local job
    if payload.queue ~= nil then
        job = '{"class":' .. cjson.encode(payload.class) .. ',"queue":'
                  .. cjson.encode(failure.queue) .. ',"args":' .. args .. '}'
    else
        job = '{"class":' .. cjson.encode(payload.class) .. ',"args":' .. args .. '}'
    end
    redis.call('SADD', KEYS[2], failure.queue)
    redis.call('RPUSH', queueKey, job)
end
return 1
