-- lock_release.lua: release a lock only if it still holds the caller's token.
-- A plain DEL here could delete a lock that expired and was taken by someone
-- else. The key is checked before anything is written: a lock is a STRING.
--
-- KEYS[1]  lock key (STRING, written by SET key token NX PX ttl)
-- ARGV[1]  the token the caller holds (or the one the operator was shown)
-- ARGV[2]  at most this many bytes of another holder's value in the reply
-- ARGV[3]  "force": delete the key even if it is not a STRING (an operator's
--          confirmed and audited choice); a STRING still needs the token
-- Reply    1 if the lock was deleted; nil when the key is gone;
--          {value cut to ARGV[2] bytes, its full length} when it holds
--          another value; error "GHTYPE 1 <type> string" when the key is not a
--          STRING and ARGV[3] is not "force" (nothing written)
-- Cost     O(1) (the value is compared by length first, read only up to the
--          token's length or ARGV[2] bytes)
local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'none' then
    return nil
end
if t ~= 'string' then
    if ARGV[3] ~= 'force' then
        return redis.error_reply('GHTYPE 1 ' .. t .. ' string')
    end
    redis.call('DEL', KEYS[1])
    return 1
end
local length = redis.call('STRLEN', KEYS[1])
if length == #ARGV[1] and redis.call('GET', KEYS[1]) == ARGV[1] then
    redis.call('DEL', KEYS[1])
    return 1
end
local cut = tonumber(ARGV[2]) or 256
return {redis.call('GETRANGE', KEYS[1], 0, cut - 1), length}
