-- queue_requeue_stuck.lua: requeue jobs claimed longer ago than a threshold,
-- a bounded number per call (the caller loops; the server is never blocked
-- for long). Every key it writes is checked before the first write: on a
-- wrong type nothing is written and the reply says which key has which type.
--
-- KEYS[1]  queue LIST
-- KEYS[2]  processing LIST
-- KEYS[3]  claims ZSET: member = job, score = claim time in ms
-- ARGV[1]  threshold in ms: claimed before now - threshold is stuck
-- ARGV[2]  at most this many jobs per call
-- ARGV[3]  now in ms, or "" for the server's TIME
-- ARGV[4]  at most this many bytes of each job in the reply (0: whole jobs)
-- Reply    {claims examined, jobs requeued, the requeued jobs (each cut to
--          ARGV[4] bytes)}; claims of jobs no longer in processing are
--          dropped, not requeued. Error "GHTYPE <i> <type> <expected>"
--          (nothing written), or "ERR ..." for bad arguments.
-- Cost     O(K * N): K <= ARGV[2] jobs, LPOS/LREM over the processing list
local threshold = tonumber(ARGV[1])
local most = tonumber(ARGV[2])
local cut = tonumber(ARGV[4]) or 0
if not threshold or not most or most <= 0 then
    return redis.error_reply('ERR queue_requeue_stuck: threshold and count must be numbers')
end
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'list') or wrongType(3, 'zset')
if bad then
    return bad
end
local now = tonumber(ARGV[3])
if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local stuck = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - threshold, 'LIMIT', 0, most)
local requeued = {}
for _, job in ipairs(stuck) do
    if redis.call('LREM', KEYS[2], 1, job) > 0 then
        redis.call('RPUSH', KEYS[1], job)
        if cut > 0 and #job > cut then
            requeued[#requeued + 1] = string.sub(job, 1, cut)
        else
            requeued[#requeued + 1] = job
        end
    end
    redis.call('ZREM', KEYS[3], job)
end
return {#stuck, #requeued, requeued}
