-- asynq_archive.lua: archive one asynq task, as asynq's Inspector.ArchiveTask
-- does (archiveTaskCmd in internal/rdb/inspect.go, asynq v0.25.1): the task
-- leaves its state's list or set (pending: LREM; scheduled, retry,
-- completed: ZREM), is ZADDed to archived scored by now (the server's TIME,
-- s), its hash's state set to "archived", and the archive trimmed as asynq
-- trims it: entries older than ARGV[3] s (asynq: 90 days) and beyond the
-- newest ARGV[2] (asynq: 10,000). An active task is refused, as asynq does;
-- an aggregating task (a group's) too. Unlike asynq it checks, before
-- writing, that the task hash holds asynq's "msg" and that the task is in
-- its state's list or set.
--
-- KEYS[1] the task HASH asynq:{<q>}:t:<id>  KEYS[2] archived ZSET
-- KEYS[3] pending LIST  KEYS[4] scheduled ZSET  KEYS[5] retry ZSET
-- KEYS[6] completed ZSET
-- ARGV[1] the task id; ARGV[2] max archived tasks; ARGV[3] archive retention (s)
-- Reply   1 archived, 0 no such task, -1 already archived, -2 active,
--         -3 aggregating
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(N) in pending for a pending task (LPOS, LREM); else O(log N)
local function wrongType(i, want)
    local t = redis.call('TYPE', KEYS[i])['ok']
    if t ~= 'none' and t ~= want then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. want)
    end
end
local bad = wrongType(1, 'hash') or wrongType(2, 'zset') or wrongType(3, 'list')
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
    return -2
elseif state == 'archived' then
    return -1
elseif state == 'aggregating' then
    return -3
end
local from = ({pending = 3, scheduled = 4, retry = 5, completed = 6})[state]
if not from then
    return redis.error_reply('GHSHAPE 1 task state ' .. string.sub(state, 1, 32))
end
local there
if from == 3 then
    there = redis.call('LPOS', KEYS[3], id)
else
    there = redis.call('ZSCORE', KEYS[from], id)
end
if not there then
    return redis.error_reply('GHSHAPE ' .. from .. ' task ' .. string.sub(id, 1, 80)
        .. ' is not in its state\'s list or set')
end
if from == 3 then
    redis.call('LREM', KEYS[3], 1, id)
else
    redis.call('ZREM', KEYS[from], id)
end
local now = tonumber(redis.call('TIME')[1])
redis.call('ZADD', KEYS[2], now, id)
redis.call('HSET', KEYS[1], 'state', 'archived')
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[2]))
return 1
