-- token_consume_counted.lua: seed 002's reference-counted token (a HASH with a
-- use counter): admit the first max uses, count every attempt.
--
-- KEYS[1]  token HASH
-- ARGV[1]  counter field (seed 002 calls it "used_by")
-- ARGV[2]  uses allowed (1 for a one-time token)
-- Reply    {admitted (1|0), uses so far}; {0, 0} if the token does not exist
-- Cost     O(1)
--
-- Unlike HINCRBY alone, a missing token is not recreated without a TTL.
if redis.call('EXISTS', KEYS[1]) == 0 then
    return {0, 0}
end
local used = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if used <= tonumber(ARGV[2]) then
    return {1, used}
end
return {0, used}
