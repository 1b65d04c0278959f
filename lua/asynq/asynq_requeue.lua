-- asynq_requeue.lua: put lease-expired asynq tasks back on pending, as
-- asynq's RDB.Requeue does (requeueCmd in internal/rdb/rdb.go, asynq
-- v0.25.1): LREM the id from active, ZREM it from lease, RPUSH it on pending
-- (the end asynq's dequeue takes next) and set its hash's state to
-- "pending". Only a task whose lease expired ARGV[3] s ago or more (asynq's
-- recoverer's cutoff, recoverer.go: 30 s) is moved: a live worker extends
-- its lease. Every candidate is checked (in active, its hash with asynq's
-- "msg" and state "active") before anything is written.
--
-- KEYS[1] active LIST  KEYS[2] lease ZSET  KEYS[3] pending LIST
-- ARGV[1] the queue's task key prefix "asynq:{<q>}:t:" (keys in the
-- queue's hash slot); ARGV[2] a task id, or "" for the first ARGV[4]
-- expired; ARGV[3] grace (s); ARGV[5] cut of echoed ids (bytes)
-- Reply   one task: 1 requeued, 0 not leased, -1 its lease has not expired
--         (a worker holds it), -2 no such task;
--         all: {ARGV[4] when a whole batch was requeued else 0, requeued, id...}
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(N) in active per task (LPOS, LREM), at most ARGV[4] tasks
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'zset') or wrongType(3, 'list')
if bad then
    return bad
end
local prefix = ARGV[1]
local cutoff = tonumber(redis.call('TIME')[1]) - tonumber(ARGV[3])
local cut = tonumber(ARGV[5])

-- A candidate's problem, or nil when it is asynq's active task.
local function check(id)
    local key = prefix .. id
    local t = redis.call('TYPE', key)['ok']
    if t ~= 'hash' then
        return 'GHSHAPE 2 leased task ' .. string.sub(id, 1, 80) .. ' has no task hash'
    end
    local state = redis.call('HGET', key, 'state')
    if redis.call('HEXISTS', key, 'msg') == 0 or state ~= 'active' then
        return 'GHSHAPE 2 leased task ' .. string.sub(id, 1, 80) .. ' is not asynq\'s active task'
    end
    if not redis.call('LPOS', KEYS[1], id) then
        return 'GHSHAPE 1 leased task ' .. string.sub(id, 1, 80) .. ' is not in active'
    end
end

local function requeue(id)
    redis.call('LREM', KEYS[1], 0, id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('RPUSH', KEYS[3], id)
    redis.call('HSET', prefix .. id, 'state', 'pending')
end

if ARGV[2] ~= '' then
    local id = ARGV[2]
    local score = redis.call('ZSCORE', KEYS[2], id)
    if not score then
        return 0
    end
    if tonumber(score) >= cutoff then
        return -1
    end
    if redis.call('EXISTS', prefix .. id) == 0 then
        return -2
    end
    local problem = check(id)
    if problem then
        return redis.error_reply(problem)
    end
    requeue(id)
    return 1
end

local batch = tonumber(ARGV[4])
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. cutoff, 'LIMIT', 0, batch)
for _, id in ipairs(ids) do
    local problem = check(id)
    if problem then
        return redis.error_reply(problem)
    end
end
local reply = {#ids == batch and batch or 0, #ids}
for _, id in ipairs(ids) do
    requeue(id)
    table.insert(reply, string.sub(id, 1, cut))
end
return reply
