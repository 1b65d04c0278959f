-- stream_delete_consumer.lua: delete a consumer of a consumer group only when
-- it holds no pending entries (XGROUP DELCONSUMER would drop its pending
-- entries from the PEL, and no consumer would ever be given them again).
-- Redis's own semantics (redis.io/commands, Redis 7.0):
--   XINFO CONSUMERS key group: each consumer's name, pending, idle (ms).
--   XGROUP DELCONSUMER key group consumer: deletes it (and its PEL records).
-- The key is checked to be a stream with that group before anything is
-- written; on a mismatch nothing is written.
--
-- KEYS[1]  the stream
-- ARGV[1]  the group
-- ARGV[2]  the consumer
-- ARGV[3]  min idle time in ms: a consumer active more recently is kept
-- Reply    {1, its idle ms} deleted; {0} no such consumer;
--          {-1} the stream does not exist; {-2} it has no such group;
--          {-4, pending} it still holds pending entries (nothing written);
--          {-5, idle ms} it was active more recently than ARGV[3] ms;
--          error "GHTYPE 1 <type> stream" (nothing written)
-- Cost     O(groups + consumers of the group)
local minIdle = tonumber(ARGV[3]) or 0
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
for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
    local f = {}
    for i = 1, #c, 2 do
        f[c[i]] = c[i + 1]
    end
    if f['name'] == ARGV[2] then
        if f['pending'] > 0 then
            return {-4, f['pending']}
        end
        if f['idle'] < minIdle then
            return {-5, f['idle']}
        end
        redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
        return {1, f['idle']}
    end
end
return {0}
