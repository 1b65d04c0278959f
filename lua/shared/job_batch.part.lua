-- shared/job_batch.part.lua: batchReply(ids, act, cut) calls act(id) on each
-- id in turn and answers as a batch action does: {moved, moved, id...}, the
-- ids act returned 1 for, each cut to cut bytes (the engine reads the count
-- twice: done, and done this call).
local function batchReply(ids, act, cut)
    local reply = {0, 0}
    for _, id in ipairs(ids) do
        if act(id) == 1 then
            reply[#reply + 1] = string.sub(id, 1, cut)
        end
    end
    reply[1] = #reply - 2
    reply[2] = #reply - 2
    return reply
end
