-- token_revoke.lua: delete a token, reporting what was revoked.
--
-- KEYS[1]  token key (STRING or HASH)
-- Reply    the type that was deleted ("string", "hash", ...), or nil if none
-- Cost     O(1) for strings, O(fields) for hashes
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
    return nil
end
redis.call('DEL', KEYS[1])
return kind
