-- asynq_task.lua: run, archive or delete one asynq task, as asynq's
-- Inspector.RunTask, ArchiveTask and DeleteTask do (runTaskCmd,
-- archiveTaskCmd and deleteTaskCmd in internal/rdb/inspect.go, asynq
-- v0.25.1). The task leaves its state's list or set (pending: LREM;
-- scheduled, retry, archived, completed: ZREM), then:
--   run      LPUSH on pending, state "pending" (from scheduled, retry,
--            archived or completed; a pending task is left alone)
--   archive  ZADD on archived scored by now (the server's TIME, s), state
--            "archived", and the archive trimmed as asynq trims it: entries
--            older than ARGV[4] s (asynq: 90 days) and beyond the newest
--            ARGV[3] (asynq: 10,000)
--   delete   DEL of its hash. asynq also deletes the task's uniqueness lock
--            when it still holds the task; that key's name is in the hash,
--            not in KEYS, so it is left to expire by its TTL and named in
--            the reply.
-- An active task is refused, as asynq refuses it; an aggregating task (a
-- group's) too. Unlike asynq it checks, before writing, that the task hash
-- holds asynq's "msg" and "state" and that the task is in its state's list
-- or set.
--
-- KEYS[1] the task HASH asynq:{<q>}:t:<id>  KEYS[2] pending LIST
-- KEYS[3] scheduled ZSET  KEYS[4] retry ZSET  KEYS[5] archived ZSET
-- KEYS[6] completed ZSET
-- ARGV[1] "run", "archive" or "delete"; ARGV[2] the task id
-- ARGV[3] max archived tasks; ARGV[4] archive retention (s) (archive only)
-- Reply   1 done (delete: {1, the uniqueness lock's name or ""}), 0 no such
--         task, -1 active, -2 already pending (run) or archived (archive),
--         -3 aggregating
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(N) in pending for a pending task (LPOS, LREM); else O(log N)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'hash') or wrongType(2, 'list') or wrongType(3, 'zset')
    or wrongType(4, 'zset') or wrongType(5, 'zset') or wrongType(6, 'zset')
if bad then
    return bad
end
local verb, id = ARGV[1], ARGV[2]
if verb ~= 'run' and verb ~= 'archive' and verb ~= 'delete' then
    return redis.error_reply('GHSHAPE 0 no such verb ' .. string.sub(verb, 1, 32))
end
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
elseif (verb == 'run' and state == 'pending') or (verb == 'archive' and state == 'archived') then
    return -2
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
if verb == 'run' then
    redis.call('LPUSH', KEYS[2], id)
    redis.call('HSET', KEYS[1], 'state', 'pending')
    return 1
elseif verb == 'archive' then
    local now = tonumber(redis.call('TIME')[1])
    redis.call('ZADD', KEYS[5], now, id)
    redis.call('HSET', KEYS[1], 'state', 'archived')
    redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[4]))
    redis.call('ZREMRANGEBYRANK', KEYS[5], 0, -tonumber(ARGV[3]))
    return 1
end
local unique = redis.call('HGET', KEYS[1], 'unique_key') or ''
redis.call('DEL', KEYS[1])
return {1, unique}
