-- semaphore_acquire.lua: take one slot of a counting semaphore kept as a
-- sorted set of holders, or be told it is full. What a well-behaved client
-- runs (and Gatehouse's simulator, demo and tests). Holders older than the
-- timeout are expired: they are trimmed before counting and never count.
-- The limit comes from the caller (the profile), not from Redis.
--
-- KEYS[1]  semaphore ZSET: member = holder id, score = acquire time in ms
--          (the server's TIME)
-- ARGV[1]  holder id (unique per client)
-- ARGV[2]  limit: holders at once (a whole number >= 0)
-- ARGV[3]  timeout in ms (a whole number > 0): a holder whose score is
--          <= now - timeout has expired
-- Reply    {1, holders} when acquired, or when ARGV[1] already holds a slot
--          (its score, and so its timeout, is left as it was);
--          {0, holders} when full; holders counts the live holders after the
--          call (including ARGV[1] if it holds). The holder id is not echoed.
--          Error "GHTYPE 1 <type> zset" when the key is not a ZSET, error
--          "ERR semaphore_acquire: ..." on a bad limit or timeout (nothing
--          written either way)
-- Cost     O(log N + M): N holders, M expired holders removed
--
-- TIME before a write is allowed: Redis 7 replicates a script's effects, not
-- the script. The key expires after twice the timeout without an
-- acquisition, so an abandoned semaphore vanishes.
local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'none' and t ~= 'zset' then
    return redis.error_reply('GHTYPE 1 ' .. t .. ' zset')
end
local limit = tonumber(ARGV[2])
local timeout = tonumber(ARGV[3])
if not limit or limit < 0 or limit ~= math.floor(limit)
        or not timeout or timeout <= 0 or timeout ~= math.floor(timeout) then
    return redis.error_reply('ERR semaphore_acquire: the limit must be a whole number >= 0 '
                             .. 'and the timeout a whole number of ms > 0')
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - timeout)
local holders = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return {1, holders}
end
if holders >= limit then
    return {0, holders}
end
redis.call('ZADD', KEYS[1], 'NX', now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], timeout * 2)
return {1, holders + 1}
