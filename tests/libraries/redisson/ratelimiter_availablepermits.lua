-- ratelimiter_availablepermits.lua: Redisson's own script, copied verbatim (only joined from its Java
-- string literals) from redisson/src/main/java/org/redisson/RedissonRateLimiter.java,
-- RedissonRateLimiter.availablePermitsAsync, Redisson's main branch at commit 015da157fdaf.
-- The test runs it as a Redisson client would (EVAL with the same KEYS and
-- ARGV), since Java (and so Redisson itself) is not installable here.
-- KEYS[1] <name> (the config hash), KEYS[2] {<name>}:value, KEYS[3] {<name>}:value:<client id>,
-- KEYS[4] {<name>}:permits, KEYS[5] {<name>}:permits:<client id> (RedissonObject.suffixName)
-- ARGV[1] the client's time (ms)
local rate = redis.call('hget', KEYS[1], 'rate');local interval = redis.call('hget', KEYS[1], 'interval');local type = redis.call('hget', KEYS[1], 'type');assert(rate ~= false and interval ~= false and type ~= false, 'RateLimiter is not initialized')local valueName = KEYS[2];local permitsName = KEYS[4];if type == '1' then valueName = KEYS[3];permitsName = KEYS[5];end;local currentValue = redis.call('get', valueName); if currentValue == false then redis.call('set', valueName, rate); return rate; else local expiredValues = redis.call('zrangebyscore', permitsName, 0, tonumber(ARGV[1]) - interval); local released = 0; for i, v in ipairs(expiredValues) do local random, permits = struct.unpack('Bc0I', v);released = released + permits;end; if released > 0 then redis.call('zremrangebyscore', permitsName, 0, tonumber(ARGV[1]) - interval); currentValue = tonumber(currentValue) + released; redis.call('set', valueName, currentValue);end;return currentValue; end;
