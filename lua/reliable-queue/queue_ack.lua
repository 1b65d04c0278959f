-- queue_ack.lua: a worker finished a job.
--
-- KEYS[1]  processing LIST
-- KEYS[2]  claims ZSET
-- ARGV[1]  the job
-- Reply    1 if it was in the processing list; 0 if not (requeued or
--          dead-lettered by an operator meanwhile: the worker must know)
-- Cost     O(N) in the processing list's length (LREM)
local removed = redis.call('LREM', KEYS[1], 1, ARGV[1])
if removed > 0 then
    redis.call('ZREM', KEYS[2], ARGV[1])
    return 1
end
return 0
