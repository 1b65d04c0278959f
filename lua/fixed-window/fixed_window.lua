-- fixed_window.lua: seed 002's fixed-window counter, atomic.
--
-- KEYS[1]  counter STRING
-- ARGV[1]  limit per window
-- ARGV[2]  window length in ms
-- Reply    {admitted (1|0), count, ms until the window resets}
-- Cost     O(1)
--
-- The expiry is set on the first hit, and again if the key somehow has none
-- (a counter without a TTL would block its caller forever).
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if not limit or not window or window <= 0 then
    return redis.error_reply('ERR fixed_window: limit and window must be numbers')
end
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
    redis.call('PEXPIRE', KEYS[1], window)
    ttl = window
end
if count > limit then
    return {0, count, ttl}
end
return {1, count, ttl}
