-- sidekiq_recover.lua: push the jobs a dead Sidekiq process was running back
-- to their queues (Sidekiq 6, 7 and 8 with the basic fetch). Sidekiq itself
-- does this only at an orderly shutdown (lib/sidekiq/fetch.rb,
-- BasicFetch#bulk_requeue: RPUSH to "queue:<name>", the end BRPOP takes
-- next); a process killed -9 loses them. Its work hash ("<identity>:workers"
-- in 6, "<identity>:work" in 7 and 8: thread id -> JSON {queue, payload,
-- run_at}, lib/sidekiq/launcher.rb) names each job; the payload string is the
-- job exactly as the process took it from its queue. Each job is pushed and
-- its work field deleted in this one script: always in exactly one place.
-- A process is dead when its heartbeat hash "<identity>" is gone or its
-- "beat" is older than ARGV[3] ms by the server's clock; a live process's
-- work is never touched.
--
-- KEYS[1] queues SET     KEYS[2] processes SET
-- ARGV[1] the redis-namespace prefix ("" or "myapp:"): the process's keys are
--         ARGV[1] .. identity (.. ":workers" / ":work"), a queue's
--         ARGV[1] .. "queue:" .. name, as Sidekiq names them; identities come
--         from "processes" (Sidekiq does not run on a Cluster: one node)
-- ARGV[2] a jid, or "" for every job of every dead process
-- ARGV[3] dead after (ms since the last beat)
-- ARGV[4] batch size (processes examined, and jobs moved, per run)
-- ARGV[5] the cut of echoed jids (bytes)
-- Reply   one job: {1, queue name (cut to ARGV[5])} requeued (RPUSH to
--         ARGV[1] .. "queue:" .. name), 0 not in flight on a dead process, -1 in flight on a live
--         process, -2 its record is not a Sidekiq job;
--         all: {requeued, requeued, jid...}
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    O(P + W) for P <= batch processes and W work fields read
local function typeOf(key)
    return redis.call('TYPE', key)['ok']
end
local function wrongType(i, want)
    local t = typeOf(KEYS[i])
    if t ~= 'none' and t ~= want then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. want)
    end
end
local bad = wrongType(1, 'set') or wrongType(2, 'set')
if bad then
    return bad
end
local ns = ARGV[1]
local wanted = ARGV[2]
local deadAfter = tonumber(ARGV[3])
local batch = tonumber(ARGV[4])
local cut = tonumber(ARGV[5])
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local function toMs(v)
    v = tonumber(v)
    if not v then
        return nil
    end
    if v > 1e11 then -- Sidekiq 8 writes ms, 6 and 7 seconds
        return v
    end
    return v * 1000
end

local function alive(identity)
    local key = ns .. identity
    local kt = typeOf(key)
    if kt == 'none' then
        return false
    end
    if kt ~= 'hash' then
        return true -- not a heartbeat hash: leave it be
    end
    local beat = toMs(redis.call('HGET', key, 'beat'))
    return beat == nil or nowMs - beat <= deadAfter
end

-- First every move, checked; then the writes.
local moves = {}
local liveHit = false
local unreadable = false
local identities = redis.call('SRANDMEMBER', KEYS[2], batch)
for _, identity in ipairs(identities) do
    local dead = not alive(identity)
    for _, suffix in ipairs({':workers', ':work'}) do
        local wk = ns .. identity .. suffix
        if typeOf(wk) == 'hash' then
            local page = redis.call('HSCAN', wk, '0', 'COUNT', batch)[2]
            for i = 1, #page, 2 do
                local ok, entry = pcall(cjson.decode, page[i + 1])
                local payload = ok and type(entry) == 'table' and entry['payload']
                local queue = ok and type(entry) == 'table' and entry['queue']
                local jid = nil
                if type(payload) == 'string' and type(queue) == 'string' then
                    local okJob, job = pcall(cjson.decode, payload)
                    if okJob and type(job) == 'table' and type(job['jid']) == 'string' then
                        jid = job['jid']
                    end
                end
                if jid == nil then
                    -- Not a record Gatehouse can move; say so when it may be the one asked for.
                    if wanted ~= '' and string.find(page[i + 1], wanted, 1, true) then
                        unreadable = true
                    end
                elseif wanted == '' or jid == wanted then
                    if not dead then
                        if jid == wanted then
                            liveHit = true
                        end
                    elseif #moves < batch then
                        moves[#moves + 1] = {wk, page[i], ns .. 'queue:' .. queue, queue, payload, jid}
                    end
                end
            end
        end
    end
end
for _, m in ipairs(moves) do
    local qt = typeOf(m[3])
    if qt ~= 'none' and qt ~= 'list' then
        return redis.error_reply('GHSHAPE 1 queue ' .. m[3] .. ' is a ' .. qt .. ', not a list')
    end
end

local done = {}
local doneQueue = nil -- the queue the first job moved went to
for _, m in ipairs(moves) do
    if redis.call('HDEL', m[1], m[2]) == 1 then
        redis.call('RPUSH', m[3], m[5])
        redis.call('SADD', KEYS[1], m[4])
        done[#done + 1] = string.sub(m[6], 1, cut)
        doneQueue = doneQueue or m[4]
    end
end

if wanted ~= '' then
    if #done > 0 then
        return {1, string.sub(doneQueue, 1, cut)}
    elseif liveHit then
        return -1
    elseif unreadable then
        return -2
    end
    return 0
end
local reply = {#done, #done}
for _, jid in ipairs(done) do
    reply[#reply + 1] = jid
end
return reply
