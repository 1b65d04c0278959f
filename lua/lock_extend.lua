-- lock_extend.lua: give a lock a new time to live, only if it still holds
-- the caller's token (or the token the operator was shown).
--
-- KEYS[1]  lock key
-- ARGV[1]  expected token
-- ARGV[2]  new time to live in ms
-- Reply    1 if extended; otherwise what was found (nil: gone; a string: the
--          token of whoever holds it now)
-- Cost     O(1)
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return 1
end
if current == false then
    return nil
end
return current
