-- queue_dead_letter.lua: move a job from the processing list to a dead-letter
-- list, only if it is still being processed (never duplicated, never lost).
--
-- KEYS[1]  processing LIST
-- KEYS[2]  dead-letter LIST (newest at the left)
-- KEYS[3]  claims ZSET (may not exist)
-- ARGV[1]  the job
-- Reply    1 if moved; 0 if it was no longer in processing
-- Cost     O(N) in the processing list's length (LREM)
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
    return 0
end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
