-- semaphore_tryacquire.lua: Redisson's own script, copied verbatim (only joined from its Java
-- string literals) from redisson/src/main/java/org/redisson/RedissonSemaphore.java,
-- RedissonSemaphore.tryAcquireAsync0, Redisson 3.52.0 (tag redisson-3.52.0; the same in 4.7.0).
-- The test runs it as a Redisson client would (EVAL with the same KEYS and
-- ARGV), since Java (and so Redisson itself) is not installable here.
-- KEYS[1] <name>
-- ARGV[1] permits
local value = redis.call('get', KEYS[1]); if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then local val = redis.call('decrby', KEYS[1], ARGV[1]); return 1; end; return 0;
