-- sliding_window.lua: admit or reject one request against a rolling window,
-- with seed 000's retry horizon, done right.
--
-- KEYS[1]  window ZSET: one member per admitted request, score = time in ms
-- KEYS[2]  retry ZSET: retry slots, member and score = slot time in ms; its
--          last score is the horizon a rejected client is told to wait for
--          (past slots linger until the next trim, see below)
-- ARGV[1]  limit: requests admitted per window (> 0)
-- ARGV[2]  window length in ms (> 0)
-- ARGV[3]  now in ms, or "" to use the server's TIME (tests pass a time)
-- ARGV[4]  cap on retry slots kept (default 1000); the horizon stops growing there
-- Reply    one integer: n >= 0 admitted, n more requests fit in the window
--           now; n < 0 rejected, retry after -n ms (at least 1)
-- Cost     O(log N + M): N members, M expired members removed
--
-- The reply is one integer, as the seed's is: turning a table into a reply
-- costs the server about a tenth of a decision more.
--
-- Fixes against the seed: members are unique (time plus the in-window count,
-- which only grows within one ms), so a same-millisecond burst is counted in
-- full; the retry set is trimmed and capped; both keys expire when idle.
--
-- A rejection only reads the window (ZCOUNT); expired members are trimmed
-- when a request is admitted, the only time the window grows, so it never
-- holds more than twice the limit.
--
-- The retry set is kept up once per window-length period of slot times, not
-- on every rejection: when a new slot falls in another period than the last
-- one (floor(slot / window) differs), past slots are trimmed and the key's
-- expiry moved to the end of the period after the slot's, which is at least
-- slot + window. Until then neither is needed: the expiry set for the period
-- already covers every slot in it, and past slots are harmless: readers count
-- slots after now. A period holds at most limit + 1 slots (they are an
-- interval apart), so the set never holds more than cap + limit + 1. A
-- rejection thus makes three calls, five once per period.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if not limit or limit <= 0 or not window or window <= 0 then
    return redis.error_reply('ERR sliding_window: limit and window must be positive numbers')
end
-- Timestamps go to Redis as strings made once, whole ones with "%d": a Lua
-- number passed to redis.call or tostring() is formatted as a double ("%.17g"
-- or "%.14g"), which is slow for 13-digit values.
local function str(x)
    if x == math.floor(x) and x > -2 ^ 53 and x < 2 ^ 53 then
        return string.format('%d', x)
    end
    return tostring(x)
end
local now = tonumber(ARGV[3])
local nowS = ARGV[3]
if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    nowS = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
end
local cap = tonumber(ARGV[4]) or 1000
local loS = str(now - window)

local count = redis.call('ZCOUNT', KEYS[1], '(' .. loS, '+inf')
if count < limit then
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', loS)
    redis.call('ZADD', KEYS[1], nowS, nowS .. '-' .. count)
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return limit - count - 1
end

local interval = window / limit
local slot = now + interval
-- The members are the slot times (the score as a string), so the last one is
-- read without WITHSCORES, which would format its score as a double.
local last = redis.call('ZRANGE', KEYS[2], -1, -1)
local lastPeriod
if #last > 0 then
    local lastSlot = tonumber(last[1])
    if not lastSlot then -- a member written by something else
        lastSlot = tonumber(redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2])
    end
    -- Slots are spaced by interval and trimmed once past, so the future ones
    -- number about (last - now) / interval: the cap needs no ZCARD.
    if lastSlot - now >= cap * interval then
        return -math.max(1, math.ceil(lastSlot - now)) -- capped: the horizon stays
    end
    slot = math.max(slot, lastSlot + interval)
    lastPeriod = math.floor(lastSlot / window)
end
-- Slots only grow, so the slot time is a unique member.
local slotS = str(slot)
redis.call('ZADD', KEYS[2], slotS, slotS)
local period = math.floor(slot / window)
if period ~= lastPeriod then
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowS)
    redis.call('PEXPIRE', KEYS[2], (period + 2) * window - now)
end
return -math.ceil(slot - now)
