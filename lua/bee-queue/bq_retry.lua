-- bq_retry.lua: retry failed bee-queue jobs as bee-queue's own Job#retry does
-- (lib/job.js, bee-queue 2.0.0: MULTI SREM failed, LPUSH waiting), only for a
-- job that is in "failed" and still has its record in the "jobs" hash (a
-- worker takes an id without a record and drops it).
--
-- KEYS[1] waiting LIST  KEYS[2] failed SET  KEYS[3] jobs HASH (must exist)
-- ARGV[1] a job id, or "" for every failed job; ARGV[2] batch (jobs per run)
-- ARGV[3] cut (bytes of an id echoed)
-- Reply   one job: 1 retried, 0 not failed, -2 no such job;
--         all: {examined, retried, id...}
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(1) per job
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'set') or wrongType(3, 'hash')
if bad then
    return bad
end
if redis.call('EXISTS', KEYS[3]) == 0 then
    return redis.error_reply('GHSHAPE 3 no jobs hash: not a bee-queue queue')
end
local cut = tonumber(ARGV[3])
local function retry(id)
    if redis.call('HEXISTS', KEYS[3], id) == 0 then
        return -2
    end
    if redis.call('SREM', KEYS[2], id) == 0 then
        return 0
    end
    redis.call('LPUSH', KEYS[1], id)
    return 1
end
local id = ARGV[1]
if id ~= '' then
    return retry(id)
end
local ids = redis.call('SRANDMEMBER', KEYS[2], tonumber(ARGV[2]))
local done = {}
for _, member in ipairs(ids) do
    if retry(member) == 1 then
        done[#done + 1] = string.sub(member, 1, cut)
    end
end
local reply = {#ids, #done}
for _, d in ipairs(done) do
    reply[#reply + 1] = d
end
return reply
