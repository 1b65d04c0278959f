-- Seed 000's rolling-window limiter with retry advice, reproduced as the talk
-- shows it, only so tests can demonstrate its flaw (ZADD key ts ts: requests in
-- the same millisecond collide on one member, so the window under-counts and
-- the limiter over-admits). Gatehouse never runs it; see lua/sliding_window.lua.
local rateLimit = 5
local rateKey = KEYS[1]
local retryKey = KEYS[2]
local ts = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', rateKey, '-inf', ts - 1000)
redis.call('ZREMRANGEBYSCORE', retryKey, '-inf', ts)
if redis.call('ZCARD', rateKey) < rateLimit then
    redis.call('ZADD', rateKey, ts, ts)
    return 0;
else
    local interval = 1000 / rateLimit
    local next = ts + interval;
    local last = redis.call('ZRANGE', retryKey, -1, -1, 'WITHSCORES')
    if type(last) == 'table' and #last > 0 then
        next = tonumber(last[#last]) + interval
    end
    redis.call('ZADD', retryKey, next, next);
    return next - ts;
end
