-- rlock_unlock.lua: Redisson's own script, copied verbatim (only joined from its Java
-- string literals) from redisson/src/main/java/org/redisson/RedissonLock.java,
-- RedissonLock.unlockInnerAsync, Redisson 3.52.0 (tag redisson-3.52.0; the same in 4.7.0).
-- The test runs it as a Redisson client would (EVAL with the same KEYS and
-- ARGV), since Java (and so Redisson itself) is not installable here.
-- KEYS[1] <name>, KEYS[2] redisson_lock__channel:{name}, KEYS[3] redisson_unlock_latch:{name}:<requestId>
-- ARGV[1] 0 (LockPubSub.UNLOCK_MESSAGE), ARGV[2] internalLockLeaseTime, ARGV[3] "<uuid>:<threadId>", ARGV[4] "publish", ARGV[5] latch timeout (ms)
local val = redis.call('get', KEYS[3]); if val ~= false then return tonumber(val);end; if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil;end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); redis.call('set', KEYS[3], 0, 'px', ARGV[5]); return 0; else redis.call('del', KEYS[1]); redis.call(ARGV[4], KEYS[2], ARGV[1]); redis.call('set', KEYS[3], 1, 'px', ARGV[5]); return 1; end; 
