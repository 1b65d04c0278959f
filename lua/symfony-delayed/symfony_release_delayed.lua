-- symfony_release_delayed.lua: move delayed Symfony Messenger messages into
-- their stream now, as the Redis transport's Connection::get does for the
-- due ones (symfony/redis-messenger 5.4, Bridge/Redis/Transport/
-- Connection.php: ZPOPMIN of "<stream>__queue", then add(): XADD <stream> *
-- message json_encode({body, headers})), for messages not yet due as well.
-- The stream entry's "message" is encoded as the stream's newest entry is:
-- PHP-serialized ('s:<bytes>:"<json>";', the transport's default phpredis
-- serializer) or the JSON itself; ARGV[4] says which when the stream is
-- empty. Only members that are the transport's delayed messages (JSON with
-- "body" and "headers") are moved; another member is refused before any
-- write.
--
-- KEYS[1] the delayed ZSET "<stream>__queue"   KEYS[2] the STREAM
-- ARGV[1] a message's "uniqid", or "" for the first ARGV[2] by due time
-- ARGV[2] at most this many messages per run; ARGV[3] cut of echoed ids (bytes)
-- ARGV[4] "php" or "json": the encoding when the stream has no entry
-- Reply   all: {examined, moved, uniqid...}; one: 1 moved, 0 not delayed
--         errors "GHTYPE <i> <type> <expected>", "GHSHAPE <i> <what>" (nothing written)
-- Cost    all: O(log N) per message moved (at most ARGV[2]); one: a ZSCAN of
--         the delayed set
local types = {'zset', 'stream'}
for i = 1, 2 do
    local t = redis.call('TYPE', KEYS[i])['ok']
    if t ~= 'none' and t ~= types[i] then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. types[i])
    end
end
local function messageOf(member)
    local ok, m = pcall(cjson.decode, member)
    if ok and type(m) == 'table' and type(m['body']) == 'string' and m['headers'] ~= nil then
        return m
    end
    return nil
end
local php = ARGV[4] == 'php'
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #newest > 0 then
    local fields = newest[1][2]
    php = false
    for i = 1, #fields, 2 do
        if fields[i] == 'message' then
            php = string.sub(fields[i + 1], 1, 2) == 's:'
        end
    end
end
local function encode(m)
    local json = cjson.encode({body = m['body'], headers = m['headers']})
    if php then
        return 's:' .. #json .. ':"' .. json .. '";'
    end
    return json
end

local members = {}
if ARGV[1] ~= '' then
    local glob = '*"uniqid":"' .. string.gsub(ARGV[1], '([%*%?%[%]\\])', '\\%1') .. '"*'
    local cursor = '0'
    repeat
        local r = redis.call('ZSCAN', KEYS[1], cursor, 'MATCH', glob, 'COUNT', 1000)
        cursor = r[1]
        for i = 1, #r[2], 2 do
            local m = messageOf(r[2][i])
            if m and m['uniqid'] == ARGV[1] and #members == 0 then
                members[1] = r[2][i]
            end
        end
    until cursor == '0'
    if #members == 0 then
        return 0
    end
else
    members = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
end
local decoded = {}
for i, member in ipairs(members) do
    decoded[i] = messageOf(member)
    if not decoded[i] then
        return redis.error_reply('GHSHAPE 1 member ' .. i .. ' of the delayed set is not a '
            .. 'Symfony Messenger message')
    end
end
local cut = tonumber(ARGV[3])
local reply = {#members, #members}
for i, member in ipairs(members) do
    redis.call('ZREM', KEYS[1], member)
    redis.call('XADD', KEYS[2], '*', 'message', encode(decoded[i]))
    reply[#reply + 1] = string.sub(tostring(decoded[i]['uniqid']), 1, cut)
end
if ARGV[1] ~= '' then
    return 1
end
return reply
