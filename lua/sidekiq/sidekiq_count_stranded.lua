-- SPDX-License-Identifier: MIT
-- sidekiq_count_stranded.lua: how many jobs "Requeue all stuck" (the
-- sidekiq_recover script with no jid) would find now, for its confirmation
-- ("12 match now; up to 100 will be requeued"). Read-only: it walks the same
-- processes the recover script walks (up to ARGV[3] identities of
-- "processes", SRANDMEMBER as it does), and for each dead one (heartbeat
-- hash gone, or its "beat" older than ARGV[2] ms by the server's clock)
-- adds the lengths of its work hashes ("<identity>:workers" in Sidekiq 6,
-- "<identity>:work" in 7 and 8): HLEN, never the fields. A live process's
-- work is not counted. Run as a script so "dead" is judged by the server's
-- clock and the same rule as sidekiq_recover's, in one round trip.
--
-- KEYS[1] processes SET
-- ARGV[1] the redis-namespace prefix ("" or "myapp:"), as sidekiq_recover's
-- ARGV[2] dead after (ms since the last beat)
-- ARGV[3] most processes examined (sidekiq_recover's batch)
-- Reply   {stranded jobs, dead processes, processes examined}
--         errors "GHTYPE <i> <type> <expected>" (nothing is written by this script)
-- Cost    O(P) for P <= ARGV[3] processes (TYPE, HGET and two HLEN each)
local function typeOf(key)
    return redis.call('TYPE', key)['ok']
end
local t1 = typeOf(KEYS[1])
if t1 ~= 'none' and t1 ~= 'set' then
    return redis.error_reply('GHTYPE 1 ' .. t1 .. ' set')
end
local ns = ARGV[1]
local deadAfter = tonumber(ARGV[2])
local most = tonumber(ARGV[3])
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

-- The same rule as sidekiq_recover's alive().
local function alive(identity)
    local key = ns .. identity
    local kt = typeOf(key)
    if kt == 'none' then
        return false
    end
    if kt ~= 'hash' then
        return true
    end
    local beat = toMs(redis.call('HGET', key, 'beat'))
    return beat == nil or nowMs - beat <= deadAfter
end

local stranded, dead = 0, 0
local identities = redis.call('SRANDMEMBER', KEYS[1], most)
for _, identity in ipairs(identities) do
    if not alive(identity) then
        dead = dead + 1
        for _, suffix in ipairs({':workers', ':work'}) do
            local wk = ns .. identity .. suffix
            if typeOf(wk) == 'hash' then
                stranded = stranded + redis.call('HLEN', wk)
            end
        end
    end
end
return {stranded, dead, #identities}
