-- bull_remove.lua: remove a Bull 3/4 job as Bull's own removeJob does
-- (lib/commands/removeJob-11.lua, bull 4.16.5; Job#remove): refused while
-- its ":lock" exists (a worker is running it); otherwise LREM/ZREM from
-- active, wait, delayed, paused, completed, failed and priority, DEL its
-- debounce key ("de:<deid>", includes/removeDebounceKey.lua), the job hash
-- and ":logs", and take it out of the rate limiter's group set
-- ("limiter:index" names it).
--
-- KEYS[1] active LIST  KEYS[2] wait LIST  KEYS[3] delayed ZSET
-- KEYS[4] paused LIST  KEYS[5] completed ZSET  KEYS[6] failed ZSET
-- KEYS[7] priority ZSET  KEYS[8] limiter:index HASH
-- ARGV[1] the queue's key prefix ("bull:emails:"); ARGV[2] the job id
-- Reply   1 removed, -1 locked, -2 no such job
--         errors "GHTYPE <i> <type> <expected>" (nothing written)
-- Cost    O(N) in the lists' lengths (LREM)
--#include shared/key_types.part.lua
local bad = wrongType(1, 'list') or wrongType(2, 'list') or wrongType(3, 'zset')
    or wrongType(4, 'list') or wrongType(5, 'zset') or wrongType(6, 'zset')
    or wrongType(7, 'zset') or wrongType(8, 'hash')
if bad then
    return bad
end
local prefix = ARGV[1]
local id = ARGV[2]
local jobKey = prefix .. id
if redis.call('TYPE', jobKey)['ok'] ~= 'hash' then
    return -2
end
if redis.call('EXISTS', jobKey .. ':lock') == 1 then
    return -1
end
-- The keys the job names (its debounce key, its limiter group set) are
-- checked before the first write too.
local debounceKey
local debounceId = redis.call('HGET', jobKey, 'deid')
if debounceId then
    debounceKey = prefix .. 'de:' .. debounceId
end
local limitedSetKey = redis.call('HGET', KEYS[8], id)
if limitedSetKey and redis.call('TYPE', limitedSetKey)['ok'] ~= 'set' then
    limitedSetKey = nil
end
redis.call('LREM', KEYS[1], 0, id)
redis.call('LREM', KEYS[2], 0, id)
redis.call('ZREM', KEYS[3], id)
redis.call('LREM', KEYS[4], 0, id)
redis.call('ZREM', KEYS[5], id)
redis.call('ZREM', KEYS[6], id)
redis.call('ZREM', KEYS[7], id)
if debounceKey then
    redis.call('DEL', debounceKey)
end
redis.call('DEL', jobKey, jobKey .. ':logs')
if limitedSetKey then
    redis.call('SREM', limitedSetKey, id)
end
redis.call('HDEL', KEYS[8], id)
return 1
