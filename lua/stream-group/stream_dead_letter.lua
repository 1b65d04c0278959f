-- stream_dead_letter.lua: copy one pending entry of a consumer group to a
-- dead-letter stream and acknowledge it, in one script: never lost (the copy
-- is written before the ack), never doubled (only an entry still pending is
-- copied, and the ack removes it from the PEL).
-- Redis's own semantics (redis.io/commands, Redis 7.0):
--   XPENDING key group id id 1: the entry's PEL record {id, consumer, idle,
--     deliveries}, or none when it is not pending (acked, or never read).
--   XRANGE key id id: the entry's fields (none when it was deleted from the
--     stream while still pending: then there is nothing to copy).
--   XADD dead * field value ...: appends a new entry with those fields.
--   XACK key group id: removes the entry from the group's PEL.
-- Both keys are checked (stream or missing) and the stream must have the
-- group before anything is written; on a mismatch nothing is written.
--
-- KEYS[1]  the stream
-- KEYS[2]  the dead-letter stream (created by XADD when missing)
-- ARGV[1]  the group
-- ARGV[2]  the entry id
-- Reply    {1, the dead-letter entry's id, the consumer that held it,
--          deliveries}: the copy carries the entry's fields, then
--          "dead-letter-id" (the original id), "dead-letter-stream",
--          "dead-letter-group", "dead-letter-consumer", "dead-letter-deliveries";
--          {0} the entry is not pending in the group (nothing written);
--          {-1} the stream does not exist; {-2} it has no such group;
--          {-3} the entry is pending but no longer in the stream;
--          error "GHTYPE <i> <type> stream", or "NOPERM ..." when the
--          user's ACL refuses the XADD or the XACK (nothing written)
-- Cost     O(log N + entry size)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'stream') or wrongType(2, 'stream')
if bad then
    return bad
end
if redis.call('EXISTS', KEYS[1]) == 0 then
    return {-1}
end
local found = false
for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
    if g[2] == ARGV[1] then
        found = true
    end
end
if not found then
    return {-2}
end
local pel = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
if #pel == 0 or pel[1][1] ~= ARGV[2] then
    return {0}
end
local entry = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])
if #entry == 0 then
    return {-3}
end
local fields = {}
for _, v in ipairs(entry[1][2]) do
    fields[#fields + 1] = v
end
for _, kv in ipairs({{'dead-letter-id', ARGV[2]}, {'dead-letter-stream', KEYS[1]},
                     {'dead-letter-group', ARGV[1]}, {'dead-letter-consumer', pel[1][2]},
                     {'dead-letter-deliveries', tostring(pel[1][4])}}) do
    fields[#fields + 1] = kv[1]
    fields[#fields + 1] = kv[2]
end
-- Two writes: a user allowed the copy but not the ack would leave the entry
-- pending and copied. Redis 7.0+ says so before either is made.
if redis.acl_check_cmd then
    if not redis.acl_check_cmd('XADD', KEYS[2], '*', unpack(fields)) then
        return redis.error_reply('NOPERM this user may not run XADD on ' .. KEYS[2])
    end
    if not redis.acl_check_cmd('XACK', KEYS[1], ARGV[1], ARGV[2]) then
        return redis.error_reply('NOPERM this user may not run XACK on ' .. KEYS[1])
    end
end
local id = redis.call('XADD', KEYS[2], '*', unpack(fields))
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
return {1, id, pel[1][2], pel[1][4]}
