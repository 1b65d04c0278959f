-- redis_semaphore_release.lua: the operator's "release one holder" of an npm
-- redis-semaphore 5 Semaphore or MultiSemaphore, as the holder's own
-- release() does it (redis-semaphore 5.8.0: lib/semaphore/release.js
-- `zrem(key, identifier)`; lib/multiSemaphore/release/lua.js ZREM of
-- `identifier_0` .. `identifier_<permits-1>`), after checking that the key is
-- still what the console showed: a sorted set with the TTL every acquire sets
-- (lib/semaphore/acquire/lua.js PEXPIRE), holding the holder with the acquire
-- time shown. A holder that refreshed since (a live process: the refresh
-- re-scores it, lib/semaphore/refresh/lua.js) or released is left alone.
-- Every check comes before the only write (ZREM).
--
-- KEYS[1]  the semaphore ZSET (`semaphore:<key>`): member = identifier (or
--          identifier_<i> per permit of a MultiSemaphore), score = acquire ms
-- ARGV[1]  the holder's identifier
-- ARGV[2]  the acquire time the console showed: a whole number of ms (the
--          score, compared as a number)
-- Reply    {1, "released", permits removed}; {0, "gone"} when the holder is not
--          there (nothing written); {0, "changed", current score} when it holds
--          another score (nothing written). The identifier is not echoed.
--          Error "GHTYPE 1 <type> zset" when the key is not a ZSET; "GHSHAPE 1
--          ..." when it has no TTL or ARGV[1] is not the library's identifier;
--          "ERR redis_semaphore_release: ..." when ARGV[2] is not a whole
--          number (nothing written either way)
-- Cost     O(P log N), P = the holder's permits (at most 10000 looked at)
local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'none' and t ~= 'zset' then
    return redis.error_reply('GHTYPE 1 ' .. t .. ' zset')
end
local shown = #ARGV[2] <= 15 and string.match(ARGV[2], '^%-?%d+$') and tonumber(ARGV[2])
if not shown then
    return redis.error_reply(
        'ERR redis_semaphore_release: the shown score must be a whole number of ms')
end
-- The library's identifiers: a UUID (crypto.randomUUID, lib/Lock.js), with
-- "-<identifierSuffix>" when given; never another holder's member.
local uuid = '^%x%x%x%x%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x'
local rest = string.match(ARGV[1], uuid .. '(.*)$')
if not rest or (rest ~= '' and not string.match(rest, '^%-[^_]+$')) then
    return redis.error_reply('GHSHAPE 1 the holder is not a redis-semaphore identifier')
end
if t == 'none' then
    return {0, 'gone'}
end
if redis.call('PTTL', KEYS[1]) < 0 then
    return redis.error_reply('GHSHAPE 1 the key has no TTL (redis-semaphore always sets one)')
end
local members = {}
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score then
    members[1] = ARGV[1]
else
    -- A MultiSemaphore holder: its permits _0, _1, ... share one score.
    for i = 0, 9999 do
        local s = redis.call('ZSCORE', KEYS[1], ARGV[1] .. '_' .. i)
        if not s then
            break
        end
        if score and s ~= score then
            return {0, 'changed', s}
        end
        score = s
        members[#members + 1] = ARGV[1] .. '_' .. i
    end
end
if not score then
    return {0, 'gone'}
end
if tonumber(score) ~= shown then
    return {0, 'changed', score}
end
redis.call('ZREM', KEYS[1], unpack(members))
return {1, 'released', #members}
