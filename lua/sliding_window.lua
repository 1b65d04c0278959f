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
--
-- A rejection only reads the window (ZCOUNT); expired members are trimmed
-- when a request is admitted, the only time the window grows, so it never
-- holds more than twice the limit. Past retry slots are trimmed when a request
-- is rejected (the only time the retry set grows); until then they are
-- harmless: readers count slots after now, and the set expires when idle.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if not limit or limit <= 0 or not window or window <= 0 then
    return redis.error_reply('ERR sliding_window: limit and window must be positive numbers')
end
-- Timestamps go to Redis as strings made once: every Lua number passed to
-- redis.call is formatted with "%.14g", which is slow for 13-digit values.
local now = tonumber(ARGV[3])
local nowS = ARGV[3]
if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    nowS = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
end
local cap = tonumber(ARGV[4]) or 1000
local loS = tostring(now - window)

local count = redis.call('ZCOUNT', KEYS[1], '(' .. loS, '+inf')
if count < limit then
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', loS)
    redis.call('ZADD', KEYS[1], nowS, nowS .. '-' .. count)
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, limit - count - 1, 0, now}
end

redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowS)
local interval = window / limit
local slot = now + interval
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if #last > 0 then
    local lastSlot = tonumber(last[2])
    -- Slots are spaced by interval and trimmed once past, so the future ones
    -- number about (last - now) / interval: the cap needs no ZCARD.
    if lastSlot - now >= cap * interval then
        return {0, 0, math.ceil(lastSlot - now), now} -- capped: the horizon stays
    end
    slot = math.max(slot, lastSlot + interval)
end
-- Slots only grow, so the slot time is a unique member.
local slotS = tostring(slot)
redis.call('ZADD', KEYS[2], slotS, slotS)
redis.call('PEXPIRE', KEYS[2], math.ceil(slot - now) + window)
return {0, 0, math.ceil(slot - now), now}
