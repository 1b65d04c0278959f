// SPDX-License-Identifier: MIT
// A pattern's own data in a reading (PatternData): written by its unit only,
// shared between copies until one is written, projected by itself, and
// judged by the pattern that owns it. No server needed.
#include <patterns/lock/lockdata.h>
#include <patterns/objecthealth.h>
#include <patterns/patternregistry.h>
#include <patterns/token-family/tokendata.h>

#include <QtTest>

using namespace gatehouse;

namespace {

PatternKind kindOf(const char *id)
{
    const std::optional<PatternKind> kind = patternFromId(QLatin1String(id));
    Q_ASSERT(kind);
    return *kind;
}

} // namespace

class tst_PatternData : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { PatternRegistry::instance(); }

    // A copy shares the data (snapshots and history hold many copies of a
    // reading); writing a copy leaves the reading it came from as it was.
    void copiesShareUntilWritten()
    {
        Reading read;
        LockData::in(read).token = "holder-1";
        const Reading shown = read;
        QCOMPARE(&LockData::of(shown), &LockData::of(read));

        Reading changed = read;
        LockData::in(changed).token = "holder-2";
        QCOMPARE(LockData::of(read).token, QByteArray("holder-1"));
        QCOMPARE(LockData::of(shown).token, QByteArray("holder-1"));
        QCOMPARE(LockData::of(changed).token, QByteArray("holder-2"));
        QVERIFY(&LockData::of(changed) != &LockData::of(read));
    }

    // A library object's part of a reading (layout, counts, stuck jobs,
    // workers, parts): none in a reading that was never given one (every
    // such reading answers with the one set of defaults), shared by copies,
    // copied before a write.
    void libraryPartOnlyWhereWritten()
    {
        const Reading lock;
        const Reading limiter;
        QCOMPARE(&lock.library(), &limiter.library()); // the defaults, not a part each
        QVERIFY(lock.library().layoutKnown);
        QCOMPARE(lock.library().workersAlive, qint64(-1));
        QVERIFY(lock.library().counts.isEmpty());

        Reading queue;
        queue.editLibrary().counts = {{QStringLiteral("wait"), 3}};
        queue.editLibrary().workersAlive = 0;
        QVERIFY(&queue.library() != &lock.library());
        QCOMPARE(queue.library().countOf(u"wait"), qint64(3));
        const Reading shown = queue;
        QCOMPARE(&shown.library(), &queue.library());
        Reading later = queue;
        later.editLibrary().paused = true;
        QVERIFY(!queue.library().paused);
        QVERIFY(!shown.library().paused);
        QVERIFY(later.library().paused);
        QCOMPARE(later.library().countOf(u"wait"), qint64(3));
        // A projection keeps it, shared.
        QCOMPARE(&queue.at(queue.atMs + 5000).library(), &queue.library());
    }

    // What a queue, semaphore or lock holds: none in a reading never given
    // it (a limiter's, a token's), shared by copies, copied before a write,
    // and aged by a projection without touching the reading it came from.
    void queuePartOnlyWhereWritten()
    {
        const Reading limiter;
        const Reading token;
        QCOMPARE(&limiter.queue(), &token.queue()); // the defaults, not a part each
        QCOMPARE(limiter.queue().oldestInFlightAgeMs, qint64(-1));
        QVERIFY(limiter.queue().items.isEmpty());
        // Unchanged by time, it is shared by the projection too.
        QCOMPARE(&limiter.at(limiter.atMs + 5000).queue(), &limiter.queue());

        Reading queue;
        queue.atMs = 1000;
        queue.editQueue().length = 7;
        queue.editQueue().inFlight = 2;
        queue.editQueue().items = {{"job-1", 400}, {"job-2", 100}};
        queue.editQueue().oldestInFlightAgeMs = 400;
        const Reading shown = queue;
        QCOMPARE(&shown.queue(), &queue.queue());
        Reading later = queue;
        later.editQueue().stuck = 1;
        QCOMPARE(queue.queue().stuck, qint64(0));
        QCOMPARE(shown.queue().stuck, qint64(0));
        QCOMPARE(later.queue().stuck, qint64(1));
        QCOMPARE(later.queue().length, qint64(7));

        const Reading projected = queue.at(3500);
        QCOMPARE(projected.queue().oldestInFlightAgeMs, qint64(2900));
        QCOMPARE(projected.queue().items.at(0).ageMs, qint64(2900));
        QCOMPARE(projected.queue().items.at(1).ageMs, qint64(2600));
        QCOMPARE(projected.queue().length, qint64(7));
        QCOMPARE(queue.queue().oldestInFlightAgeMs, qint64(400));
        QCOMPARE(queue.queue().items.at(0).ageMs, qint64(400));
    }

    // Another pattern's reading answers with defaults, and asking writes
    // nothing into it.
    void anotherPatternsDataReadsAsDefaults()
    {
        Reading limiter;
        limiter.inWindow = 4;
        QVERIFY(!limiter.hasData());
        QCOMPARE(LockData::of(limiter).token, QByteArray());
        QCOMPARE(LockData::of(limiter).expiresAtMs, qint64(-1));
        QCOMPARE(TokenData::of(limiter).count, qint64(0));
        QVERIFY(!limiter.hasData());

        Reading lock;
        LockData::in(lock).token = "t";
        QCOMPARE(TokenData::of(lock).minTtlMs, qint64(-1));
        QCOMPARE(LockData::of(lock).token, QByteArray("t"));
    }

    // Reading::at projects the shared figures and the pattern's own times;
    // data with no times is shared by the projection, not copied.
    void projectionMovesTheDatasOwnTimes()
    {
        Reading family;
        family.atMs = 1'000;
        family.pttlMs = 8'000;
        TokenData &tokens = TokenData::in(family);
        tokens.count = 3;
        tokens.minTtlMs = 5'000;
        tokens.maxTtlMs = 9'000;

        const Reading later = family.at(3'500);
        QCOMPARE(later.pttlMs, qint64(5'500));
        QCOMPARE(TokenData::of(later).minTtlMs, qint64(2'500));
        QCOMPARE(TokenData::of(later).maxTtlMs, qint64(6'500));
        QCOMPARE(TokenData::of(later).count, qint64(3));
        QCOMPARE(TokenData::of(family).minTtlMs, qint64(5'000)); // the reading as read

        // Past the shortest TTL it stops at 0, as every countdown does.
        QCOMPARE(TokenData::of(family.at(7'000)).minTtlMs, qint64(0));

        Reading lock;
        lock.atMs = 1'000;
        LockData::in(lock).token = "holder";
        LockData::in(lock).expiresAtMs = 60'000;
        const Reading lockLater = lock.at(3'000);
        QCOMPARE(&LockData::of(lockLater), &LockData::of(lock));
        QCOMPARE(LockData::of(lockLater).expiresAtMs, qint64(60'000)); // a time, not a countdown
    }

    // A token family's tokens without a TTL are its own judgement now, not
    // the default health every pattern gets.
    void tokensWithoutTtlAreJudgedByTheirPattern()
    {
        ObjectState family;
        family.object.edit().kind = kindOf("token-family");
        family.object.edit().key = "reset:*";
        family.reading.atMs = 1'000;
        TokenData::in(family.reading).count = 5;
        TokenData::in(family.reading).withoutTtl = 2;
        ObjectHealth h = objectHealth(family, 1'000);
        QCOMPARE(h.id, states::Orphaned);
        QCOMPARE(h.words, QStringLiteral("2 without TTL"));
        QCOMPARE(h.severity, Severity::Warning);

        ObjectState hash = family;
        hash.object.edit().kind = kindOf("token-hash");
        QCOMPARE(objectHealth(hash, 1'000).id, states::Orphaned);

        TokenData::in(family.reading).withoutTtl = 0;
        QCOMPARE(objectHealth(family, 1'000).id, states::Ok);

        // A gone family is gone, whatever its last reading held.
        TokenData::in(family.reading).withoutTtl = 2;
        family.gone = true;
        QCOMPARE(objectHealth(family, 1'000).id, states::Gone);
    }

    // The console's Copy token and the held-for metric ask the unit.
    void holderTokenIsTheLocksOnly()
    {
        ObjectState lock;
        lock.object.edit().kind = kindOf("lock");
        LockData::in(lock.reading).token = "a1b2";
        QCOMPARE(PatternUnit::of(lock.object->kind).holderToken(lock), QByteArray("a1b2"));

        ObjectState family;
        family.object.edit().kind = kindOf("token-family");
        TokenData::in(family.reading).count = 1;
        QCOMPARE(PatternUnit::of(family.object->kind).holderToken(family), QByteArray());
    }
};

QTEST_GUILESS_MAIN(tst_PatternData)
#include "tst_patterndata.moc"
