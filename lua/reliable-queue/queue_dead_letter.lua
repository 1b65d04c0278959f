-- queue_dead_letter.lua: move a job from the processing list to a dead-letter
-- list, only if it is still being processed (never duplicated, never lost).
-- Every key it writes is checked before the first write: on a wrong type
-- nothing is written and the reply says which key has which type.
--
-- KEYS[1]  processing LIST
-- KEYS[2]  dead-letter LIST (newest at the left)
-- KEYS[3]  claims ZSET (may not exist)
-- ARGV[1]  the job
-- Reply    1 if moved; 0 if it was no longer in processing; -1 if the
--          processing list does not exist (nothing in flight at all);
--          error "GHTYPE <i> <type> <expected>" (nothing written)
-- Cost     O(N) in the processing list's length (LPOS, LREM)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'list') or wrongType(3, 'zset')
if bad then
    return bad
end
if not redis.call('LPOS', KEYS[1], ARGV[1]) then
    if redis.call('EXISTS', KEYS[1]) == 0 then
        return -1
    end
    return 0
end
redis.call('LREM', KEYS[1], 1, ARGV[1])
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
