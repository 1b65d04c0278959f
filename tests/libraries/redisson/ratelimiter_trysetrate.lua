-- ratelimiter_trysetrate.lua: Redisson's own script, copied verbatim (only joined from its Java
-- string literals) from redisson/src/main/java/org/redisson/RedissonRateLimiter.java,
-- RedissonRateLimiter.trySetRateAsync, Redisson's main branch at commit 015da157fdaf.
-- The test runs it as a Redisson client would (EVAL with the same KEYS and
-- ARGV), since Java (and so Redisson itself) is not installable here.
-- KEYS[1] <name> (the config hash)
-- ARGV[1] rate, ARGV[2] interval (ms), ARGV[3] type (0 OVERALL, 1 PER_CLIENT), ARGV[4] keepAliveTime (ms)
redis.call('hsetnx', KEYS[1], 'rate', ARGV[1]);redis.call('hsetnx', KEYS[1], 'interval', ARGV[2]);redis.call('hsetnx', KEYS[1], 'keepAliveTime', ARGV[4]);local res = redis.call('hsetnx', KEYS[1], 'type', ARGV[3]);if res == 1 and tonumber(ARGV[4]) > 0 then redis.call('pexpire', KEYS[1], ARGV[4]); end; return res;
