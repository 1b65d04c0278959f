-- lock_release.lua: release a lock only if it still holds the caller's token.
--
-- KEYS[1]  lock key (STRING, written by SET key token NX PX ttl)
-- ARGV[1]  the token the caller holds (or the one the operator was shown)
-- Reply    1 if the lock was deleted; otherwise the value found instead
--          (nil when the key is gone, the other holder's token when it was
--          taken again after expiring). A plain DEL here could delete a lock
--          that expired and was acquired by someone else.
-- Cost     O(1)
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
    redis.call('DEL', KEYS[1])
    return 1
end
if current == false then
    return nil
end
return current
