-- dramatiq_retry.lua: retry a Dramatiq queue's dead letters: move a message
-- from the dead-letter set "<ns>:<q>.XQ" (and its hash ".XQ.msgs") back to
-- the queue its message names, written as dispatch.lua's "enqueue" writes a
-- message (dramatiq/brokers/redis/dispatch.lua, Dramatiq 1.17.1: HSET the
-- queue's ".msgs" hash, RPUSH the id): a message of the queue to "<ns>:<q>",
-- one of its delay queue ("<q>.DQ", nacked while delayed) to "<ns>:<q>.DQ",
-- where a worker holds it until its eta. Dramatiq's nack moved it the other
-- way (ZADD .XQ, HSET .XQ.msgs, HDEL .msgs). Each message is checked to be
-- Dramatiq's JSON of this queue, its options' redis_message_id its id,
-- before anything is written.
--
-- KEYS[1] dead letters ZSET <ns>:<q>.XQ  KEYS[2] their HASH <ns>:<q>.XQ.msgs
-- KEYS[3] queue LIST <ns>:<q>  KEYS[4] its HASH <ns>:<q>.msgs
-- KEYS[5] delay queue LIST <ns>:<q>.DQ  KEYS[6] its HASH <ns>:<q>.DQ.msgs
-- ARGV[1] one message id, or "" for the oldest ARGV[3]; ARGV[2] the queue's
-- name; ARGV[4] cut of echoed ids (bytes)
-- Reply   one message: 1 retried, 0 not a dead letter;
--         all: {ARGV[3] when a whole batch was retried else 0, retried, id...}
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(log N) per message, at most ARGV[3] messages
--#include shared/key_types.part.lua
local bad = wrongType(1, 'zset') or wrongType(2, 'hash') or wrongType(3, 'list')
    or wrongType(4, 'hash') or wrongType(5, 'list') or wrongType(6, 'hash')
if bad then
    return bad
end
local q = ARGV[2]

-- Where a dead letter goes ({list, hash} KEYS indexes), or an error.
local function target(id, data)
    if not data then
        return nil, 'GHSHAPE 2 dead letter ' .. string.sub(id, 1, 80) .. ' has no message'
    end
    local ok, m = pcall(cjson.decode, data)
    if not ok or type(m) ~= 'table' or type(m.options) ~= 'table'
        or m.options.redis_message_id ~= id or type(m.actor_name) ~= 'string' then
        return nil, 'GHSHAPE 2 dead letter ' .. string.sub(id, 1, 80)
            .. ' is not a Dramatiq message'
    end
    if m.queue_name == q then
        return {3, 4}
    elseif m.queue_name == q .. '.DQ' then
        return {5, 6}
    end
    return nil, 'GHSHAPE 2 dead letter ' .. string.sub(id, 1, 80) .. ' is of another queue'
end

local ids
if ARGV[1] ~= '' then
    if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
        return 0
    end
    ids = {ARGV[1]}
else
    ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
end
local moves = {}
for i, id in ipairs(ids) do
    local data = redis.call('HGET', KEYS[2], id)
    local to, err = target(id, data)
    if not to then
        return redis.error_reply(err)
    end
    moves[i] = {id, data, to}
end
for _, mv in ipairs(moves) do
    redis.call('ZREM', KEYS[1], mv[1])
    redis.call('HDEL', KEYS[2], mv[1])
    redis.call('HSET', KEYS[mv[3][2]], mv[1], mv[2])
    redis.call('RPUSH', KEYS[mv[3][1]], mv[1])
end
if ARGV[1] ~= '' then
    return 1
end
local reply = {#ids == tonumber(ARGV[3]) and #ids or 0, #ids}
for _, mv in ipairs(moves) do
    table.insert(reply, string.sub(mv[1], 1, tonumber(ARGV[4])))
end
return reply
