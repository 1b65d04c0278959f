-- delayedqueue_offer.lua: Redisson's own script, copied verbatim (only joined from its Java
-- string literals) from redisson/src/main/java/org/redisson/RedissonDelayedQueue.java,
-- RedissonDelayedQueue.offerAsync, Redisson 3.52.0 (tag redisson-3.52.0; the same in 4.7.0).
-- The test runs it as a Redisson client would (EVAL with the same KEYS and
-- ARGV), since Java (and so Redisson itself) is not installable here.
-- KEYS[1] <name> (the destination), KEYS[2] redisson_delay_queue_timeout:{name}, KEYS[3] redisson_delay_queue:{name}, KEYS[4] redisson_delay_queue_channel:{name}
-- ARGV[1] due time (ms), ARGV[2] 8 random bytes, ARGV[3] the encoded element
local value = struct.pack('Bc0Lc0', string.len(ARGV[2]), ARGV[2], string.len(ARGV[3]), ARGV[3]);redis.call('zadd', KEYS[2], ARGV[1], value);redis.call('rpush', KEYS[3], value);local v = redis.call('zrange', KEYS[2], 0, 0); if v[1] == value then redis.call('publish', KEYS[4], ARGV[1]); end;
