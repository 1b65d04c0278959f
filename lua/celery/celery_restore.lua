-- celery_restore.lua: put Celery messages whose worker never acknowledged
-- them within the visibility timeout back on their queue, as kombu 5.2's
-- Redis transport does in QoS.restore_visible / restore_by_tag (read in
-- /usr/lib/python3/dist-packages/kombu/transport/redis.py, Debian python3-kombu
-- 5.2.4-1): for each delivery tag in "unacked_index" whose
-- delivery time is older than now - visibility_timeout, read its
-- [payload, exchange, routing_key] from "unacked", mark the payload
-- redelivered (headers.redelivered, properties.delivery_info.redelivered,
-- as Channel._do_restore_message does), RPUSH it to the queue the exchange
-- and routing key name (Channel._lookup: the anonymous exchange "" routes to
-- the queue named by the routing key; another exchange through the members
-- "<routing_key>\x06\x16<pattern>\x06\x16<queue>" of "_kombu.binding.<exchange>"
-- whose routing key matches, as a direct exchange does), then HDEL it from
-- "unacked" and ZREM it from "unacked_index". kombu 5.2.4 restores to the
-- queue's own list, not to its priority sub-list ("<queue>\x06\x16<n>"):
-- so does this. One script run is atomic, so a message is always in exactly
-- one place (unacked or the queue), never lost and never duplicated.
--
-- Like restore_visible, it does nothing while "unacked_mutex" is held (a
-- kombu worker is restoring right now). The payload is spliced as text,
-- never re-encoded (Lua's cjson would turn an empty JSON array into {}); a
-- splice that does not read back as the same message with the flags set is
-- dropped and the message restored as it was. A message routed to another
-- queue than KEYS[4], or unreadable, is left in unacked (counted skipped).
--
-- KEYS[1] unacked HASH          KEYS[2] unacked_index ZSET
-- KEYS[3] unacked_mutex STRING  KEYS[4] the queue LIST
-- KEYS[5] _kombu.binding.<queue's exchange> SET (read only)
-- ARGV[1] the queue's name (what a routing lookup must give)
-- ARGV[2] the queue's exchange name (KEYS[5] is its binding set)
-- ARGV[3] a delivery tag, or "" for every message past the timeout
-- ARGV[4] visibility timeout, seconds (kombu's default is 3600); or, for
--         requeue --older-than MS --force, MS / 1000 (restored before kombu
--         would: a live worker may still be running them)
-- ARGV[5] batch size (messages restored per run)
-- ARGV[6] the cut of echoed tags (bytes)
-- Reply   one tag: 1 restored, 0 not unacked (acknowledged, or restored by
--         someone else), -1 not past the visibility timeout (its worker may
--         still run it), -2 routed elsewhere or unreadable (left as it was),
--         -3 unacked_mutex held (nothing changed);
--         all: {restored, restored, skipped, waiting, oldest delivery, oldest tag,
--         now, tag...}: waiting = this queue's messages still unacked and
--         younger than ARGV[4] among the oldest 1000 of unacked_index (read
--         only when none was restored: else 0, ""), the
--         oldest of them (seconds and tag, "" none), the server's time
--         (seconds); -3 when the mutex is held
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O((batch + 1000) * (message size) + bound binding members)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'hash') or wrongType(2, 'zset') or wrongType(3, 'string')
    or wrongType(4, 'list') or wrongType(5, 'set')
if bad then
    return bad
end
if redis.call('EXISTS', KEYS[3]) == 1 then
    return -3
end

local queue, exchange = ARGV[1], ARGV[2]
local sep = '\6\22'
local timeout = tonumber(ARGV[4])
local batch = tonumber(ARGV[5])
local cut = tonumber(ARGV[6])
local now = redis.call('TIME')
local cutoff = tonumber(now[1]) + tonumber(now[2]) / 1000000 - timeout

-- Whether the binding set routes routing key rk to this queue (bounded read:
-- a binding set holds one member per bound queue).
local routed = nil
local function bindsQueue(rk)
    if routed == nil then
        routed = {}
        local cursor, seen = '0', 0
        repeat
            local page = redis.call('SSCAN', KEYS[5], cursor, 'COUNT', 100)
            cursor = page[1]
            for _, m in ipairs(page[2]) do
                local a = string.find(m, sep, 1, true)
                local b = a and string.find(m, sep, a + 2, true)
                if b and string.sub(m, b + 2) == queue then
                    routed[string.sub(m, 1, a - 1)] = true
                end
                seen = seen + 1
            end
        until cursor == '0' or seen >= 1000
    end
    return routed[rk] == true
end

-- The payload's own text inside '[payload, "exchange", "routing_key"]'.
local function payloadText(v)
    local closes = {}
    local at = 0
    while true do
        at = string.find(v, '}', at + 1, true)
        if not at then
            break
        end
        closes[#closes + 1] = at
    end
    for i = #closes, 1, -1 do
        local text = string.sub(v, 2, closes[i])
        local ok, t = pcall(cjson.decode, text)
        if ok and type(t) == 'table' then
            return text, t
        end
    end
end

local function insertFlag(text, field)
    for _, p in ipairs({'"' .. field .. '": {', '"' .. field .. '":{'}) do
        local a, b = string.find(text, p, 1, true)
        if a then
            local rest = string.sub(text, b + 1)
            local flag = string.match(rest, '^%s*}') and '"redelivered": true'
                or '"redelivered": true, '
            return string.sub(text, 1, b) .. flag .. rest
        end
    end
end

-- kombu's payload['headers']['redelivered'] = True and
-- payload['properties']['delivery_info']['redelivered'] = True.
local function redelivered(text, t)
    if type(t.headers) ~= 'table' or type(t.properties) ~= 'table'
        or type(t.properties.delivery_info) ~= 'table' then
        return text -- kombu's KeyError: restored unchanged
    end
    local out = text
    if t.headers.redelivered ~= true then
        out = insertFlag(out, 'headers')
    end
    if out and t.properties.delivery_info.redelivered ~= true then
        out = insertFlag(out, 'delivery_info')
    end
    if not out then
        return text
    end
    local ok, u = pcall(cjson.decode, out)
    if ok and type(u) == 'table' and type(u.headers) == 'table'
        and u.headers.redelivered == true and type(u.properties) == 'table'
        and type(u.properties.delivery_info) == 'table'
        and u.properties.delivery_info.redelivered == true and u.body == t.body then
        return out
    end
    return text
end

-- Whether an unacked entry [payload, exchange, routing_key] goes to this queue.
local function routedHere(v)
    local ok, whole = pcall(cjson.decode, v)
    if not ok or type(whole) ~= 'table' or type(whole[2]) ~= 'string'
        or type(whole[3]) ~= 'string' then
        return false
    end
    local ex, rk = whole[2], whole[3]
    if ex == '' then
        return rk == queue
    end
    return ex == exchange and bindsQueue(rk)
end

local function restore(tag)
    local v = redis.call('HGET', KEYS[1], tag)
    if not v then
        -- restore_by_tag: no message, the index entry is removed all the same.
        redis.call('ZREM', KEYS[2], tag)
        return 0
    end
    if not routedHere(v) then
        return -2
    end
    local text, t = payloadText(v)
    if not text then
        return -2
    end
    redis.call('RPUSH', KEYS[4], redelivered(text, t))
    redis.call('HDEL', KEYS[1], tag)
    redis.call('ZREM', KEYS[2], tag)
    return 1
end

if ARGV[3] ~= '' then
    local score = redis.call('ZSCORE', KEYS[2], ARGV[3])
    if redis.call('HEXISTS', KEYS[1], ARGV[3]) == 0 then
        return 0
    end
    if not score or tonumber(score) > cutoff then
        return -1
    end
    return restore(ARGV[3])
end

local done, skipped = {}, 0
local offset = 0
while #done < batch and offset < 10 * batch do
    local tags = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', cutoff, 'LIMIT', offset, batch)
    if #tags == 0 then
        break
    end
    for _, tag in ipairs(tags) do
        local r = restore(tag)
        if r == 1 then
            done[#done + 1] = string.sub(tag, 1, cut)
        elseif r == -2 then
            skipped = skipped + 1
            offset = offset + 1 -- left in the index: page past it
        end
        if #done >= batch then
            break
        end
    end
    if #tags < batch then
        break
    end
end
-- What is left for kombu to restore later: this queue's unacked messages
-- younger than the cutoff, among the oldest 1000 entries of the index.
-- Read only when nothing was restored (the reply then explains why).
local waiting, oldest, oldestTag = 0, '', ''
local young = {}
if #done == 0 then
    young = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. cutoff, '+inf', 'WITHSCORES', 'LIMIT', 0,
        1000)
end
for i = 1, #young, 2 do
    local v = redis.call('HGET', KEYS[1], young[i])
    if v and routedHere(v) then
        waiting = waiting + 1
        if oldest == '' then
            oldest, oldestTag = young[i + 1], string.sub(young[i], 1, cut)
        end
    end
end
local reply = {#done, #done, skipped, waiting, oldest, oldestTag,
    string.format('%.3f', tonumber(now[1]) + tonumber(now[2]) / 1000000)}
for _, tag in ipairs(done) do
    reply[#reply + 1] = tag
end
return reply
