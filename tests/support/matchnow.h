// SPDX-License-Identifier: MIT
#pragma once
// The count a batch action's confirmation shows ("12 match now; …"), read
// as the console reads it: the pattern builds the call from its own action
// (as the button and the CLI do), MatchCount reads its bounded counts from
// the real server. Header-only, for the library integration tests.

#include <actions/matchcount.h>
#include <patterns/patternunit.h>
#include <redis/redisclient.h>

#include <QDateTime>
#include <QTest>

namespace gatehouse::test {

struct MatchNow
{
    bool ok = false;   // the action was found, built and counted
    qint64 count = -1; // how many match now
    QString sentence;  // the confirmation's sentence
    QString error;     // why not ok
};

inline MatchNow matchNow(RedisClient &client, PatternKind kind, const PatternObject &object,
                         const QString &actionId, const QHash<QString, QByteArray> &inputs)
{
    MatchNow out;
    const PatternUnit &unit = PatternUnit::of(kind);
    const PatternAction *action = nullptr;
    const QList<PatternAction> actions = unit.actions();
    for (const PatternAction &a : actions) {
        if (a.id == actionId)
            action = &a;
    }
    if (!action) {
        out.error = QStringLiteral("no action %1").arg(actionId);
        return out;
    }
    ActionRequest request;
    request.object = object;
    request.target = object.key;
    request.inputs = inputs;
    const ScriptCall call = action->build(request);
    if (!MatchCount::counts({call})) {
        out.error = QStringLiteral("%1 has no match count").arg(call.script);
        return out;
    }
    bool done = false;
    QObject context;
    MatchCount::read(&client, {call}, QDateTime::currentMSecsSinceEpoch(), &context,
                     [&](const MatchCount::Result &r) {
                         done = true;
                         out.ok = r.counted && r.ok;
                         out.count = r.count;
                         out.error = r.error;
                         out.sentence = MatchCount::sentence(r, {call});
                     });
    if (!QTest::qWaitFor([&] { return done; }, 10000))
        out.error = QStringLiteral("no reply in 10 s");
    return out;
}

} // namespace gatehouse::test
