-- lock_acquire.lua: take a lock if nobody holds it.
--
-- KEYS[1]  lock key
-- ARGV[1]  the holder's token (random, unique per acquisition)
-- ARGV[2]  time to live in ms
-- Reply    1 if acquired; otherwise the current holder's token
-- Cost     O(1)
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return 1
end
return redis.call('GET', KEYS[1])
