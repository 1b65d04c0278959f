-- queue_requeue.lua: put a stuck job back where consumers take from next,
-- only if it is still in the processing list. One script, conditioned on
-- LREM's result: the job is never duplicated and never lost, whatever a
-- worker's ack does at the same moment.
--
-- KEYS[1]  queue LIST (consumers take from the right end)
-- KEYS[2]  processing LIST
-- KEYS[3]  claims ZSET (may not exist)
-- ARGV[1]  the job
-- Reply    1 if requeued; 0 if it was no longer in processing
-- Cost     O(N) in the processing list's length (LREM)
if redis.call('LREM', KEYS[2], 1, ARGV[1]) == 0 then
    return 0
end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
