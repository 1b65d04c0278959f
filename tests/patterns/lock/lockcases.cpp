// SPDX-License-Identifier: MIT
// Locks: strings that expire holding what a holder writes, found by a lock's
// word in the name, a PX TTL and the family's values; and what only looks
// like one.
#include "keyshapes.h"
#include "kit/shapecases.h"
#include "lockshapes.h"

#include <QtTest>

namespace gatehouse::test {
namespace {

// Every one of the family's 30 keys is a lock, each with reason in its
// evidence (written "<weight> <reason>"); no key is left ordinary.
std::function<void(const Detection &)> thirtyLocks(const QString &reason)
{
    return [reason](const Detection &d) {
        QVERIFY2(d.other.isEmpty(), qPrintable(QString::fromUtf8(d.other.value(0).family)));
        QCOMPARE(d.objects.size(), 30);
        for (const PatternObject &o : d.objects) {
            QCOMPARE(o.kind.id(), QStringLiteral("lock"));
            QVERIFY(evidenceScore(o.evidence) >= AutoDetector::Threshold);
            QStringList reasons;
            for (const Evidence &e : o.evidence)
                reasons << QStringLiteral("%1 %2").arg(e.weight).arg(e.reason);
            QVERIFY2(reasons.join(QLatin1Char('\n')).contains(reason),
                     qPrintable(reasons.join(QLatin1Char('\n'))));
        }
    };
}

// A lock family by the value its holders write (lockValue's shapes).
ShapeCase lockFamily(const QString &name, const QByteArray &shape, const QByteArray &prefix,
                     const QString &reason)
{
    ShapeCase c;
    c.name = name;
    c.shapes = lockFamilyShapes(shape, prefix, 30);
    c.candidates = QStringList();
    c.check = thirtyLocks(reason);
    return c;
}

// 30 keys "<prefix><i>" holding value(i) with a TTL, of which none is a lock,
// shown or candidate.
ShapeCase lookalike(const QString &name, const QByteArray &prefix,
                    const std::function<QByteArray(int)> &value, qint64 pttl)
{
    ShapeCase c;
    c.name = name;
    for (int i = 0; i < 30; ++i)
        c.shapes << stringShape(prefix + QByteArray::number(i), value(i), pttl);
    c.absent = QStringList{"lock *"};
    c.absentCandidates = QStringList{"lock *"};
    return c;
}

PatternShapes shapes()
{
    const KeyShape orders = stringShape("lock:orders", "3f9a1c2e-77b1-4c1d", 30000);
    PatternShapes p;
    p.sample = {orders};
    p.cases << profileCase("lock", {orders}, {"lock lock:orders [] window=0ms unit=1ms"},
                           {R"({"match":"lock:*","pattern":"lock"})"});

    QList<KeyShape> handles;
    for (int i = 0; i < 60; ++i)
        handles << stringShape("u:" + QByteArray::number(i) + ":t",
                               "a1b2c3d4e5f6" + QByteArray::number(i), 600000);
    p.cases << evidenceCase("random values that expire in a large family, no word: candidates",
                            handles, {}, {"lock u:{int}:t 60"}, "none with a word");
    p.cases << evidenceCase("lock named so",
                            {stringShape("lock:order:7", "3f9a1c2e-77b1-4c1d", 30000)},
                            {"lock lock:order:7"}, {}, "random token");

    // A lock is found by every sign an operator uses, not only a random
    // value: a lock's word in its name, a PX TTL, and any value a holder
    // writes (a token, one name for all, a process identity, an integer, a
    // UUID, JSON, random letters).
    p.cases << lockFamily("family holding tok<n>", "tok",
                          "lock:c:", "different values among the 30 keys");
    p.cases << lockFamily("family holding the literal tok", "literal",
                          "lock:c:", "every one of the 30 keys named lock:c:{int} holds \"tok\"");
    p.cases << lockFamily("family holding host-<n>:<pid>", "host-pid",
                          "app:job_lock:", "random token");
    p.cases << lockFamily("family holding small integers", "integer",
                          "lock:c:", "holds an integer");
    p.cases << lockFamily("family holding UUIDs", "uuid", "mutex:report:", "random token");
    p.cases << lockFamily("family holding JSON", "json", "lease:shard:", "holds JSON");
    p.cases << lockFamily("family holding random letters", "letters",
                          "lock:c:", "\"lock\" in its name");
    p.cases << lockFamily("leader election, integers", "integer",
                          "leader:scheduler:", "holds an integer");

    // Keys that hold what a holder writes, with a TTL, but whose name has no
    // lock's word ("blocklist", "clock" and "lockout" contain one's letters).
    // A value no holder writes (text, markup) or a TTL of days is none
    // either, whatever the name.
    const auto one = [](int) {
        return QByteArray("1");
    };
    p.cases << lookalike("blocklist", "blocklist:ip:", one, 600000);
    p.cases << lookalike(
        "clock skew", "clock:skew:", [](int i) { return QByteArray::number(i * 3); }, 600000);
    p.cases << lookalike("lockout", "lockout:user:", one, 900000);
    p.cases << lookalike(
        "cached ids", "cache:user:", [](int i) { return QByteArray::number(i + 7); }, 600000);
    p.cases << lookalike(
        "JSON sessions",
        "session:", [](int i) -> QByteArray { return "{\"user\":" + QByteArray::number(i) + '}'; },
        1800000);
    p.cases << lookalike(
        "worker heartbeats (short tokens, no word)",
        "worker:", [](int i) -> QByteArray { return "w" + QByteArray::number(i); }, 30000);
    p.cases << lookalike(
        "text under a lock's name",
        "lock:note:", [](int) { return QByteArray("held by the nightly job"); }, 600000);
    p.cases << lookalike(
        "markup under a lock's name",
        "lock:page:", [](int) { return QByteArray("<div>locked</div>"); }, 600000);
    p.cases << lookalike("a lock's name kept for days", "lock:user:", one, 3LL * 86400000);
    return p;
}

const ShapeRegistrar s_registrar("lock", &shapes);

} // namespace
} // namespace gatehouse::test
