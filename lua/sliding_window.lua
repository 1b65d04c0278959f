-- sliding_window.lua: admit or reject one request against a rolling window,
-- with seed 000's retry horizon, done right.
--
-- KEYS[1]  window ZSET: one member per admitted request, score = time in ms
-- KEYS[2]  retry ZSET: future retry slots, score = slot time in ms; its last
--          score is the horizon a rejected client is told to wait for
-- ARGV[1]  limit: requests admitted per window (> 0)
-- ARGV[2]  window length in ms (> 0)
-- ARGV[3]  now in ms, or "" to use the server's TIME (tests pass a time)
-- ARGV[4]  cap on retry slots kept (default 1000); the horizon stops growing there
-- Reply    {admitted (1|0), remaining in window, retry-after ms (0 if admitted),
--           the time used in ms}
-- Cost     O(log N + M): N members, M expired members removed
--
-- Fixes against the seed: members are unique (time plus the in-window count,
-- which only grows within one ms), so a same-millisecond burst is counted in
-- full; the retry set is trimmed and capped; both keys expire when idle.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if not limit or limit <= 0 or not window or window <= 0 then
    return redis.error_reply('ERR sliding_window: limit and window must be positive numbers')
end
local now = tonumber(ARGV[3])
if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local cap = tonumber(ARGV[4]) or 1000

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local count = redis.call('ZCARD', KEYS[1])

if count < limit then
    redis.call('ZADD', KEYS[1], now, now .. '-' .. count)
    redis.call('PEXPIRE', KEYS[1], window)
    return {1, limit - count - 1, 0, now}
end

local interval = window / limit
local slot = now + interval
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if #last > 0 then
    slot = math.max(slot, tonumber(last[2]) + interval)
end
local slots = redis.call('ZCARD', KEYS[2])
if slots < cap then
    redis.call('ZADD', KEYS[2], slot, string.format('%.3f', slot) .. '-' .. slots)
elseif #last > 0 then
    slot = tonumber(last[2]) -- capped: the horizon stays where it is
end
redis.call('PEXPIRE', KEYS[2], math.ceil(slot - now) + window)
return {0, 0, math.ceil(slot - now), now}
