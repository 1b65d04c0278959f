-- stream_trim.lua: trim a stream's oldest entries, by MAXLEN or MINID,
-- exactly (not "~"), counted first: a count-only run writes nothing and
-- says how many entries would go and which groups would lose entries they
-- have not acknowledged or not yet read; a real run refuses to delete more
-- than the count the operator was shown.
-- Redis's own semantics (redis.io/commands, Redis 7.0):
--   XTRIM key MAXLEN n: keeps the newest n entries; XTRIM key MINID id:
--     deletes the entries with an id below id. Returns how many it deleted.
--     Trimmed entries that a group still has pending stay in its PEL
--     (XCLAIM then drops them), and entries a group has not read are gone.
--   XRANGE key start end COUNT n: entries in id order (walked in pages of
--     100 to find the last entry the trim deletes; "(" start: 6.2+).
--   XINFO GROUPS key: each group's last-delivered-id; XPENDING key group -
--     id 1: whether it has a pending entry at or below id.
-- The key is checked to be a stream before anything is written.
--
-- KEYS[1]  the stream
-- ARGV[1]  "MAXLEN" or "MINID"
-- ARGV[2]  the threshold: a count (MAXLEN) or an id (MINID)
-- ARGV[3]  "count" (count only, write nothing), or the most entries the
--          operator agreed to delete (the count they were shown)
-- ARGV[4]  "force": trim even when a group has pending or unread entries
--          among those deleted; "" otherwise
-- ARGV[5]  most entries one trim deletes (the walk's bound)
-- Reply    {"count", n, length, last deleted id ("" none), {group, ...} with
--          pending entries among them, {group, ...} not yet past them}:
--          count-only, or nothing deleted (n = 0);
--          {-1} the stream does not exist; {-6, n} more than ARGV[3] would
--          go (nothing written); {-7, n} more than ARGV[5] would go;
--          {-8, n, {groups pending}, {groups unread}} a group would lose
--          entries (nothing written; "force" trims anyway);
--          {"trimmed", deleted, length before};
--          error "GHTYPE 1 <type> stream" (nothing written)
-- Cost     O(G + n + log N): n <= ARGV[5] entries walked and deleted
local strategy, threshold, mode = ARGV[1], ARGV[2], ARGV[3]
local bound = tonumber(ARGV[5]) or 100000
if strategy ~= 'MAXLEN' and strategy ~= 'MINID' then
    return redis.error_reply('ERR stream_trim: MAXLEN or MINID')
end
local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'none' then
    return {-1}
end
if t ~= 'stream' then
    return redis.error_reply('GHTYPE 1 ' .. t .. ' stream')
end

local function parse(id)
    local ms, seq = string.match(id, '^(%d+)-(%d+)$')
    if not ms then
        ms, seq = string.match(id, '^(%d+)$'), '0'
    end
    return tonumber(ms), tonumber(seq)
end
local function below(a, b) -- id a < id b
    local am, as = parse(a)
    local bm, bs = parse(b)
    return am < bm or (am == bm and as < bs)
end

local length = redis.call('XLEN', KEYS[1])
local n = 0
if strategy == 'MAXLEN' then
    local keep = tonumber(threshold)
    if not keep or keep < 0 then
        return redis.error_reply('ERR stream_trim: MAXLEN needs a count')
    end
    n = math.max(0, length - keep)
elseif not parse(threshold) then
    return redis.error_reply('ERR stream_trim: MINID needs an id')
end
-- Walk the oldest entries to the last one the trim deletes (MINID: count them).
local last = ''
local start = '-'
local walked = 0
while true do
    if strategy == 'MAXLEN' and walked >= n then
        break
    end
    if walked > bound then
        return {-7, strategy == 'MAXLEN' and n or walked}
    end
    local want = 100
    if strategy == 'MAXLEN' then
        want = math.min(100, n - walked)
    end
    local page = redis.call('XRANGE', KEYS[1], start, '+', 'COUNT', want)
    if #page == 0 then
        break
    end
    local stop = false
    for _, e in ipairs(page) do
        if strategy == 'MINID' and not below(e[1], threshold) then
            stop = true
            break
        end
        walked = walked + 1
        last = e[1]
    end
    if stop or #page < want then
        break
    end
    start = '(' .. last
end
if strategy == 'MINID' then
    n = walked
end
if n > bound then
    return {-7, n}
end

local pending, unread = {}, {}
if n > 0 then
    for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
        local f = {}
        for i = 1, #g, 2 do
            f[g[i]] = g[i + 1]
        end
        if #redis.call('XPENDING', KEYS[1], f['name'], '-', last, 1) > 0 then
            pending[#pending + 1] = f['name']
        end
        if below(f['last-delivered-id'], last) then
            unread[#unread + 1] = f['name']
        end
    end
end
if mode == 'count' or n == 0 then
    return {'count', n, length, last, pending, unread}
end
local agreed = tonumber(mode)
if not agreed or n > agreed then
    return {-6, n}
end
if ARGV[4] ~= 'force' and (#pending > 0 or #unread > 0) then
    return {-8, n, pending, unread}
end
local deleted
if strategy == 'MAXLEN' then
    deleted = redis.call('XTRIM', KEYS[1], 'MAXLEN', tonumber(threshold))
else
    deleted = redis.call('XTRIM', KEYS[1], 'MINID', threshold)
end
return {'trimmed', deleted, length}
