-- token_revoke.lua: delete a token, reporting what was revoked. A token is a
-- STRING, or a HASH with a use counter (seed 002); anything else is not
-- deleted unless forced.
--
-- KEYS[1]  token key
-- ARGV[1]  "force": delete whatever type the key has (an operator's
--          confirmed and audited choice)
-- Reply    the type that was deleted ("string", "hash", ...), or nil if none;
--          error "GHTYPE 1 <type> string|hash" (nothing written)
-- Cost     O(1) for strings, O(fields) for hashes
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
    return nil
end
if kind ~= 'string' and kind ~= 'hash' and ARGV[1] ~= 'force' then
    return redis.error_reply('GHTYPE 1 ' .. kind .. ' string|hash')
end
redis.call('DEL', KEYS[1])
return kind
