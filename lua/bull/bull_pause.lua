-- bull_pause.lua: pause or resume a Bull 3/4 queue globally as Bull's own
-- pause does (lib/commands/pause-5.lua, bull 4.16.5; Queue#pause(false)):
-- RENAME wait to paused (resume: paused to wait), SET "meta-paused" 1 (resume:
-- DEL), HSET (HDEL) "paused" in the "meta" hash as Bull does for BullMQ's
-- sake, and PUBLISH "paused" ("resumed") on "<prefix>paused" ("resumed").
-- Unlike Bull it refuses when the list it would RENAME over holds jobs
-- (RENAME would drop them), and does nothing when already so.
--
-- KEYS[1] wait LIST  KEYS[2] paused LIST  KEYS[3] meta-paused STRING
-- KEYS[4] meta HASH
-- ARGV[1] "paused" or "resumed"; ARGV[2] the queue's key prefix ("bull:emails:")
-- Reply   1 done, 0 already paused (resumed), -3 both lists hold jobs
--         errors "GHTYPE <i> <type> <expected>" (nothing written)
-- Cost    O(1)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'list') or wrongType(3, 'string')
    or wrongType(4, 'hash')
if bad then
    return bad
end
local pausing = ARGV[1] == 'paused'
if pausing == (redis.call('EXISTS', KEYS[3]) == 1) then
    return 0
end
local src, dst = KEYS[1], KEYS[2]
if not pausing then
    src, dst = KEYS[2], KEYS[1]
end
if redis.call('EXISTS', src) == 1 then
    if redis.call('EXISTS', dst) == 1 then
        return -3
    end
    redis.call('RENAME', src, dst)
end
if pausing then
    redis.call('SET', KEYS[3], 1)
    redis.call('HSET', KEYS[4], 'paused', 1)
else
    redis.call('DEL', KEYS[3])
    redis.call('HDEL', KEYS[4], 'paused')
end
redis.call('PUBLISH', ARGV[2] .. ARGV[1], ARGV[1])
return 1
