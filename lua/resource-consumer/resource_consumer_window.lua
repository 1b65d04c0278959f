-- resource_consumer_window.lua: seed 003's shared-resource + consumer window,
-- done right: ms precision, ">=" comparisons, both limits checked before
-- either window records the request.
--
-- KEYS[1]  resource window ZSET (hash-tag both keys alike in a cluster,
--          e.g. z:rl:resource:12{12} and z:rl:resource:12:consumer:1{12})
-- KEYS[2]  consumer window ZSET
-- ARGV[1]  resource limit per window
-- ARGV[2]  consumer limit per window
-- ARGV[3]  window length in ms
-- ARGV[4]  now in ms, or "" for the server's TIME
-- Reply    {admitted (1|0), resource remaining, consumer remaining,
--           retry-after ms, "ok" | "resource" | "consumer"}
-- Cost     O(log N + M) on each key
local rlimit = tonumber(ARGV[1])
local climit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
if not rlimit or not climit or not window or window <= 0 then
    return redis.error_reply('ERR resource_consumer_window: limits and window must be numbers')
end
local now = tonumber(ARGV[4])
if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
local rcount = redis.call('ZCARD', KEYS[1])
local ccount = redis.call('ZCARD', KEYS[2])

local function retryAfter(key)
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    if #oldest == 0 then
        return 0
    end
    return math.max(0, math.ceil(tonumber(oldest[2]) + window - now))
end

if rcount >= rlimit then
    return {0, 0, math.max(0, climit - ccount), retryAfter(KEYS[1]), 'resource'}
end
if ccount >= climit then
    return {0, rlimit - rcount, 0, retryAfter(KEYS[2]), 'consumer'}
end
-- Unique per key: the count only grows within one ms.
redis.call('ZADD', KEYS[1], now, now .. '-' .. rcount)
redis.call('ZADD', KEYS[2], now, now .. '-' .. ccount)
redis.call('PEXPIRE', KEYS[1], window)
redis.call('PEXPIRE', KEYS[2], window)
return {1, rlimit - rcount - 1, climit - ccount - 1, 0, 'ok'}
