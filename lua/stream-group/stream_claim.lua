-- stream_claim.lua: give pending entries of a consumer group that have been
-- idle at least a threshold to another consumer, a bounded number per call.
-- Redis's own semantics (redis.io/commands, Redis 7.0):
--   XPENDING key group IDLE ms - + count [consumer] (6.2+): the group's
--     pending entries idle at least ms, oldest id first, optionally only one
--     consumer's.
--   XCLAIM key group consumer min-idle-time id...: changes the owner of
--     pending entries still idle at least min-idle-time, resets their idle
--     time and increments their delivery count (as XAUTOCLAIM does); creates
--     the consumer if it does not exist. Since 7.0 an id whose entry was
--     deleted from the stream is removed from the PEL and not returned.
-- The key is checked to be a stream with that group before anything is
-- written; on a mismatch nothing is written.
--
-- KEYS[1]  the stream
-- ARGV[1]  the group
-- ARGV[2]  the consumer that gets the entries
-- ARGV[3]  min idle time in ms
-- ARGV[4]  most entries claimed
-- ARGV[5]  only this consumer's entries ("" any consumer's)
-- ARGV[6]  only this entry id ("" the oldest idle ones)
-- Reply    {examined, claimed, claimed id, ...}: claimed may be less than
--          examined (entries deleted from the stream, dropped from the PEL);
--          {examined, -1, id, ...} run read-only (a dry run): the ids it would
--          claim, nothing written;
--          {-1} the stream does not exist; {-2} it has no such group;
--          error "GHTYPE 1 <type> stream" (nothing written)
-- Cost     O(log N + ARGV[4]) (XPENDING, XCLAIM of at most ARGV[4] ids)
local idle = tonumber(ARGV[3])
local most = tonumber(ARGV[4])
if not idle or not most or most <= 0 or ARGV[2] == '' then
    return redis.error_reply('ERR stream_claim: a consumer, idle ms and count are needed')
end
local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'none' then
    return {-1}
end
if t ~= 'stream' then
    return redis.error_reply('GHTYPE 1 ' .. t .. ' stream')
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
local pending
if ARGV[6] ~= '' then
    pending = redis.call('XPENDING', KEYS[1], ARGV[1], 'IDLE', idle, ARGV[6], ARGV[6], 1)
elseif ARGV[5] ~= '' then
    pending = redis.call('XPENDING', KEYS[1], ARGV[1], 'IDLE', idle, '-', '+', most, ARGV[5])
else
    pending = redis.call('XPENDING', KEYS[1], ARGV[1], 'IDLE', idle, '-', '+', most)
end
if ARGV[6] ~= '' and ARGV[5] ~= '' and pending[1] and pending[1][2] ~= ARGV[5] then
    pending = {}
end
if #pending == 0 then
    return {0, 0}
end
local ids = {}
for _, e in ipairs(pending) do
    ids[#ids + 1] = e[1]
end
local claimed = redis.pcall('XCLAIM', KEYS[1], ARGV[1], ARGV[2], idle, unpack(ids))
if type(claimed) == 'table' and claimed.err then
    -- A dry run (EVAL_RO refuses the write): what it would give, nothing written.
    if string.find(claimed.err, 'read%-only script') then
        return {#ids, -1, unpack(ids)}
    end
    return claimed
end
local reply = {#ids, #claimed}
for _, e in ipairs(claimed) do
    reply[#reply + 1] = e[1]
end
return reply
