-- token_issue.lua: store a new one-time token; never overwrites.
--
-- KEYS[1]  token key (<family prefix>:<token>, token from a CSPRNG)
-- ARGV[1]  value (JSON payload, may be empty)
-- ARGV[2]  time to live in s
-- Reply    1 if issued; 0 if the key exists already (a collision to report)
-- Cost     O(1)
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then
    return 1
end
return 0
