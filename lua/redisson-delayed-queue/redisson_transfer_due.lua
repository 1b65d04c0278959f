-- redisson_transfer_due.lua: move the due items of a Redisson RDelayedQueue
-- to its destination queue, as Redisson's own transfer task does
-- (RedissonDelayedQueue.java, Redisson 3.52.0 / 4.7.0, the Lua of
-- QueueTransferTask.pushTaskAsync in the constructor): for each member of
-- the timeout set scored 0..now (at most ARGV[1]), unpack it with
-- struct.unpack('Bc0Lc0') (random id, element), RPUSH the element to the
-- destination, LREM the member from the delay list, then ZREM them all.
-- Items not yet due are never touched. Redisson takes "now" from the client;
-- this script from the server (TIME). Every member is unpacked before the
-- first write, so a member Redisson did not pack writes nothing.
--
-- KEYS[1] the destination LIST <name>
-- KEYS[2] redisson_delay_queue_timeout:{name} ZSET (member -> due time, ms)
-- KEYS[3] redisson_delay_queue:{name} LIST
-- ARGV[1] at most this many items per run (Redisson's task: 100)
-- Reply   {examined, moved, next due time (ms) or false}; errors
--         "GHTYPE <i> <type> <expected>", "GHSHAPE 2 <what>" (nothing written)
-- Cost    O(log N + M) for M items moved (LREM scans the delay list from its
--         head, where the oldest items are)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'zset') or wrongType(3, 'list')
if bad then
    return bad
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[2], 0, now, 'LIMIT', 0, tonumber(ARGV[1]))
local values = {}
for i, v in ipairs(due) do
    local ok, _, value = pcall(struct.unpack, 'Bc0Lc0', v)
    if not ok or type(value) ~= 'string' then
        return redis.error_reply('GHSHAPE 2 member ' .. i .. ' is not packed by Redisson')
    end
    values[i] = value
end
for i, v in ipairs(due) do
    redis.call('RPUSH', KEYS[1], values[i])
    redis.call('LREM', KEYS[3], 1, v)
end
if #due > 0 then
    redis.call('ZREM', KEYS[2], unpack(due))
end
local nextDue = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
return {#due, #due, nextDue[2] or false}
