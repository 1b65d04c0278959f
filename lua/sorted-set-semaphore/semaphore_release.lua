-- semaphore_release.lua: the operator's "release one holder" of a
-- sorted-set semaphore: remove the holder only if it still holds the slot
-- the console showed. A holder that released and acquired again has a new
-- score, and is left alone. Every check comes before the only write (ZREM),
-- so under EVAL_RO (the engine's dry run) a matching holder fails at ZREM
-- with the server's "not allowed from read-only scripts" error, and every
-- other outcome comes back as it would for real.
--
-- KEYS[1]  semaphore ZSET: member = holder id, score = acquire time in ms
-- ARGV[1]  holder id
-- ARGV[2]  the score the console showed: a whole number of ms, as a string
--          (compared as a number with the holder's current score)
-- Reply    {1, "released"} when removed; {0, "gone"} when the holder is not
--          there (nothing written, a missing key is not created);
--          {0, "changed", current score as Redis prints it} when it holds
--          another score (nothing written). The holder id is not echoed, so
--          every reply is a few bytes long.
--          Error "GHTYPE 1 <type> zset" when the key is not a ZSET, error
--          "ERR semaphore_release: ..." when ARGV[2] is not a whole number
--          (nothing written either way)
-- Cost     O(log N)
local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'none' and t ~= 'zset' then
    return redis.error_reply('GHTYPE 1 ' .. t .. ' zset')
end
-- At most 15 characters: every such whole number is exact as a double.
local shown = #ARGV[2] <= 15 and string.match(ARGV[2], '^%-?%d+$') and tonumber(ARGV[2])
if not shown then
    return redis.error_reply('ERR semaphore_release: the shown score must be a whole number of ms')
end
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then
    return {0, 'gone'}
end
if tonumber(score) ~= shown then
    return {0, 'changed', score}
end
redis.call('ZREM', KEYS[1], ARGV[1])
return {1, 'released'}
