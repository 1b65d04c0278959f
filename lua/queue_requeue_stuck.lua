-- queue_requeue_stuck.lua: requeue jobs claimed longer ago than a threshold,
-- a bounded number per call (the caller loops; the server is never blocked
-- for long).
--
-- KEYS[1]  queue LIST
-- KEYS[2]  processing LIST
-- KEYS[3]  claims ZSET: member = job, score = claim time in ms
-- ARGV[1]  threshold in ms: claimed before now - threshold is stuck
-- ARGV[2]  at most this many jobs per call
-- ARGV[3]  now in ms, or "" for the server's TIME
-- Reply    the jobs requeued (claims of jobs no longer in processing are
--          dropped, not requeued)
-- Cost     O(K * N): K <= ARGV[2] jobs, LREM over the processing list
local threshold = tonumber(ARGV[1])
local most = tonumber(ARGV[2])
if not threshold or not most or most <= 0 then
    return redis.error_reply('ERR queue_requeue_stuck: threshold and count must be numbers')
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
        requeued[#requeued + 1] = job
    end
    redis.call('ZREM', KEYS[3], job)
end
return requeued
