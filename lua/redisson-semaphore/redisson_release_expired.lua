-- redisson_release_expired.lua: give the expired permits of a Redisson
-- RPermitExpirableSemaphore back, as Redisson does itself before every
-- acquire and in availablePermits (RedissonPermitExpirableSemaphore.java,
-- Redisson 3.52.0 / 4.7.0, tryAcquireAsync and availablePermitsAsync):
--   expiredIds = ZRANGEBYSCORE timeout 0 now LIMIT ...; ZREM them;
--   value = INCRBY permits #expiredIds; if value > 0 PUBLISH redisson_sc:{name} value
-- One permit (ARGV[1]) only if its lease has ended: a leased permit is its
-- holder's to release. Redisson takes "now" from the client; this script
-- from the server (TIME).
--
-- KEYS[1] the permits STRING <name>   KEYS[2] {name}:timeout ZSET (permit -> lease end, ms)
-- KEYS[3] the channel redisson_sc:{name} (PUBLISH only)
-- ARGV[1] a permit id (its 16 raw bytes), or "" for every expired permit
-- ARGV[2] at most this many permits per run (all)
-- Reply   {examined, given back, permits now available}; one permit:
--         {1, 1, available} given back, {1, 0, "leased"} lease still running,
--         {0, 0, "gone"} not acquired; errors "GHTYPE <i> <type> <expected>",
--         "GHSHAPE 1 <what>" (nothing written)
-- Cost    O(log N) per permit, at most ARGV[2] permits
--#include shared/key_types.part.lua
local bad = wrongType(1, 'string') or wrongType(2, 'zset')
if bad then
    return bad
end
local value = redis.call('GET', KEYS[1])
if value and not tonumber(value) then
    return redis.error_reply('GHSHAPE 1 the permits are not a number')
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local ids
if ARGV[1] ~= '' then
    local lease = redis.call('ZSCORE', KEYS[2], ARGV[1])
    if not lease then
        return {0, 0, 'gone'}
    end
    if tonumber(lease) > now then
        return {1, 0, 'leased'}
    end
    ids = {ARGV[1]}
else
    ids = redis.call('ZRANGEBYSCORE', KEYS[2], 0, now, 'LIMIT', 0, tonumber(ARGV[2]))
    if #ids == 0 then
        return {0, 0, tonumber(value) or 0}
    end
end
redis.call('ZREM', KEYS[2], unpack(ids))
local available = redis.call('INCRBY', KEYS[1], #ids)
if available > 0 then
    redis.call('PUBLISH', KEYS[3], available)
end
return {#ids, #ids, available}
