// SPDX-License-Identifier: MIT
// The Overview's "needs attention" list, ranked in the backend from what each
// pattern says about its objects (PatternUnit::attention): no server needed.
#include <monitor/attention.h>
#include <patterns/limiterdata.h>
#include <patterns/lock/lockdata.h>
#include <patterns/patternregistry.h>

#include <QtTest>

using namespace gatehouse;

namespace {

constexpr qint64 s_now = 1'700'000'000'000;

PatternKind kindOf(const char *id)
{
    const std::optional<PatternKind> kind = patternFromId(QLatin1String(id));
    Q_ASSERT(kind);
    return *kind;
}

ObjectState limiter(const QByteArray &key, qint64 inWindow, qint64 limit)
{
    ObjectState s;
    s.object.edit().kind = kindOf("sliding-window");
    s.object.edit().key = key;
    s.reading.atMs = s_now - 200;
    s.reading.inWindow = inWindow;
    s.reading.limit = limit;
    LimiterData::in(s.reading).retryHorizonMs = 1500;
    return s;
}

ObjectState lock(const QByteArray &key, qint64 heldSinceMs, qint64 firstSeenMs)
{
    ObjectState s;
    s.object.edit().kind = kindOf("lock");
    s.object.edit().key = key;
    s.reading.atMs = s_now;
    LockData::in(s.reading).token = "a1b2c3d4";
    s.reading.pttlMs = 30000;
    s.heldSinceMs = heldSinceMs;
    s.firstSeenMs = firstSeenMs;
    return s;
}

ObjectState queue(const QByteArray &key, qint64 stuck, qint64 oldestMs)
{
    ObjectState s;
    s.object.edit().kind = kindOf("reliable-queue");
    s.object.edit().key = key;
    s.reading.atMs = s_now - 1000;
    s.reading.editQueue().stuck = stuck;
    s.reading.editQueue().inFlight = stuck;
    s.reading.editQueue().oldestInFlightAgeMs = oldestMs;
    return s;
}

ObjectState semaphore(const QByteArray &key, qint64 holders, qint64 limit)
{
    ObjectState s;
    s.object.edit().kind = kindOf("sorted-set-semaphore");
    s.object.edit().key = key;
    s.reading.atMs = s_now;
    s.reading.inWindow = holders;
    LimiterData::in(s.reading).stored = holders;
    s.reading.limit = limit;
    LimiterData::in(s.reading).oldestAgeMs = 4000;
    return s;
}

QStringList keysOf(const QList<AttentionItem> &items)
{
    QStringList keys;
    for (const AttentionItem &i : items)
        keys << QString::fromUtf8(i.key);
    return keys;
}

} // namespace

class tst_Attention : public QObject
{
    Q_OBJECT

private slots:
    // Work at risk first (stuck jobs), then what is held too long (locks,
    // longest first), then limits nearly or fully used (by occupancy).
    void rankedAcrossPatterns()
    {
        // lock:churn, held for 8 s, is routine churn: left out.
        ObjectList objects{limiter("rl:full", 10, 10),
                           limiter("rl:hot", 9, 10),
                           limiter("rl:calm", 5, 10),
                           lock("lock:long", s_now - 60000, s_now - 60000),
                           lock("lock:short", s_now - 15000, s_now - 15000),
                           lock("lock:churn", s_now - 8000, s_now - 8000),
                           lock("lock:new", s_now - 500, s_now - 500),
                           queue("jobs:a", 1, 90000),
                           queue("jobs:b", 3, 120000),
                           queue("jobs:ok", 0, 100),
                           semaphore("sem:busy", 4, 5),
                           semaphore("sem:idle", 1, 5)};
        const QList<AttentionItem> items = rankAttention(objects, s_now);
        QCOMPARE(keysOf(items), (QStringList{"jobs:b", "jobs:a", "lock:long", "lock:short",
                                             "rl:full", "rl:hot", "sem:busy"}));
        QCOMPARE(items.at(0).score, 5.0);
        QCOMPARE(items.at(0).section, QStringLiteral("queue"));
        QCOMPARE(items.at(0).figure, QStringLiteral("inFlight"));
        // Ages projected to the snapshot's time: read 1 s before it.
        QVERIFY2(items.at(0).text.contains(QLatin1String("3 stuck, oldest in flight 2.0 min")),
                 qPrintable(items.at(0).text));
        QVERIFY2(items.at(2).text.contains(QLatin1String("lock:long held for 1.0 min")),
                 qPrintable(items.at(2).text));
        QCOMPARE(items.at(2).figure, QStringLiteral("pttlMs"));
        // Retry horizon counted down to the snapshot's time (read 200 ms before).
        QVERIFY2(items.at(4).text.contains(QLatin1String("rl:full at 100 % (retry horizon 1.3 s)")),
                 qPrintable(items.at(4).text));
        QCOMPARE(items.at(4).figure, QStringLiteral("inWindow"));
        QVERIFY2(items.at(6).text.contains(QLatin1String("4 of 5 held")),
                 qPrintable(items.at(6).text));
        QCOMPARE(items.at(6).section, QStringLiteral("semaphore"));
    }

    // Held-for is a lower bound when the lock was already held when first
    // seen, and says it counts from when watching began.
    void lockHeldAtLeastSinceFirstSeen()
    {
        ObjectList objects{lock("lock:x", -1, s_now - 12000)};
        const QList<AttentionItem> items = rankAttention(objects, s_now);
        QCOMPARE(items.size(), 1);
        QVERIFY2(
            items.first().text.contains(QStringLiteral("held for ≥ 12 s, since watching began")),
            qPrintable(items.first().text));
    }

    // Gone, failed and unknown-limit objects need no attention for what they
    // no longer show.
    void goneAndUnreadLeftOut()
    {
        ObjectState goneLock = lock("lock:gone", s_now - 60000, s_now - 60000);
        goneLock.gone = true;
        ObjectState failedLock = lock("lock:err", s_now - 60000, s_now - 60000);
        failedLock.reading.status = Reading::Status::Error;
        ObjectState unknownLimit = limiter("rl:nolimit", 100, 1);
        unknownLimit.reading.limit.reset();
        ObjectState goneQueue = queue("jobs:gone", 4, 1000);
        goneQueue.gone = true;
        ObjectList objects{goneLock, failedLock, unknownLimit, goneQueue};
        QVERIFY(rankAttention(objects, s_now).isEmpty());
    }

    // At most maxItems, the highest first; equal scores by key.
    void cutAtMaxItemsTiesByKey()
    {
        ObjectList objects;
        for (int i = 0; i < 120; ++i)
            objects.append(limiter("rl:" + QByteArray::number(1000 + i), 10, 10));
        objects.append(queue("jobs:z", 1, 5000));
        const QList<AttentionItem> items = rankAttention(objects, s_now);
        QCOMPARE(items.size(), AttentionMaxItems);
        QCOMPARE(items.first().key, QByteArray("jobs:z"));
        QCOMPARE(items.at(1).key, QByteArray("rl:1000"));
        QCOMPARE(items.last().key, QByteArray("rl:1048"));
        QCOMPARE(rankAttention(objects, s_now, 3).size(), 3);
        QCOMPARE(rankAttention(objects, s_now, 0).size(), 0);
    }

    // While the server does not answer, every pattern's line is what it said
    // at the last reading, with how long ago that was: nothing recomputed
    // against a clock the server has not confirmed.
    void outageTellsEachPatternAsLastRead_data()
    {
        QTest::addColumn<ObjectState>("object");
        QTest::newRow("limiter") << limiter("rl:full", 10, 10);
        QTest::newRow("lock") << lock("lock:long", s_now - 60000, s_now - 60000);
        QTest::newRow("queue") << queue("jobs:b", 3, 120000);
        QTest::newRow("semaphore") << semaphore("sem:gpu", 4, 4);
    }

    void outageTellsEachPatternAsLastRead()
    {
        QFETCH(ObjectState, object);
        const qint64 readAt = object.reading.atMs;
        const QList<AttentionItem> then = rankAttention({object}, readAt);
        QCOMPARE(then.size(), 1);
        object.stale = true;
        object.staleSinceMs = readAt;
        const qint64 later = readAt + 150'000; // 2.5 min without an answer
        const QList<AttentionItem> now = rankAttention({object}, later);
        QCOMPARE(now.size(), 1);
        QCOMPARE(now.first().text,
                 then.first().text
                     + QStringLiteral(", as last read 2.5 min ago (not known since)"));
        QCOMPARE(now.first().score, then.first().score);
        // Answering again: told at the time asked, with no suffix.
        object.stale = false;
        QVERIFY(!rankAttention({object}, later).first().text.contains(QLatin1String("last read")));
    }
};

QTEST_GUILESS_MAIN(tst_Attention)
#include "tst_attention.moc"
