-- limits_reset.lua: reset one Python `limits` rate limit the way the
-- library's own RedisStorage.clear() does (limits 2.8,
-- limits/storage/redis.py: `connection.delete(key)`), after checking that the
-- key is still what the console showed: a key of the library's namespace
-- whose name ends in amount/multiples/granularity (RateLimitItem.key_for in
-- limits/limits.py), holding a whole-number counter (fixed window,
-- incr_expire.lua) or a list of hit times in epoch seconds (moving window,
-- acquire_moving_window.lua), with a TTL (the library always sets EXPIRE).
-- Every check comes before the only write (DEL).
--
-- KEYS[1]  the limit's key: LIMITER/<identifiers...>/<amount>/<multiples>/<granularity>
-- ARGV[1]  the type the console showed: "string" (fixed window), "list"
--          (moving window), or "" when it showed none (either is accepted)
-- Reply    the number of keys deleted (1, or 0 when the key is gone: nothing
--          written); error "GHTYPE 1 <type> string|list" or "GHSHAPE 1 <what
--          was found>" (nothing written)
-- Cost     O(1) checks; O(N) DEL of a list of at most the limit's amount
local key = KEYS[1]
local amount, multiples, granularity = string.match(key, '/([1-9]%d*)/([1-9]%d*)/(%a+)$')
local granularities = {second = 1, minute = 1, hour = 1, day = 1, month = 1, year = 1}
if string.sub(key, 1, 8) ~= 'LIMITER/' or not amount or not granularities[granularity] then
    return redis.error_reply('GHSHAPE 1 the name does not end in amount/multiples/granularity')
end
local want = ARGV[1] or ''
local t = redis.call('TYPE', key)['ok']
if t == 'none' then
    return 0
end
if (want ~= '' and t ~= want) or (t ~= 'string' and t ~= 'list') then
    return redis.error_reply('GHTYPE 1 ' .. t .. ' ' .. (want ~= '' and want or 'string|list'))
end
if redis.call('PTTL', key) < 0 then
    return redis.error_reply('GHSHAPE 1 the key has no TTL (the library always sets one)')
end
if t == 'string' then
    local v = redis.call('GETRANGE', key, 0, 31)
    if not string.match(v, '^%-?%d+$') then
        return redis.error_reply('GHSHAPE 1 the counter is not a whole number')
    end
else
    for _, at in ipairs({0, -1}) do
        local v = redis.call('LINDEX', key, at)
        local s = v and string.len(v) <= 32 and tonumber(v)
        if not s or s < 1e9 or s > 1e11 then
            return redis.error_reply('GHSHAPE 1 an entry is not a time in epoch seconds')
        end
    end
end
return redis.call('DEL', key)
