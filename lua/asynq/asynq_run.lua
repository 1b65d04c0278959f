-- asynq_run.lua: move one asynq task to pending, as asynq's Inspector.RunTask
-- does (runTaskCmd in internal/rdb/inspect.go, asynq v0.25.1): a scheduled,
-- retry, archived or completed task is ZREMed from its state's set, LPUSHed
-- on the pending list and its hash's state set to "pending". An active or
-- pending task is left alone, as RunTask does; an aggregating task (a
-- group's) is refused. Unlike asynq it checks, before writing, that the task
-- hash holds asynq's "msg" and that the task is in its state's set.
--
-- KEYS[1] the task HASH asynq:{<q>}:t:<id>  KEYS[2] pending LIST
-- KEYS[3] scheduled ZSET  KEYS[4] retry ZSET  KEYS[5] archived ZSET
-- KEYS[6] completed ZSET
-- ARGV[1] the task id
-- Reply   1 moved to pending, 0 no such task, -1 active, -2 already pending,
--         -3 aggregating (a group's: not run here)
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(log N) in its state's set
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
elseif state == 'pending' then
    return -2
elseif state == 'aggregating' then
    return -3
end
local from = ({scheduled = 3, retry = 4, archived = 5, completed = 6})[state]
if not from then
    return redis.error_reply('GHSHAPE 1 task state ' .. string.sub(state, 1, 32))
end
if not redis.call('ZSCORE', KEYS[from], id) then
    return redis.error_reply('GHSHAPE ' .. from .. ' task ' .. string.sub(id, 1, 80)
        .. ' is not in its state\'s set')
end
redis.call('ZREM', KEYS[from], id)
redis.call('LPUSH', KEYS[2], id)
redis.call('HSET', KEYS[1], 'state', 'pending')
return 1
