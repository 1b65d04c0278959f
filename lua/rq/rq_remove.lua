-- rq_remove.lua: cancel or delete one RQ job (1.x and 2.x) as RQ's own
-- Job.cancel and Job.delete do (rq/job.py of RQ 1.13 and 2.10, with
-- Queue.remove of rq/queue.py):
-- LREM it (count 1) from its queue and ZREM it from the queue's registries;
-- cancel then sets status "canceled" and adds it to the canceled registry
-- (CanceledJobRegistry.add: score = now); delete removes the job hash and its
-- dependents and dependencies sets. RQ removes a job from the registry its
-- status names; Gatehouse removes it from all of them, so a job whose status
-- and registry disagree (a worker killed between two writes) is not left
-- behind in one. A job a live worker holds (in the started registry with a
-- score in the future) is refused: RQ would not stop the worker.
-- RQ 2 keeps a started job as "job_id:execution_id" members: those go from
-- the started registry too (StartedJobRegistry.remove_executions), and delete
-- also ends each of the job's executions (ExecutionRegistry.delete: DEL
-- rq:execution:<member>, then the job's rq:executions:<id> ZSET).
--
-- KEYS[1] the queue LIST rq:queue:<name>
-- KEYS[2] rq:wip:<name>  KEYS[3] rq:finished:<name>  KEYS[4] rq:failed:<name>
-- KEYS[5] rq:scheduled:<name>  KEYS[6] rq:deferred:<name>  KEYS[7] rq:canceled:<name> ZSETs
-- ARGV[1] the job key prefix "rq:job:"; ARGV[2] the job id
-- ARGV[3] "cancel" or "delete"; ARGV[4] the queue's name (the job's "origin")
-- ARGV[5] RQ 2's execution hash prefix "rq:execution:"; ARGV[6] its
-- executions ZSET prefix "rq:executions:"
-- Reply   1 done, -1 a worker is running it, -2 no such job, -4 the job
--         belongs to another queue, -5 already canceled (cancel only)
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(N) in the queue's length (LREM) and in the started registry (a
--         ZSCAN for RQ 2's members) plus O(log N) per registry
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list')
for i = 2, 7 do
    bad = bad or wrongType(i, 'zset')
end
if bad then
    return bad
end
local prefix = ARGV[1]
local id = ARGV[2]
local cancel = ARGV[3] == 'cancel'
local jobKey = prefix .. id
if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
    return -2
end
local origin = redis.call('HGET', jobKey, 'origin')
if origin and origin ~= ARGV[4] then
    return -4
end
local nowSec = tonumber(redis.call('TIME')[1])
-- The job's started members: RQ 1's id, RQ 2's "id:<execution>" (a ZSCAN,
-- the id escaped as a glob).
local started = {}
local score = redis.call('ZSCORE', KEYS[2], id)
if score then
    started[id] = score
end
local glob = string.gsub(id, '([%*%?%[%]\\])', '\\%1') .. ':*'
local cursor = '0'
repeat
    local r = redis.call('ZSCAN', KEYS[2], cursor, 'MATCH', glob, 'COUNT', 1000)
    cursor = r[1]
    for i = 1, #r[2], 2 do
        -- (an RQ 1 job of its own whose id is "<id>:...": RQ 1 takes any id)
        if redis.call('TYPE', prefix .. r[2][i])['ok'] ~= 'hash' then
            started[r[2][i]] = r[2][i + 1]
        end
    end
until cursor == '0'
for _, s in pairs(started) do
    if tonumber(s) > nowSec then
        return -1
    end
end
if cancel and redis.call('HGET', jobKey, 'status') == 'canceled' then
    return -5
end
-- Delete reads the job's executions ZSET after its first write: its type
-- is checked before any.
local executionsType = redis.call('TYPE', ARGV[6] .. id)['ok']
if not cancel and executionsType ~= 'none' and executionsType ~= 'zset' then
    return redis.error_reply('GHSHAPE 2 ' .. string.sub(ARGV[6] .. id, 1, 80) .. ' is a '
        .. executionsType .. ', not the job\'s RQ 2 executions ZSET')
end

redis.call('LREM', KEYS[1], 1, id)
for i = 2, 6 do
    redis.call('ZREM', KEYS[i], id)
end
for member in pairs(started) do
    redis.call('ZREM', KEYS[2], member)
end
if cancel then
    redis.call('HSET', jobKey, 'status', 'canceled')
    redis.call('ZADD', KEYS[7], nowSec, id)
else
    redis.call('ZREM', KEYS[7], id)
    local executions = ARGV[6] .. id
    for _, exec in ipairs(redis.call('ZRANGE', executions, 0, 999)) do
        redis.call('DEL', ARGV[5] .. id .. ':' .. exec)
    end
    redis.call('DEL', jobKey, jobKey .. ':dependents', prefix .. ':' .. id .. ':dependencies',
        executions)
end
return 1
