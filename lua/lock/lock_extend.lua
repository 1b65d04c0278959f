-- lock_extend.lua: give a lock a new time to live, only if it still holds
-- the caller's token (or the token the operator was shown). The key is
-- checked before anything is written: a lock is a STRING.
--
-- KEYS[1]  lock key
-- ARGV[1]  expected token
-- ARGV[2]  new time to live in ms (a whole number > 0)
-- ARGV[3]  at most this many bytes of another holder's value in the reply
-- Reply    1 if extended; nil when the key is gone; {value cut to ARGV[3]
--          bytes, its full length} when it holds another value; error
--          "GHTYPE 1 <type> string" when it is not a STRING (nothing written)
-- Cost     O(1)
local ttl = tonumber(ARGV[2])
if not ttl or ttl <= 0 or ttl ~= math.floor(ttl) then
    return redis.error_reply('ERR lock_extend: the time to live must be a whole number > 0')
end
local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'none' then
    return nil
end
if t ~= 'string' then
    return redis.error_reply('GHTYPE 1 ' .. t .. ' string')
end
local length = redis.call('STRLEN', KEYS[1])
if length == #ARGV[1] and redis.call('GET', KEYS[1]) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return 1
end
local cut = tonumber(ARGV[3]) or 256
return {redis.call('GETRANGE', KEYS[1], 0, cut - 1), length}
