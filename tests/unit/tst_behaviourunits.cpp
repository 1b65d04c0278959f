// SPDX-License-Identifier: MIT
// Behaviour evidence without a server: each pattern's notes on two
// consecutive readings (PatternUnit::observeBehaviour) and the verdict they
// add up to (BehaviourTrack::verdict). tst_behaviour watches a real client.
#include <patterns/behaviourreadings.h>
#include <patterns/limiterdata.h>
#include <patterns/lock/lockdata.h>
#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

#include <QtTest>

using namespace gatehouse;

namespace {

constexpr qint64 s_t0 = 1800000000000;

Reading ok(qint64 atMs)
{
    Reading r;
    r.atMs = s_t0 + atMs;
    return r;
}

Reading lockHeld(qint64 atMs, const QByteArray &token, qint64 pttlMs)
{
    Reading r = ok(atMs);
    LockData::in(r).token = token;
    r.pttlMs = pttlMs;
    return r;
}

Reading missing(qint64 atMs)
{
    Reading r = ok(atMs);
    r.status = Reading::Status::Missing;
    r.pttlMs = -2;
    return r;
}

Reading counter(qint64 atMs, qint64 count, qint64 pttlMs)
{
    Reading r = ok(atMs);
    r.inWindow = count;
    LimiterData::in(r).stored = count;
    r.pttlMs = pttlMs;
    LimiterData::in(r).resetMs = pttlMs;
    return r;
}

Reading window(qint64 atMs, qint64 oldestAtMs, qint64 inWindow, qint64 stored, qint64 windowMs)
{
    Reading r = ok(atMs);
    r.inWindow = inWindow;
    LimiterData::in(r).stored = stored;
    LimiterData::in(r).windowMs = windowMs;
    LimiterData::in(r).oldestAgeMs = atMs - oldestAtMs;
    return r;
}

// Feeds readings one after another, as the monitor does.
BehaviourTrack watch(const char *pattern, const QList<Reading> &readings,
                     const PatternObject &object = {}, const QList<QList<RedisValue>> &replies = {},
                     bool eventsLive = false, bool deletedBetween = false,
                     bool writtenBetween = false)
{
    const PatternUnit &unit = PatternUnit::of(PatternKind(pattern));
    BehaviourTrack t;
    t.eventsLive = eventsLive;
    for (qsizetype i = 1; i < readings.size(); ++i) {
        t.deletedSinceRead = deletedBetween;
        t.writtenSinceRead = writtenBetween;
        unit.observeBehaviour(t, object, readings.at(i - 1), readings.at(i), replies.value(i));
        ++t.steps;
    }
    return t;
}

int weight(const BehaviourTrack &t)
{
    const std::optional<Evidence> v = t.verdict(QStringLiteral("lock"));
    return v ? v->weight : 0;
}

QList<RedisValue> pttls(const QList<qint64> &values)
{
    QList<RedisValue> out;
    for (qint64 v : values)
        out.append(RedisValue::integer(v));
    return out;
}

} // namespace

class tst_BehaviourUnits : public QObject
{
    Q_OBJECT

private slots:
    void verdictWeighsTheNotes_data()
    {
        QTest::addColumn<int>("confirms");
        QTest::addColumn<int>("against");
        QTest::addColumn<int>("weight");
        QTest::newRow("nothing seen") << 0 << 0 << 0;
        QTest::newRow("one confirmation") << 1 << 0 << BehaviourTrack::ConfirmWeight;
        QTest::newRow("two polled overwrites: not yet") << 0 << 2 << 0;
        QTest::newRow("three overwrites") << 0 << 3 << BehaviourTrack::AgainstWeight;
        QTest::newRow("mixed: neither") << 2 << 3 << 0;
        QTest::newRow("confirmations outweigh one overwrite")
            << 3 << 1 << BehaviourTrack::ConfirmWeight;
    }

    void verdictWeighsTheNotes()
    {
        QFETCH(int, confirms);
        QFETCH(int, against);
        QFETCH(int, weight);
        BehaviourTrack t;
        t.steps = confirms + against;
        for (int i = 0; i < confirms; ++i)
            t.confirm(QStringLiteral("for"));
        for (int i = 0; i < against; ++i)
            t.argue(QStringLiteral("against"));
        QCOMPARE(::weight(t), weight);
    }

    void lockOverwrittenInPlaceIsACache()
    {
        const BehaviourTrack t
            = watch("lock", {lockHeld(0, "a1", 60000), lockHeld(200, "b2", 59800),
                             lockHeld(400, "c3", 59800), lockHeld(600, "d4", 59800)});
        QCOMPARE(weight(t), BehaviourTrack::AgainstWeight);
        QVERIFY(t.verdict(QStringLiteral("lock"))->reason.contains(QLatin1String("overwritten")));
        // With keyspace events live and no deletion heard: one write is
        // enough, once the next reading shows no deletion's event came late.
        QCOMPARE(weight(watch("lock", {lockHeld(0, "a1", 60000), lockHeld(200, "b2", 60000)}, {},
                              {}, true)),
                 0);
        QCOMPARE(weight(watch("lock",
                              {lockHeld(0, "a1", 60000), lockHeld(200, "b2", 60000),
                               lockHeld(400, "b2", 59800)},
                              {}, {}, true)),
                 BehaviourTrack::AgainstWeight);
    }

    // A new holder's SET heard after the reading that already showed its
    // token: not a rewrite in place.
    void lockWriteHeardAfterItsReadingIsALock()
    {
        const PatternUnit &unit = PatternUnit::of(PatternKind("lock"));
        const QList<Reading> r{lockHeld(0, "a1", 60000), missing(200), lockHeld(400, "b2", 59800),
                               lockHeld(600, "b2", 59600)};
        BehaviourTrack t;
        t.eventsLive = true;
        for (int i = 1; i < r.size(); ++i) {
            t.deletedSinceRead = i == 1;
            t.writtenSinceRead = i == 3; // b2's "set", arrived after the reading at 400
            unit.observeBehaviour(t, {}, r.at(i - 1), r.at(i), {});
            ++t.steps;
        }
        QCOMPARE(t.against, 0);
    }

    // Events come on their own connection: a release's deletion may be heard
    // after the reading that already shows the next holder's token.
    void lockDeletionHeardAfterTheNewTokenIsALock()
    {
        const PatternUnit &unit = PatternUnit::of(PatternKind("lock"));
        const QList<Reading> r{lockHeld(0, "a1", 60000), lockHeld(200, "b2", 60000),
                               lockHeld(400, "b2", 59800)};
        BehaviourTrack t;
        t.eventsLive = true;
        unit.observeBehaviour(t, {}, r.at(0), r.at(1), {});
        t.deletedSinceRead = true; // the "del" event, arrived after the reply
        unit.observeBehaviour(t, {}, r.at(1), r.at(2), {});
        QCOMPARE(weight(t), BehaviourTrack::ConfirmWeight);
        QCOMPARE(t.against, 0);
    }

    // A release and a new holder right after a reading, whose events
    // arrive before that reading's reply: the deletion is heard with a
    // pair that shows one token, and the next pair shows the new token.
    void lockDeletionHeardBeforeItsReadingsReplyIsALock()
    {
        const PatternUnit &unit = PatternUnit::of(PatternKind("lock"));
        const QList<Reading> r{lockHeld(0, "a1", 60000), lockHeld(200, "a1", 59800),
                               lockHeld(400, "b2", 60000), lockHeld(600, "b2", 59800),
                               lockHeld(800, "b2", 59600)};
        BehaviourTrack t;
        t.eventsLive = true;
        for (int i = 1; i < r.size(); ++i) {
            t.deletedSinceRead = i == 1; // a1's "del", heard before the reply at 200
            t.writtenSinceRead = i == 1; // b2's "set"
            unit.observeBehaviour(t, {}, r.at(i - 1), r.at(i), {});
            ++t.steps;
        }
        QCOMPARE(t.against, 0);
        // Without that deletion, the new token is an overwrite in place.
        BehaviourTrack u;
        u.eventsLive = true;
        for (int i = 1; i < r.size(); ++i) {
            u.writtenSinceRead = i == 2;
            unit.observeBehaviour(u, {}, r.at(i - 1), r.at(i), {});
            ++u.steps;
        }
        QCOMPARE(u.against, BehaviourTrack::CertainWeight);
    }

    // A lock just found, a new holder right after its first reading: the
    // release's and the new holder's events arrive before that reading's
    // reply. They belong to the first pair, not to the key's past.
    void lockTakenOverWhileItsFirstReadingTravels()
    {
        const PatternUnit &unit = PatternUnit::of(PatternKind("lock"));
        const QList<Reading> r{lockHeld(0, "a1", 60000), lockHeld(200, "b2", 60000),
                               lockHeld(400, "b2", 59800), lockHeld(600, "b2", 59600)};
        BehaviourTrack t;
        t.eventsLive = true;
        t.writtenSinceRead = true; // a1's own "set", heard before the first reading was sent
        t.deletedSinceRead = true; // an earlier holder's release
        readingSent(t, true);
        QVERIFY(!t.deletedSinceRead && !t.writtenSinceRead); // the key's past
        t.deletedSinceRead = true; // a1 released and b2 taken, heard before the reply
        t.writtenSinceRead = true;
        readingTaken(t, true);
        for (int i = 1; i < r.size(); ++i) {
            readingSent(t, false);
            unit.observeBehaviour(t, {}, r.at(i - 1), r.at(i), {});
            ++t.steps;
            readingTaken(t, false);
        }
        QCOMPARE(t.against, 0);
        QCOMPARE(t.confirms, 1);
        // A later reading hands what it heard to its pair and forgets it.
        t.deletedSinceRead = true;
        readingTaken(t, false);
        QVERIFY(!t.deletedSinceRead);
    }

    void lockDeletedAndTakenAgainIsALock()
    {
        const BehaviourTrack t
            = watch("lock", {lockHeld(0, "a1", 5000), missing(100), lockHeld(200, "b2", 5000)});
        QCOMPARE(weight(t), BehaviourTrack::ConfirmWeight);
        // A deletion the keyspace events saw between two holders.
        QCOMPARE(weight(watch("lock", {lockHeld(0, "a1", 5000), lockHeld(200, "b2", 5000)}, {}, {},
                              true, true)),
                 BehaviourTrack::ConfirmWeight);
        // The same holder extending its TTL, or a holder whose TTL ran out
        // replaced (caches expire and are filled again too): nothing.
        QCOMPARE(weight(watch("lock", {lockHeld(0, "a1", 5000), lockHeld(200, "a1", 9000)})), 0);
        const BehaviourTrack expired
            = watch("lock", {lockHeld(0, "a1", 50), missing(200), lockHeld(300, "b2", 5000)});
        QCOMPARE(expired.confirms + expired.against, 0);
    }

    // A lock whose every holder writes the same value ("tok", "1"): only
    // keyspace events tell a new holder, or a rewrite in place, from the same
    // holder extending its TTL.
    void lockOfOneValueByItsEvents()
    {
        const QList<Reading> same{lockHeld(0, "tok", 5000), lockHeld(200, "tok", 5000)};
        QCOMPARE(weight(watch("lock", same)), 0);
        QCOMPARE(weight(watch("lock", same, {}, {}, false, true, true)), 0); // not live: unseen
        QCOMPARE(weight(watch("lock", same, {}, {}, true)), 0); // extended (PEXPIRE): no write
        // Released and taken again between two readings.
        const BehaviourTrack retaken = watch("lock", same, {}, {}, true, true, true);
        QCOMPARE(weight(retaken), BehaviourTrack::ConfirmWeight);
        QVERIFY(retaken.confirmReason.contains(QLatin1String("same value")));
        // SET again while it lived: a cache refreshed in place. Not from the
        // first pair: a write heard then may be the one that wrote the value
        // the first reading showed (its event comes on another connection).
        QCOMPARE(weight(watch("lock", same, {}, {}, true, false, true)), 0);
        const BehaviourTrack rewritten = watch(
            "lock", same + QList<Reading>{lockHeld(400, "tok", 5000)}, {}, {}, true, false, true);
        QCOMPARE(weight(rewritten), BehaviourTrack::AgainstWeight);
        QVERIFY(rewritten.againstReason.contains(QLatin1String("written again in place")));
    }

    void counterResetAtItsBoundaryIsAFixedWindow()
    {
        const BehaviourTrack t = watch(
            "fixed-window", {counter(0, 7, 80), counter(100, 1, 990), counter(200, 2, 890)});
        QCOMPARE(t.confirms, 1);
        QCOMPARE(t.against, 0);
        // Expired, then a new window.
        QCOMPARE(watch("fixed-window", {counter(0, 7, 80), missing(100), counter(200, 1, 1000)})
                     .confirms,
                 1);
        // Counted down within a window: adjusted in place.
        const BehaviourTrack down
            = watch("fixed-window", {counter(0, 9, 50000), counter(100, 8, 49900),
                                     counter(200, 7, 49800), counter(300, 6, 49700)});
        QCOMPARE(down.against, 3);
        QCOMPARE(down.confirms, 0);
        // A per-day counter counting up: nothing either way.
        const BehaviourTrack up
            = watch("fixed-window", {counter(0, 5, 86000000), counter(100, 6, 85999900)});
        QCOMPARE(up.confirms + up.against, 0);
    }

    void windowTrimmedByTimeIsALimiter()
    {
        // The oldest entry removed while newer ones stayed, nothing stale left.
        QCOMPARE(
            watch("sliding-window", {window(0, -900, 4, 4, 1000), window(300, -600, 4, 4, 1000)})
                .confirms,
            1);
        // Unknown window: every member is read, the oldest moving is a removal.
        QCOMPARE(watch("sliding-window", {window(0, -5000, 9, 9, 0), window(300, -100, 8, 8, 0)})
                     .confirms,
                 1);
        // Entries only leaving the window read, still stored: not trimmed.
        QCOMPARE(
            watch("sliding-window", {window(0, -900, 4, 6, 1000), window(300, -600, 4, 7, 1000)})
                .confirms,
            0);
    }

    void tokenDeletedBeforeItsTtlIsAToken()
    {
        PatternObject family;
        family.kind = PatternKind("token-family");
        family.key = "code:";
        family.members = {"code:aa11", "code:bb22"};
        const Reading first = ok(0);
        const Reading second = ok(100);
        const Reading third = ok(200);
        // The first reading is what later ones compare to: no step.
        const BehaviourTrack used
            = watch("token-family", {first, second, third}, family,
                    {pttls({300000, 300000}), pttls({299900, 299900}), pttls({-2, 299800})});
        QCOMPARE(used.confirms, 1);
        QCOMPARE(used.against, 0);
        // A member whose TTL was set again: rewritten, as a cache is.
        const BehaviourTrack rewritten
            = watch("token-family", {first, second, third}, family,
                    {pttls({300000, 300000}), pttls({299900, 299900}), pttls({299800, 600000})});
        QCOMPARE(rewritten.against, 1);
        QCOMPARE(rewritten.confirms, 0);
    }
};

QTEST_GUILESS_MAIN(tst_BehaviourUnits)
#include "tst_behaviourunits.moc"
