// SPDX-License-Identifier: MIT
// A stream consumed by a group: a pending entry dead-lettered (copied with
// its id, then acked) only while it is pending in the group. "unexpected":
// the group never read it (not pending); a stream without the group
// ("stream") or none ("missing") finds nothing to do. And every call its
// actions build, on the stream "s".
#include "kit/actioncases.h"

#include <patterns/stream-group/streamgroupunit.h>

#include "redisserver.h"

#include <QTest>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    const PatternObject stream = StreamGroupUnit().conventionalObject("s");
    const QList<Command> pendingEntry{
        {"XADD", "s", "1-1", "job", "jobA"},
        {"XGROUP", "CREATE", "s", "g", "0"},
        {"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"}};
    PatternActionRows r;
    r.cases.append({QStringLiteral("queue.dead-letter stream"),
                    {"s", "s:dead"},
                    {pendingEntry, {{"XADD", "s:dead", "1-0", "job", "old"}}},
                    {{{"XADD", "s", "1-1", "job", "jobA"}, {"XGROUP", "CREATE", "s", "g", "0"}},
                     {{"XADD", "s:dead", "1-0", "other", "x"}}},
                    {"stream", "stream"},
                    [stream] { return StreamGroupUnit::deadLetter(stream, "g", "1-1"); },
                    [](const ActionCaseRun &r) {
                        if (r.out.result != ActionOutcome::Result::Done)
                            return;
                        // Copied once, with its id, and acked; the entry stays in the stream.
                        const RedisValue dead = call(r.client, {"XRANGE", "s:dead", "-", "+"});
                        int copies = 0;
                        for (const RedisValue &e : dead.elements())
                            copies += e.at(1).elements().contains(RedisValue::bulk("1-1")) ? 1 : 0;
                        QCOMPARE(copies, 1);
                        QCOMPARE(call(r.client, {"XPENDING", "s", "g"}).at(0).toInteger(), 0);
                        QCOMPARE(call(r.client, {"XLEN", "s"}).toInteger(), 1);
                    }});
    r.conventionalKey = "s";
    return r;
}

const ActionRowsRegistrar s_registrar("stream-group", &rows);

} // namespace
} // namespace gatehouse::test
