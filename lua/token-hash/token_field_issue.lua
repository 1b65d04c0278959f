-- token_field_issue.lua: store a new token as a field of a hash with its own
-- TTL (HSET + HPEXPIRE, Redis 7.4 to 7.x); never overwrites a field.
--
-- KEYS[1]  the hash (missing: created)
-- ARGV[1]  the field (the token)
-- ARGV[2]  its value (may be empty)
-- ARGV[3]  time to live in ms
-- Reply    1 if issued; 0 if the field exists already (a collision to report)
--          error "GHTYPE 1 <type> hash" (nothing written)
-- Cost     O(1)
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'hash' then
    return redis.error_reply('GHTYPE 1 ' .. kind .. ' hash')
end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
    return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HPEXPIRE', KEYS[1], ARGV[3], 'FIELDS', 1, ARGV[1])
return 1
