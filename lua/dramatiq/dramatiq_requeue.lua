-- dramatiq_requeue.lua: put a Dramatiq queue's orphaned messages back on
-- their queue, as the maintenance step of Dramatiq's own dispatch.lua does
-- (dramatiq/brokers/redis/dispatch.lua, Dramatiq 1.17.1): for each worker
-- whose heartbeat (its score in "<ns>:__heartbeats__", ms) is ARGV[3] ms old
-- or more, every message id in its ack set of this queue
-- ("<ns>:__acks__.<worker>.<q>") that still has its message in the queue's
-- messages hash is RPUSHed on the queue, and the ack set deleted; the same
-- for its ack set of the delay queue ("<q>.DQ") and the delay queue. Like
-- Dramatiq it builds the ack sets' names from the worker ids (ARGV[1] their
-- prefix); unlike it, it never removes a worker's heartbeat (Dramatiq finds
-- the worker's other ack sets with KEYS, which Gatehouse does not run), and
-- it checks every set's type before its first write. The time is the
-- server's (TIME), where Dramatiq uses the caller's clock.
--
-- KEYS[1] queue LIST <ns>:<q>  KEYS[2] messages HASH <ns>:<q>.msgs
-- KEYS[3] delay queue LIST <ns>:<q>.DQ  KEYS[4] its messages HASH
-- KEYS[5] heartbeats ZSET <ns>:__heartbeats__
-- ARGV[1] the ack sets' prefix "<ns>:__acks__."; ARGV[2] the queue's name
-- ARGV[3] heartbeat timeout (ms); ARGV[4] one message id, or "" for every
-- orphan of the first ARGV[5] dead workers; ARGV[6] cut of echoed ids (bytes)
-- Reply   one message: 1 requeued, 0 in no dead worker's ack set,
--         -2 its message is gone from the messages hash (nothing written);
--         all: {ARGV[5] when as many dead workers had orphans else 0, requeued, id...}
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(dead workers (<= ARGV[5]) + their unacked messages of this queue)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'hash') or wrongType(3, 'list')
    or wrongType(4, 'hash') or wrongType(5, 'zset')
if bad then
    return bad
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local batch = tonumber(ARGV[5])
local dead = redis.call('ZRANGEBYSCORE', KEYS[5], 0, now - tonumber(ARGV[3]), 'LIMIT', 0, batch)
local sets = {}
for _, worker in ipairs(dead) do
    local acks = ARGV[1] .. worker .. '.' .. ARGV[2]
    for _, s in ipairs({{acks, 1, 2}, {acks .. '.DQ', 3, 4}}) do
        local st = redis.call('TYPE', s[1])['ok']
        if st ~= 'none' and st ~= 'set' then
            return redis.error_reply('GHSHAPE 5 ack set of worker ' .. string.sub(worker, 1, 64)
                .. ' is a ' .. st)
        end
        if st == 'set' then
            table.insert(sets, s)
        end
    end
end
local cut = tonumber(ARGV[6])

if ARGV[4] ~= '' then
    local id = ARGV[4]
    for _, s in ipairs(sets) do
        if redis.call('SISMEMBER', s[1], id) == 1 then
            if redis.call('HEXISTS', KEYS[s[3]], id) == 0 then
                return -2
            end
            redis.call('SREM', s[1], id)
            redis.call('RPUSH', KEYS[s[2]], id)
            return 1
        end
    end
    return 0
end

local reply = {0, 0}
for _, s in ipairs(sets) do
    for _, id in ipairs(redis.call('SMEMBERS', s[1])) do
        if redis.call('HEXISTS', KEYS[s[3]], id) == 1 then
            redis.call('RPUSH', KEYS[s[2]], id)
            reply[2] = reply[2] + 1
            table.insert(reply, string.sub(id, 1, cut))
        end
    end
    redis.call('DEL', s[1])
end
if #dead == batch and reply[2] > 0 then
    reply[1] = batch
end
return reply
