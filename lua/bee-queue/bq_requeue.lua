-- bq_requeue.lua: put stalled bee-queue jobs back on "waiting" as bee-queue's
-- own stall check does (lib/lua/checkStalledJobs.lua, bee-queue 2.0.0): a job
-- is stalled when it is still in "stalling" (what "active" held at the last
-- check) after "stallBlock" (SET NX PX stallInterval by that check) has
-- expired, so its worker did not remove it for a whole interval; it is
-- LREMed from "active" and LPUSHed to "waiting" (only when LREM removed it),
-- and leaves "stalling". Refused while "stallBlock" exists: the jobs in
-- "stalling" may still be renewed. Unlike the library's check it does not
-- start a new check (no stallBlock, no copy of "active"): the workers' next
-- check does that.
--
-- KEYS[1] waiting LIST  KEYS[2] active LIST  KEYS[3] stalling SET
-- KEYS[4] stallBlock STRING  KEYS[5] jobs HASH (must exist: bee-queue's record)
-- ARGV[1] a job id, or "" for every stalled job; ARGV[2] batch (jobs per run)
-- ARGV[3] cut (bytes of an id echoed)
-- Reply   one job: 1 requeued, 0 not stalled (renewed, or not active),
--         -2 no such job, -3 a stall check ran less than a stall interval ago;
--         all: {examined, requeued, id...}
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(batch * N) in the active list's length (LREM), as the library's check
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'list') or wrongType(3, 'set')
    or wrongType(4, 'string') or wrongType(5, 'hash')
if bad then
    return bad
end
if redis.call('EXISTS', KEYS[5]) == 0 then
    return redis.error_reply('GHSHAPE 5 no jobs hash: not a bee-queue queue')
end
local cut = tonumber(ARGV[3])
local function requeue(id)
    local removed = redis.call('LREM', KEYS[2], 0, id)
    redis.call('SREM', KEYS[3], id)
    if removed > 0 then
        redis.call('LPUSH', KEYS[1], id)
        return 1
    end
    return 0
end
local id = ARGV[1]
if id ~= '' then
    if redis.call('HEXISTS', KEYS[5], id) == 0 then
        return -2
    end
    if redis.call('EXISTS', KEYS[4]) == 1 then
        return -3
    end
    if redis.call('SISMEMBER', KEYS[3], id) == 0 then
        return 0
    end
    return requeue(id)
end
if redis.call('EXISTS', KEYS[4]) == 1 then
    return {0, 0}
end
local batch = tonumber(ARGV[2])
local ids = redis.call('SRANDMEMBER', KEYS[3], batch)
local done = {}
for _, member in ipairs(ids) do
    if requeue(member) == 1 then
        done[#done + 1] = string.sub(member, 1, cut)
    end
end
local reply = {#ids, #done}
for _, d in ipairs(done) do
    reply[#reply + 1] = d
end
return reply
