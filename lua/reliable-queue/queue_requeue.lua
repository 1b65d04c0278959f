-- queue_requeue.lua: put a stuck job back where consumers take from next,
-- only if it is still in the processing list. Every key it writes is checked
-- before the first write (Redis does not roll a script back): on a wrong type
-- nothing is written and the reply says which key has which type. Then one
-- LREM conditioned on LPOS: never duplicated, never lost, whatever a worker's
-- ack does at the same moment.
--
-- KEYS[1]  queue LIST (consumers take from the right end)
-- KEYS[2]  processing LIST
-- KEYS[3]  claims ZSET (may not exist)
-- ARGV[1]  the job
-- Reply    1 if requeued; 0 if it was no longer in processing; -1 if
--          neither list exists (no such queue, nothing in flight);
--          error "GHTYPE <i> <type> <expected>" if KEYS[i] has another type
--          (nothing written)
-- Cost     O(N) in the processing list's length (LPOS, LREM)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'list') or wrongType(3, 'zset')
if bad then
    return bad
end
if not redis.call('LPOS', KEYS[2], ARGV[1]) then
    if redis.call('EXISTS', KEYS[1], KEYS[2]) == 0 then
        return -1
    end
    return 0
end
redis.call('LREM', KEYS[2], 1, ARGV[1])
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
