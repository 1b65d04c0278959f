-- asynq_delete.lua: delete one asynq task, as asynq's Inspector.DeleteTask
-- does (deleteTaskCmd in internal/rdb/inspect.go, asynq v0.25.1): the task
-- leaves its state's list or set and its hash is deleted. An active task is
-- refused, as asynq does; an aggregating task (a group's) too. asynq also
-- deletes the task's uniqueness lock when it still holds the task; that
-- key's name is in the hash (not passed in KEYS), so this script leaves it
-- to expire by its TTL and replies with its name. Unlike asynq it checks,
-- before writing, that the task hash holds asynq's "msg" and that the task
-- is in its state's list or set.
--
-- KEYS[1] the task HASH asynq:{<q>}:t:<id>  KEYS[2] pending LIST
-- KEYS[3] scheduled ZSET  KEYS[4] retry ZSET  KEYS[5] archived ZSET
-- KEYS[6] completed ZSET
-- ARGV[1] the task id
-- Reply   {1, unique lock name or ""} deleted; 0 no such task, -1 active,
--         -3 aggregating
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(N) in pending for a pending task (LPOS, LREM); else O(log N)
local function wrongType(i, want)
    local t = redis.call('TYPE', KEYS[i])['ok']
    if t ~= 'none' and t ~= want then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. want)
    end
end
local bad = wrongType(1, 'hash') or wrongType(2, 'list') or wrongType(3, 'zset')
    or wrongType(4, 'zset') or wrongType(5, 'zset') or wrongType(6, 'zset')
if bad then
    return bad
end
local id = ARGV[1]
if redis.call('EXISTS', KEYS[1]) == 0 then
    return 0
end
local state = redis.call('HGET', KEYS[1], 'state')
if redis.call('HEXISTS', KEYS[1], 'msg') == 0 or not state then
    return redis.error_reply('GHSHAPE 1 task hash without asynq\'s msg and state fields')
end
if state == 'active' then
    return -1
elseif state == 'aggregating' then
    return -3
end
local from = ({pending = 2, scheduled = 3, retry = 4, archived = 5, completed = 6})[state]
if not from then
    return redis.error_reply('GHSHAPE 1 task state ' .. string.sub(state, 1, 32))
end
local there
if from == 2 then
    there = redis.call('LPOS', KEYS[2], id)
else
    there = redis.call('ZSCORE', KEYS[from], id)
end
if not there then
    return redis.error_reply('GHSHAPE ' .. from .. ' task ' .. string.sub(id, 1, 80)
        .. ' is not in its state\'s list or set')
end
if from == 2 then
    redis.call('LREM', KEYS[2], 0, id)
else
    redis.call('ZREM', KEYS[from], id)
end
local unique = redis.call('HGET', KEYS[1], 'unique_key') or ''
redis.call('DEL', KEYS[1])
return {1, unique}
