-- stream_group_read.lua (read-only probe): one stream and its consumer groups,
-- bounded. Redis's own commands (redis.io/commands, Redis 7.0):
--   XINFO STREAM key (no FULL): length, last-generated-id, groups, first-entry
--     and last-entry ([id, fields], nil when empty). O(1).
--   XINFO GROUPS key: per group name, consumers, pending (entries delivered and
--     not acked: the group's PEL), last-delivered-id, and since 7.0 entries-read
--     and lag (nil when Redis cannot tell). O(groups).
--   XINFO CONSUMERS key group: per consumer name, pending, idle (ms since its
--     last attempted interaction), and since 7.2 inactive (ms since its last
--     successful one, -1 never). O(consumers).
--   XPENDING key group (summary): count, smallest and greatest pending id.
--   XPENDING key group [IDLE ms] - + count: the oldest pending entries by id,
--     each {id, consumer, idle ms since last delivery, deliveries}; IDLE
--     (6.2+) keeps those idle at least ms. O(log N + count).
--   XRANGE key last-delivered-id + COUNT 2: the group's next entry, the
--     oldest one no consumer of it has been given. O(log N).
-- Only the ids of the first, last and next entries leave the server, never
-- fields.
--
-- KEYS[1]  the stream
-- ARGV[1]  most groups read (the rest counted only)
-- ARGV[2]  most consumers read per group
-- ARGV[3]  most pending entries read per group, oldest first, and as many of
--          those idle at least ARGV[4] ms
-- ARGV[4]  idle threshold in ms (stuck)
-- Reply    {0} when the key does not exist;
--          {1, length, first id, last id, last-generated id, groups in all,
--           group, ...} where each group is
--          {name, consumers in all, pending, last-delivered id, entries-read
--           (-1 unknown), lag (-1 unknown), smallest pending id ("" none),
--           {consumer, pending, idle, inactive (-1 unknown), ...},
--           {id, consumer, idle, deliveries, ...} (oldest pending),
--           {id, consumer, idle, deliveries, ...} (idle >= ARGV[4]),
--           the id of the next entry to deliver ("" none)};
--          error "WRONGTYPE ..." when the key is not a stream
-- Cost     O(G * (C + P + log N)) for G <= ARGV[1], C <= ARGV[2], P <= ARGV[3];
--          writes nothing
local maxGroups = tonumber(ARGV[1]) or 20
local maxConsumers = tonumber(ARGV[2]) or 50
local page = tonumber(ARGV[3]) or 100
local idle = tonumber(ARGV[4]) or 300000

local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'none' then
    return {0}
end
if t ~= 'stream' then
    return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value')
end

local function fields(flat)
    local m = {}
    for i = 1, #flat, 2 do
        m[flat[i]] = flat[i + 1]
    end
    return m
end
local function num(v)
    if type(v) == 'number' then
        return v
    end
    return tonumber(v) or -1
end
local function entries(pending)
    local out = {}
    for _, e in ipairs(pending) do
        out[#out + 1] = e[1]
        out[#out + 1] = e[2]
        out[#out + 1] = e[3]
        out[#out + 1] = e[4]
    end
    return out
end

local info = fields(redis.call('XINFO', 'STREAM', KEYS[1]))
local first = info['first-entry'] and info['first-entry'][1] or ''
local last = info['last-entry'] and info['last-entry'][1] or ''
local groups = redis.call('XINFO', 'GROUPS', KEYS[1])
local reply = {1, num(info['length']), first, last, info['last-generated-id'] or '', #groups}

for gi = 1, math.min(#groups, maxGroups) do
    local g = fields(groups[gi])
    local name = g['name']
    local consumers = {}
    local list = redis.call('XINFO', 'CONSUMERS', KEYS[1], name)
    for ci = 1, math.min(#list, maxConsumers) do
        local c = fields(list[ci])
        consumers[#consumers + 1] = c['name']
        consumers[#consumers + 1] = num(c['pending'])
        consumers[#consumers + 1] = num(c['idle'])
        consumers[#consumers + 1] = c['inactive'] and num(c['inactive']) or -1
    end
    local summary = redis.call('XPENDING', KEYS[1], name)
    local oldest = {}
    local stuck = {}
    if num(summary[1]) > 0 then
        oldest = redis.call('XPENDING', KEYS[1], name, '-', '+', page)
        local ok, r = pcall(redis.call, 'XPENDING', KEYS[1], name, 'IDLE', idle, '-', '+', page)
        if ok then
            stuck = r
        else -- before 6.2: the oldest page, filtered here
            for _, e in ipairs(oldest) do
                if e[3] >= idle then
                    stuck[#stuck + 1] = e
                end
            end
        end
    end
    local delivered = g['last-delivered-id'] or '0-0'
    local nextId = ''
    for _, e in ipairs(redis.call('XRANGE', KEYS[1], delivered, '+', 'COUNT', 2)) do
        if e[1] ~= delivered then
            nextId = e[1]
            break
        end
    end
    reply[#reply + 1] = {name, num(g['consumers']), num(g['pending']),
                         g['last-delivered-id'] or '',
                         g['entries-read'] and num(g['entries-read']) or -1,
                         g['lag'] and num(g['lag']) or -1,
                         summary[2] or '', consumers, entries(oldest), entries(stuck), nextId}
end
return reply
