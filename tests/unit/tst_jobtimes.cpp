// SPDX-License-Identifier: MIT
// The wait and run quantiles a library queue's reading carries
// (patterns/libraryqueue/jobtimes): nearest rank, the window, spans the
// clocks of two machines made negative, and replies of the wrong shape.
#include <patterns/libraryqueue/jobtimes.h>

#include <QtTest>

#include <cmath>

using namespace gatehouse;
using namespace gatehouse::libraryqueue;

class tst_JobTimes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void nearestRank()
    {
        QList<qint64> hundred;
        for (int i = 1; i <= 100; ++i)
            hundred << i;
        QCOMPARE(quantile(hundred, 0.5), 50);
        QCOMPARE(quantile(hundred, 0.95), 95);
        QCOMPARE(quantile(hundred, 0.99), 99);
        QCOMPARE(quantile({7}, 0.5), 7);
        QCOMPARE(quantile({7}, 0.99), 7);
        QCOMPARE(quantile({1, 2, 3}, 0.5), 2);
        QCOMPARE(quantile({}, 0.5), -1);
    }

    void finishedInTheWindowOnly()
    {
        const qint64 now = 10'000'000;
        QList<JobTiming> jobs;
        // Ten jobs in the window: waited 100..1000 ms, ran 10..100 ms.
        for (int i = 1; i <= 10; ++i) {
            const qint64 started = now - 60'000 + i * 1000;
            jobs.append({started - i * 100, started, started + i * 10});
        }
        // Finished before the window: left out, however long they waited.
        jobs.append({now - JobTimes::WindowMs - 90'000, now - JobTimes::WindowMs - 5000,
                     now - JobTimes::WindowMs - 1});
        // A worker's clock behind the producer's: no negative wait.
        jobs.append({now - 1000, now - 2000, now - 1500});
        // Never started (a failure before any run): no wait, no run.
        jobs.append({now - 1000, -1, now - 10});
        Reading r;
        r.atMs = now;
        setFinishedTimes(r, jobs, now);
        QVERIFY(r.jobTimes());
        QCOMPARE(r.jobTimes()->waitSamples, 10);
        QCOMPARE(r.jobTimes()->runSamples, 11); // the skewed one's run is 500 ms
        QCOMPARE(r.jobTimes()->wait[0], 500);
        QCOMPARE(r.jobTimes()->wait[1], 1000);
        QCOMPARE(r.jobTimes()->run[2], 500);
        QVERIFY(!r.jobTimes()->waitOfRunning);
    }

    void oldestWaiting()
    {
        Reading r;
        r.atMs = 50'000;
        setOldestWaiting(r, 20'000, 50'000, false);
        QCOMPARE(r.jobTimes()->oldestWaitingAgeMs, 30'000);
        // As the reading is projected, the job keeps waiting.
        const auto figures = latencyFigures();
        const auto oldest = std::find_if(figures.cbegin(), figures.cend(), [](const Figure &f) {
            return f.id == QLatin1String("oldestWaitingAgeMs");
        });
        QVERIFY(oldest != figures.cend());
        QCOMPARE(oldest->value(r, 52'000), 32'000.0);
        setOldestWaiting(r, -1, 50'000, true);
        QCOMPARE(r.jobTimes()->oldestWaitingAgeMs, 0); // nothing waits
        setOldestWaiting(r, -1, 50'000, false);
        QCOMPARE(r.jobTimes()->oldestWaitingAgeMs, -1); // waits, time not recorded
        QVERIFY(std::isnan(oldest->value(r, 52'000)));
        // Without job times every latency figure is unknown, not zero.
        for (const Figure &f : figures)
            QVERIFY2(std::isnan(f.value(Reading(), 0)), qPrintable(f.id));
    }

    void sortReplyRows()
    {
        const RedisValue reply = RedisValue::array({RedisValue::bulk("a"), RedisValue::bulk("1"),
                                                    RedisValue::nil(), RedisValue::bulk("b"),
                                                    RedisValue::bulk("2"), RedisValue::bulk("3")});
        const auto rows = jobFieldRows(reply, 2);
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows.at(0), (QList<QByteArray>{"a", "1", ""}));
        QCOMPARE(rows.at(1), (QList<QByteArray>{"b", "2", "3"}));
        QVERIFY(jobFieldRows(reply, 4).isEmpty()); // not whole rows: not this read's
        QVERIFY(jobFieldRows(RedisValue::error("ERR no"), 2).isEmpty());
        // SORT's pattern syntax in a base: no probe.
        QVERIFY(!jobFieldsProbe("q:*:done", "q:*:", {"t"}, 10, true));
        const auto probe = jobFieldsProbe("bull:q:completed", "bull:q:", {"timestamp"}, 10, true);
        QVERIFY(probe);
        QCOMPARE(*probe,
                 (PatternUnit::Command{"SORT_RO", "bull:q:completed", "BY", "nosort", "LIMIT", "0",
                                       "10", "DESC", "GET", "#", "GET", "bull:q:*->timestamp"}));
    }

    // A sorted set's page in two steps: ZRANGE, then one HMGET per member.
    void pageThenFields()
    {
        QCOMPARE(pageProbe("q:done", 100, true),
                 (PatternUnit::Command{"ZRANGE", "q:done", "0", "99", "REV"}));
        QCOMPARE(pageProbe("q:lease", 0, false, true),
                 (PatternUnit::Command{"ZRANGE", "q:lease", "0", "0", "WITHSCORES"}));
        const RedisValue scored = RedisValue::array({RedisValue::bulk("a"), RedisValue::bulk("1"),
                                                     RedisValue::bulk("b"), RedisValue::bulk("2")});
        QCOMPARE(pageMembers(scored, true), (QList<QByteArray>{"a", "b"}));
        QCOMPARE(pageMembers(scored), (QList<QByteArray>{"a", "1", "b", "2"}));
        QVERIFY(pageMembers(RedisValue::error("WRONGTYPE x")).isEmpty());
        const QList<QByteArray> members{"a", "b"};
        QCOMPARE(
            fieldsFollowUp(members, "q:", {"t", "u"}),
            (QList<PatternUnit::Command>{{"HMGET", "q:a", "t", "u"}, {"HMGET", "q:b", "t", "u"}}));
        const QList<RedisValue> replies{
            RedisValue::integer(7), // the probe's own reply before
            RedisValue::array({RedisValue::bulk("1"), RedisValue::nil()}),
            RedisValue::array({RedisValue::bulk("2"), RedisValue::bulk("3")})};
        const auto rows = fieldRows(members, replies, 1, 2);
        QVERIFY(rows);
        QCOMPARE(rows->at(0), (QList<QByteArray>{"a", "1", ""}));
        QCOMPARE(rows->at(1), (QList<QByteArray>{"b", "2", "3"}));
        // Not followed up (replies stop short), or a reply of another shape.
        QVERIFY(!fieldRows(members, replies.mid(0, 2), 1, 2));
        QVERIFY(!fieldRows(members, replies, 1, 3));
        QVERIFY(!fieldRows(members, {RedisValue::error("WRONGTYPE"), replies.at(1)}, 0, 2));
        QVERIFY(fieldRows({}, {}, 0, 2)->isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_JobTimes)
#include "tst_jobtimes.moc"
