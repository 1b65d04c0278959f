-- shared/key_types.part.lua: the check an action script makes of its keys
-- before it writes anything. wrongType(i, want) is nil when KEYS[i] does not
-- exist or holds a want ('hash', 'list', 'zset', ...), and otherwise the error
-- "GHTYPE <i> <type> <want>", which the engine turns into a sentence naming
-- the key and both types.
local function wrongType(i, want)
    local t = redis.call('TYPE', KEYS[i])['ok']
    if t ~= 'none' and t ~= want then
        return redis.error_reply('GHTYPE ' .. i .. ' ' .. t .. ' ' .. want)
    end
end
