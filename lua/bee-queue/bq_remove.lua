-- bq_remove.lua: remove one bee-queue job as bee-queue's own Queue#removeJob
-- does (lib/lua/removeJob.lua, bee-queue 2.0.0): LREM it from "waiting" and
-- "active" unless it is in "succeeded" or "failed", SREM it from those and
-- "stalling", HDEL its record from "jobs", ZREM it from "delayed". Unlike the
-- library, refused while the job is in "active" and not stalled (a live
-- worker may be running it: the console would not stop the worker).
--
-- KEYS[1] succeeded SET  KEYS[2] failed SET  KEYS[3] waiting LIST
-- KEYS[4] active LIST  KEYS[5] stalling SET  KEYS[6] jobs HASH (must exist)
-- KEYS[7] delayed ZSET  KEYS[8] stallBlock STRING
-- ARGV[1] the job id
-- Reply   1 removed, -1 active and not stalled, -2 no such job
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(N) in the waiting and active lists' lengths (LPOS, LREM)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'set') or wrongType(2, 'set') or wrongType(3, 'list')
    or wrongType(4, 'list') or wrongType(5, 'set') or wrongType(6, 'hash')
    or wrongType(7, 'zset') or wrongType(8, 'string')
if bad then
    return bad
end
if redis.call('EXISTS', KEYS[6]) == 0 then
    return redis.error_reply('GHSHAPE 6 no jobs hash: not a bee-queue queue')
end
local id = ARGV[1]
if redis.call('HEXISTS', KEYS[6], id) == 0 then
    return -2
end
local finished = redis.call('SISMEMBER', KEYS[1], id) + redis.call('SISMEMBER', KEYS[2], id)
if finished == 0 then
    if redis.call('LPOS', KEYS[4], id) then
        local stalled = redis.call('EXISTS', KEYS[8]) == 0
            and redis.call('SISMEMBER', KEYS[5], id) == 1
        if not stalled then
            return -1
        end
    end
    redis.call('LREM', KEYS[3], 0, id)
    redis.call('LREM', KEYS[4], 0, id)
end
redis.call('SREM', KEYS[1], id)
redis.call('SREM', KEYS[2], id)
redis.call('SREM', KEYS[5], id)
redis.call('HDEL', KEYS[6], id)
redis.call('ZREM', KEYS[7], id)
return 1
