-- Whether the connected user may run each of a list of commands, without
-- running any of them: redis.acl_check_cmd (Redis 7.0+) asks the server's
-- ACL about a command and its arguments (command and keys) and runs nothing.
-- Read-only: Gatehouse sends it with EVAL_RO.
--
-- KEYS: the action's keys (they route the call in a Cluster; the commands
--       below name them again in their own arguments)
-- ARGV: the commands, each as a count N followed by its N words
--       (N1, word, ..., N2, word, ...)
-- Reply: the 1-based positions of the commands the ACL refuses (empty: none is
-- known to be refused).
local refused = {}
local i, index = 1, 0
while i <= #ARGV do
    local n = tonumber(ARGV[i])
    if not n or n < 1 or i + n > #ARGV then
        return redis.error_reply('GHSHAPE 0 a malformed command list')
    end
    index = index + 1
    -- A command the server does not know or whose arguments it rejects
    -- raises an error: it is not known to be refused, and the rest is
    -- still checked.
    local ok, allowed = pcall(redis.acl_check_cmd, unpack(ARGV, i + 1, i + n))
    if ok and not allowed then
        refused[#refused + 1] = index
    end
    i = i + n + 1
end
return refused
