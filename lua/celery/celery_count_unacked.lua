-- celery_count_unacked.lua (read-only probe): one queue's share of kombu's
-- broker-wide "unacked" hash. kombu 5.2.4's Redis transport
-- (/usr/lib/python3/dist-packages/kombu/transport/redis.py, Debian
-- python3-kombu 5.2.4-1: QoS.append) keeps one "unacked" HASH for every
-- queue of the broker, delivery tag -> JSON [message, exchange, routing_key],
-- and "unacked_index" ZSET, delivery tag -> delivery time (seconds). An entry
-- is this queue's when Channel._lookup would route it here: the anonymous
-- exchange "" by a routing key equal to the queue's name, the queue's own
-- exchange by a routing key bound to the queue ("_kombu.binding.<exchange>"
-- members "<routing_key>\x06\x16<pattern>\x06\x16<queue>"; with no binding
-- read, a routing key equal to the queue's name). Its priority sub-queue
-- ("<queue>\x06\x16<n>", Channel._q_for_pri) is the message's
-- properties.priority stepped down to 0, 3, 6 or 9 (PRIORITY_STEPS).
--
-- Reads the hash in HSCAN pages (COUNT 100) up to ARGV[4] entries, never
-- HGETALL; the routing key and exchange are read from the entry's tail, the
-- priority from its properties, without decoding the message.
--
-- KEYS[1] unacked HASH   KEYS[2] unacked_index ZSET   KEYS[3] _kombu.binding.<exchange> SET
-- ARGV[1] the queue's name   ARGV[2] its exchange's name
-- ARGV[3] visibility timeout, seconds   ARGV[4] most entries examined
-- ARGV[5] most past-the-timeout tags returned
-- Reply   {examined, complete (1: the whole hash was read), n0, n3, n6, n9,
--          oldest delivery (seconds, "" none), its tag, past the timeout,
--          tag, delivery, tag, delivery, ... (the oldest first, at most ARGV[5])}
--         errors "GHTYPE <i> <type> <expected>"
-- Cost    O(ARGV[4] * entry size + bound binding members); writes nothing
--#include shared/key_types.part.lua
local bad = wrongType(1, 'hash') or wrongType(2, 'zset') or wrongType(3, 'set')
if bad then
    return bad
end

local queue, exchange = ARGV[1], ARGV[2]
local sep = '\6\22'
local most = tonumber(ARGV[4])
local page = tonumber(ARGV[5])
local now = redis.call('TIME')
local cutoff = tonumber(now[1]) + tonumber(now[2]) / 1000000 - tonumber(ARGV[3])

-- The routing keys the binding set routes to this queue (bounded read).
local bound, anyBound = {}, false
local cursor, seen = '0', 0
repeat
    local got = redis.call('SSCAN', KEYS[3], cursor, 'COUNT', 100)
    cursor = got[1]
    for _, m in ipairs(got[2]) do
        local a = string.find(m, sep, 1, true)
        local b = a and string.find(m, sep, a + 2, true)
        if b and string.sub(m, b + 2) == queue then
            bound[string.sub(m, 1, a - 1)] = true
            anyBound = true
        end
        seen = seen + 1
    end
until cursor == '0' or seen >= 1000

local function routedHere(ex, rk)
    if ex == '' then
        return rk == queue
    end
    if ex ~= exchange then
        return false
    end
    if anyBound then
        return bound[rk] == true
    end
    return rk == queue
end

-- [message, "exchange", "routing_key"] -> exchange, routing key (nil when
-- the tail is not two plain strings: decoded whole then).
local function route(v)
    local ex, rk = string.match(string.sub(v, -600), ',%s*"([^"\\]*)"%s*,%s*"([^"\\]*)"%s*%]%s*$')
    if ex then
        return ex, rk
    end
    local ok, whole = pcall(cjson.decode, v)
    if ok and type(whole) == 'table' and type(whole[2]) == 'string'
        and type(whole[3]) == 'string' then
        return whole[2], whole[3]
    end
end

local function step(v)
    local at = string.find(v, '"properties"', 1, true)
    local p = at and tonumber(string.match(v, '"priority"%s*:%s*(%d+)', at))
    if not p or p < 3 then
        return 0
    elseif p < 6 then
        return 3
    elseif p < 9 then
        return 6
    end
    return 9
end

local counts = {[0] = 0, [3] = 0, [6] = 0, [9] = 0}
local oldest, oldestTag = nil, ''
local stuck = {}
local examined, complete = 0, 0
cursor = '0'
repeat
    local got = redis.call('HSCAN', KEYS[1], cursor, 'COUNT', 100)
    cursor = got[1]
    local kv = got[2]
    for i = 1, #kv, 2 do
        examined = examined + 1
        local ex, rk = route(kv[i + 1])
        if ex and routedHere(ex, rk) then
            local n = step(kv[i + 1])
            counts[n] = counts[n] + 1
            local score = tonumber(redis.call('ZSCORE', KEYS[2], kv[i]))
            if score then
                if not oldest or score < oldest then
                    oldest, oldestTag = score, kv[i]
                end
                if score <= cutoff then
                    stuck[#stuck + 1] = {kv[i], score}
                end
            end
        end
    end
    if cursor == '0' then
        complete = 1
    end
until cursor == '0' or examined >= most

table.sort(stuck, function(a, b) return a[2] < b[2] end)
local reply = {examined, complete, counts[0], counts[3], counts[6], counts[9],
    oldest and string.format('%.6f', oldest) or '', oldestTag, #stuck}
for i = 1, math.min(#stuck, page) do
    reply[#reply + 1] = stuck[i][1]
    reply[#reply + 1] = string.format('%.6f', stuck[i][2])
end
return reply
