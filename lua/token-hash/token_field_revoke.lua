-- token_field_revoke.lua: delete one token field of a hash of tokens.
--
-- KEYS[1]  the hash
-- ARGV[1]  the field (the token)
-- Reply    1 if revoked; 0 if the field (or the hash) does not exist
--          error "GHTYPE 1 <type> hash" (nothing written)
-- Cost     O(1)
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
    return 0
end
if kind ~= 'hash' then
    return redis.error_reply('GHTYPE 1 ' .. kind .. ' hash')
end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
    return 0
end
return redis.call('HDEL', KEYS[1], ARGV[1])
