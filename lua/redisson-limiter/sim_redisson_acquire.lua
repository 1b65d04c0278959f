-- sim_redisson_acquire.lua: the simulator's stand-in for a Redisson client's
-- RRateLimiter.tryAcquire, writing Redisson's layout (seed 001) so Gatehouse's
-- read-only Redisson unit has something real to read. Not an operator action.
--
-- KEYS[1]  config HASH (rate, interval in ms, type 0 = OVERALL)
-- KEYS[2]  {name}:value STRING: permits left
-- KEYS[3]  {name}:permits ZSET: grants scored by time in ms,
--          member = struct.pack('fI', random, permits)
-- ARGV[1]  rate (permits per interval)   ARGV[2]  interval in ms
-- ARGV[3]  permits wanted                ARGV[4]  a random number in [0, 1)
-- Reply    nil if granted; otherwise ms until enough permits free up
-- Cost     O(log N + M): M expired grants released
redis.call('HSETNX', KEYS[1], 'rate', ARGV[1])
redis.call('HSETNX', KEYS[1], 'interval', ARGV[2])
redis.call('HSETNX', KEYS[1], 'type', '0')
local rate = tonumber(redis.call('HGET', KEYS[1], 'rate'))
local interval = tonumber(redis.call('HGET', KEYS[1], 'interval'))
local wanted = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local value = redis.call('GET', KEYS[2])
if value == false then
    value = rate
else
    value = tonumber(value)
    local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - interval)
    local released = 0
    for _, grant in ipairs(expired) do
        local _, permits = struct.unpack('fI', grant)
        released = released + permits
    end
    if released > 0 then
        redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - interval)
        value = math.min(rate, value + released)
    end
end
if value < wanted then
    redis.call('SET', KEYS[2], value)
    local oldest = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
    if #oldest == 0 then
        return interval
    end
    return math.max(0, tonumber(oldest[2]) + interval - now)
end
redis.call('ZADD', KEYS[3], now, struct.pack('fI', tonumber(ARGV[4]), wanted))
redis.call('SET', KEYS[2], value - wanted)
return nil
