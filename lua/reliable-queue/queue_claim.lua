-- queue_claim.lua: a worker takes the next job, and the claim time is
-- recorded in the same step so stuck jobs have a real age.
--
-- KEYS[1]  queue LIST (producers LPUSH; the next job is at the right end)
-- KEYS[2]  processing LIST
-- KEYS[3]  claims ZSET: member = job, score = claim time in ms
-- ARGV[1]  now in ms, or "" for the server's TIME
-- Reply    the job, or nil if the queue is empty
-- Cost     O(log N)
local job = redis.call('LMOVE', KEYS[1], KEYS[2], 'RIGHT', 'LEFT')
if not job then
    return nil
end
local now = tonumber(ARGV[1])
if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZADD', KEYS[3], now, job)
return job
