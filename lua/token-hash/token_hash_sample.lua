-- token_hash_sample.lua (read-only probe): a hash whose fields are tokens,
-- each with its own TTL (HPEXPIRE, Redis 7.4+), read in a bounded sample:
-- HRANDFIELD of at most ARGV[1] distinct fields, then their HPTTL. Never
-- HGETALL. Sent only to servers with per-field expiry.
--
-- KEYS[1]  the hash
-- ARGV[1]  most fields sampled (1 to 1000)
-- Reply    {fields (HLEN), sampled, gone (expired while sampled), without TTL,
--           soonest TTL ms (-1 none), latest TTL ms (-1 none)};
--          {-1} when the key does not exist;
--          error "GHTYPE 1 <type> hash"
-- Cost     O(ARGV[1]); writes nothing
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then
    return {-1}
end
if kind ~= 'hash' then
    return redis.error_reply('GHTYPE 1 ' .. kind .. ' hash')
end
local fields = redis.call('HLEN', KEYS[1])
local sample = redis.call('HRANDFIELD', KEYS[1], tonumber(ARGV[1]))
if #sample == 0 then
    return {fields, 0, 0, 0, -1, -1}
end
local ttls = redis.call('HPTTL', KEYS[1], 'FIELDS', #sample, unpack(sample))
local gone, without, soonest, latest = 0, 0, -1, -1
for _, ttl in ipairs(ttls) do
    if ttl == -2 then
        gone = gone + 1
    elseif ttl == -1 then
        without = without + 1
    else
        if soonest < 0 or ttl < soonest then
            soonest = ttl
        end
        if ttl > latest then
            latest = ttl
        end
    end
end
return {fields, #sample, gone, without, soonest, latest}
