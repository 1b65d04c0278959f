-- asynq_pause.lua: pause or unpause an asynq queue, as asynq's
-- Inspector.PauseQueue and UnpauseQueue do (RDB.Pause and RDB.Unpause in
-- internal/rdb/inspect.go, asynq v0.25.1): pause SETs the queue's "paused"
-- key NX to now (epoch s, the server's TIME); unpause DELs it. asynq's
-- dequeue skips a queue while that key exists.
--
-- KEYS[1] the queue's paused STRING asynq:{<q>}:paused
-- ARGV[1] "pause" or "resume"
-- Reply   1 done, 0 already paused (not paused)
--         errors "GHTYPE <i> <type> <expected>" (nothing written)
-- Cost    O(1)
local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'none' and t ~= 'string' then
    return redis.error_reply('GHTYPE 1 ' .. t .. ' string')
end
if ARGV[1] == 'pause' then
    if t == 'string' then
        return 0
    end
    redis.call('SET', KEYS[1], redis.call('TIME')[1])
    return 1
end
return redis.call('DEL', KEYS[1])
