-- limiter_reset.lua: clear a limiter: its window(s), counters and retry
-- slots. Every key is checked before the first DEL: its type must be the one
-- the limiter's pattern keeps there, and its content the pattern's shape (a
-- window's and a retry set's scores are times; a counter is a whole number).
-- On a mismatch nothing is deleted and the reply says which key and why.
--
-- KEYS     every key of the limiter
-- ARGV[1]  "force": skip the checks (an operator's confirmed, audited choice)
-- ARGV[2]  ms per score unit of the time-scored sets (1: ms, 1000: s)
-- ARGV[2+i] what KEYS[i] must be: "times" (ZSET of times in ARGV[2]'s unit),
--          "mstimes" (ZSET of times in ms), "counter" (STRING whole number),
--          "hash", "string" or "zset" (type only)
-- Reply    the number of keys deleted; error "GHTYPE <i> <type> <expected>" or
--          "GHSHAPE <i> <what was found>" (nothing written)
-- Cost     O(keys) checks; O(total members) to delete
local yearMs = 366 * 24 * 3600 * 1000
if ARGV[1] ~= 'force' then
    local unit = tonumber(ARGV[2]) or 1
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    for i = 1, #KEYS do
        local want = ARGV[2 + i] or 'string'
        local need = want
        if want == 'times' or want == 'mstimes' then
            need = 'zset'
        elseif want == 'counter' then
            need = 'string'
        end
        local kind = redis.call('TYPE', KEYS[i])['ok']
        if kind ~= 'none' then
            if kind ~= need then
                return redis.error_reply('GHTYPE ' .. i .. ' ' .. kind .. ' ' .. need)
            end
            if need == 'zset' and want ~= 'zset' then
                for _, at in ipairs({0, -1}) do
                    local s = redis.call('ZRANGE', KEYS[i], at, at, 'WITHSCORES')[2]
                    local ms = tonumber(s) * (want == 'times' and unit or 1)
                    if ms < now - yearMs or ms > now + yearMs then
                        return redis.error_reply('GHSHAPE ' .. i .. ' a score of ' .. s
                                                 .. ' is not a time within a year of now')
                    end
                end
            elseif want == 'counter' then
                local n = redis.call('STRLEN', KEYS[i])
                local v = n <= 20 and tonumber(redis.call('GET', KEYS[i])) or nil
                if not v or v ~= math.floor(v) then
                    return redis.error_reply('GHSHAPE ' .. i .. ' its value is not a whole number')
                end
            end
        end
    end
end
if redis.call('EXISTS', unpack(KEYS)) == 0 then
    return 0 -- nothing to delete: nothing written (a dry run can tell)
end
return redis.call('DEL', unpack(KEYS))
