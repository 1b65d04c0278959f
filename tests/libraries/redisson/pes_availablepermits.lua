-- pes_availablepermits.lua: Redisson's own script, copied verbatim (only joined from its Java
-- string literals) from redisson/src/main/java/org/redisson/RedissonPermitExpirableSemaphore.java,
-- RedissonPermitExpirableSemaphore.availablePermitsAsync, Redisson 3.52.0 (tag redisson-3.52.0; the same in 4.7.0).
-- The test runs it as a Redisson client would (EVAL with the same KEYS and
-- ARGV), since Java (and so Redisson itself) is not installable here.
-- KEYS[1] <name>, KEYS[2] {name}:timeout, KEYS[3] redisson_sc:{name}
-- ARGV[1] the client's time (ms), ARGV[2] "publish"
local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1); if #expiredIds > 0 then redis.call('zrem', KEYS[2], unpack(expiredIds)); local value = redis.call('incrby', KEYS[1], #expiredIds); if tonumber(value) > 0 then redis.call(ARGV[2], KEYS[3], value); end;return value; end; local ret = redis.call('get', KEYS[1]); return ret == false and 0 or ret;
