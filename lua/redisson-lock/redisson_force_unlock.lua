-- redisson_force_unlock.lua: unlock a Redisson lock the way Redisson's own
-- forceUnlock does for the kind of lock it is (Redisson 3.52.0 / 4.7.0,
-- the Lua in forceUnlockAsync of):
--   RedissonLock.java       DEL the HASH; PUBLISH 0 (LockPubSub.UNLOCK_MESSAGE)
--                           on redisson_lock__channel:{name}
--   RedissonFairLock.java   drop stale waiters from the queue head (timeout
--                           passed), DEL, PUBLISH 0 on
--                           redisson_lock__channel:{name}:<next waiter>
--   RedissonReadLock.java   mode "read": DEL, PUBLISH 0 on redisson_rwlock:{name}
--   RedissonWriteLock.java  mode "write": DEL, PUBLISH 1
--                           (LockPubSub.READ_UNLOCK_MESSAGE) on the same channel
-- so the waiters Redisson parked on those channels retry at once. Unless
-- forced, only while the holder the operator was shown still holds it.
-- Redisson's scripts take the time from the client; this one from the
-- server (TIME). A plain RLock never has a queue, so a queue means a fair lock.
--
-- KEYS[1] the lock HASH <name>            KEYS[2] redisson_lock__channel:{name}
-- KEYS[3] redisson_lock_queue:{name} LIST KEYS[4] redisson_lock_timeout:{name} ZSET
-- KEYS[5] redisson_rwlock:{name}          (KEYS[2] and KEYS[5] are channels)
-- ARGV[1] the holder field shown ("<uuid>:<threadId>", ":write" for a writer)
-- ARGV[2] "force": unlock whoever holds it (Redisson's forceUnlock exactly)
-- Reply   1 unlocked; nil when the lock is free; -1 when ARGV[1] no longer
--         holds it (nothing written); errors "GHTYPE <i> <type> <expected>",
--         "GHSHAPE 1 <what>" (nothing written)
-- Cost    O(1) plus the stale waiters dropped, at most 1000 per run
--#include shared/key_types.part.lua
local bad = wrongType(1, 'hash') or wrongType(3, 'list') or wrongType(4, 'zset')
if bad then
    return bad
end
if redis.call('EXISTS', KEYS[1]) == 0 then
    return nil
end
local mode = redis.call('HGET', KEYS[1], 'mode')
if mode and mode ~= 'read' and mode ~= 'write' then
    return redis.error_reply('GHSHAPE 1 mode is neither read nor write')
end
if ARGV[2] ~= 'force' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
    return -1
end

if mode == 'read' then
    redis.call('DEL', KEYS[1])
    redis.call('PUBLISH', KEYS[5], 0)
    return 1
end
if mode == 'write' then
    redis.call('DEL', KEYS[1])
    redis.call('PUBLISH', KEYS[5], 1)
    return 1
end

-- RedissonFairLock: "remove stale threads" from the head of the queue.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _ = 1, 1000 do
    local first = redis.call('LINDEX', KEYS[3], 0)
    if not first then
        break
    end
    local timeout = redis.call('ZSCORE', KEYS[4], first)
    if timeout and tonumber(timeout) <= now then
        redis.call('ZREM', KEYS[4], first)
        redis.call('LPOP', KEYS[3])
    else
        break
    end
end
redis.call('DEL', KEYS[1])
local nextWaiter = redis.call('LINDEX', KEYS[3], 0)
if nextWaiter then
    redis.call('PUBLISH', KEYS[2] .. ':' .. nextWaiter, 0)
else
    redis.call('PUBLISH', KEYS[2], 0)
end
return 1
