-- token_consume.lua: use a one-time token exactly once.
--
-- KEYS[1]  token key
-- Reply    the token's value if this call consumed it; nil if it was gone
--          (expired, revoked, or consumed by someone else first)
-- Cost     O(1)
local value = redis.call('GET', KEYS[1])
if value == false then
    return nil
end
redis.call('DEL', KEYS[1])
return value
