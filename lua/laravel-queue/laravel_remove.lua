-- laravel_remove.lua: remove one job from a Laravel queue, the job a
-- worker's RedisQueue::deleteReserved or a `queue:clear` would take away
-- (illuminate/queue 8.83, src/Illuminate/Queue/RedisQueue.php: ZREM from
-- ":reserved"; LuaScripts::clear for the queue and ":delayed"), found by its
-- payload's "id": ZSCAN of ":reserved" and ":delayed" (MATCH on the id), then
-- the queue's list from its head in pages of 1000 entries, at most ARGV[3]
-- entries. A reserved job whose reservation has not expired is refused: a
-- worker may be running it (Laravel's own deleteReserved is the worker's).
-- One "1" is LPOPed from ":notify" for a job taken off the queue's list, as
-- LuaScripts::pop does for a job it takes.
--
-- KEYS[1] the queue LIST "<prefix>queues:<q>"
-- KEYS[2] the delayed ZSET ":delayed"   KEYS[3] the reserved ZSET ":reserved"
-- KEYS[4] the notify LIST ":notify"
-- ARGV[1] the job's "id"; ARGV[2] now in epoch seconds, or "" for the server's TIME
-- ARGV[3] at most this many entries of the queue's list are searched
-- Reply   1 removed, 0 not found, -1 reserved and its reservation has not
--         expired, -3 not found in the first ARGV[3] entries of the list
--         errors "GHTYPE <i> <type> <expected>" (nothing written)
-- Cost    O(N) in the delayed and reserved sets (ZSCAN) plus at most
--         ARGV[3] list entries read
local types = {'list', 'zset', 'zset', 'list'}
for i = 1, 4 do
    local t = redis.call('TYPE', KEYS[i])['ok']
    if t ~= 'none' and t ~= types[i] then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. types[i])
    end
end
local id = ARGV[1]
local now = tonumber(ARGV[2])
if not now then
    now = tonumber(redis.call('TIME')[1])
end
local function isJob(member)
    local ok, job = pcall(cjson.decode, member)
    return ok and type(job) == 'table' and type(job['job']) == 'string'
        and job['id'] ~= nil and tostring(job['id']) == id
end
local glob = '*"id":"' .. string.gsub(id, '([%*%?%[%]\\])', '\\%1') .. '"*'
for _, k in ipairs({3, 2}) do
    local cursor = '0'
    repeat
        local r = redis.call('ZSCAN', KEYS[k], cursor, 'MATCH', glob, 'COUNT', 1000)
        cursor = r[1]
        for i = 1, #r[2], 2 do
            if isJob(r[2][i]) then
                if k == 3 and tonumber(r[2][i + 1]) > now then
                    return -1
                end
                redis.call('ZREM', KEYS[k], r[2][i])
                return 1
            end
        end
    until cursor == '0'
end
local limit = tonumber(ARGV[3])
local length = redis.call('LLEN', KEYS[1])
local start = 0
while start < length and start < limit do
    local stop = math.min(start + 999, limit - 1)
    for _, entry in ipairs(redis.call('LRANGE', KEYS[1], start, stop)) do
        if string.find(entry, id, 1, true) and isJob(entry) then
            redis.call('LREM', KEYS[1], 1, entry)
            redis.call('LPOP', KEYS[4])
            return 1
        end
    end
    start = stop + 1
end
if length > limit then
    return -3
end
return 0
