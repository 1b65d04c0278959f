// SPDX-License-Identifier: MIT
// Dramatiq's Redis broker cannot be installed here: its state is written by
// test::DramatiqState (tests/support/libraryplanting.h) command for command as
// Dramatiq 1.17.1's dispatch.lua writes it (the sources are cited there). A
// worker "killed mid-message" is one whose heartbeat stopped with messages in
// its ack set; dispatch.lua's maintenance is the rule that makes them orphans.
#include <monitor/jobbrowser.h>
#include <patterns/dramatiq/dramatiqunit.h>
#include <redis/redisclient.h>

#include "libraryplanting.h"
#include "librarytest.h"
#include "otherlibraries.h"
#include "redisserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

// Dramatiq's state, planted as its dispatch.lua writes it, with the CLI runs
// of this test.
struct DramatiqState : gatehouse::test::DramatiqState
{
    CliRun cli(const QStringList &args)
    {
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, args);
    }
    QJsonObject queue()
    {
        const QJsonObject snap = gatehouse::test::snapshotOf(cli({"snapshot", "--json"}));
        for (const QJsonValue &v : snap[QStringLiteral("queues")].toArray()) {
            if (v[QStringLiteral("key")].toString() == QLatin1String("dramatiq:default"))
                return v.toObject();
        }
        return {};
    }
    CliRun act(const QString &verb, const QStringList &more)
    {
        return cli(QStringList{QStringLiteral("queue"), verb, QStringLiteral("dramatiq:default")}
                   + more);
    }
};

} // namespace

class tst_LibDramatiq : public QObject
{
    Q_OBJECT

private slots:
    void figuresAndOrphans()
    {
        DramatiqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        const QJsonObject snap = gatehouse::test::snapshotOf(s.cli({"snapshot", "--json"}));
        QCOMPARE(snap[QStringLiteral("queues")].toArray().size(), 1);
        QCOMPARE(gatehouse::test::objectsBesides(snap, QStringLiteral("dramatiq:default")),
                 QStringList());
        const QJsonObject q = s.queue();
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("dramatiq"));
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        const QJsonObject counts = q[QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("enqueued")].toInt(), 2);
        QCOMPARE(counts[QStringLiteral("delayed")].toInt(), 1);
        QCOMPARE(counts[QStringLiteral("unacked")].toInt(), 4);
        QCOMPARE(counts[QStringLiteral("dead")].toInt(), 2);
        QCOMPARE(counts[QStringLiteral("orphaned")].toInt(), 3);
        // The messages hash holds enqueued and unacked (Dramatiq HDELs on ack).
        QCOMPARE(s.call({"HLEN", "dramatiq:default.msgs"}).toInteger(), 2 + 3);
        QStringList stuck;
        for (const QJsonValue &v : q[QStringLiteral("stuck")].toArray()) {
            stuck << v[QStringLiteral("job")].toString();
            QVERIFY(v[QStringLiteral("reason")].toString().contains(QLatin1String("worker-b")));
        }
        stuck.sort();
        QCOMPARE(stuck, (QStringList{"d1", "m2", "m3"}));
        // The job browser's page of dead letters, newest first (ties by id).
        JobBrowser browser(s.client.get());
        QSignalSpy listed(&browser, &JobBrowser::listed);
        QVERIFY(browser.listJobs(DramatiqUnit::objectForName("default"), QStringLiteral("dead"), 0,
                                 10));
        QVERIFY(listed.wait(5000));
        const JobListing page = listed.first().first().value<JobListing>();
        QCOMPARE(page.total, 2);
        QCOMPARE(page.rows.size(), qsizetype(2));
        QMap<QString, int> perWorker;
        for (const QJsonValue &w : q[QStringLiteral("workers")].toArray())
            perWorker[w[QStringLiteral("worker")].toString()]
                = w[QStringLiteral("unacked")].toInt();
        QCOMPARE(perWorker.value(QStringLiteral("worker-a")), 1);
        QCOMPARE(perWorker.value(QStringLiteral("worker-b")), 3);
    }

    void requeueOrphansAndRetryDeadLetters()
    {
        DramatiqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        // A live worker's message is not an orphan.
        CliRun run
            = s.act(QStringLiteral("requeue"), {QStringLiteral("--job"), QStringLiteral("m1")});
        QCOMPARE(run.exitCode, 3);
        run = s.act(QStringLiteral("requeue"), {QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        // Behind what was queued, in the ack set's order (SMEMBERS, as Dramatiq's).
        QList<QByteArray> queued = s.list("dramatiq:default");
        QCOMPARE(queued.mid(0, 2), (QList<QByteArray>{"m6", "m7"}));
        std::sort(queued.begin() + 2, queued.end());
        QCOMPARE(queued, (QList<QByteArray>{"m6", "m7", "m2", "m3"}));
        QCOMPARE(s.list("dramatiq:default.DQ"), (QList<QByteArray>{"d2", "d1"}));
        QCOMPARE(s.call({"EXISTS", "dramatiq:__acks__.worker-b.default",
                         "dramatiq:__acks__.worker-b.default.DQ"})
                     .toInteger(),
                 0);
        QCOMPARE(s.call({"SMEMBERS", "dramatiq:__acks__.worker-a.default"}).size(), 1);
        QCOMPARE(s.queue()[QStringLiteral("counts")][QStringLiteral("orphaned")].toInt(), 0);

        run = s.act(QStringLiteral("retry"), {QStringLiteral("--all")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(s.call({"ZCARD", "dramatiq:default.XQ"}).toInteger(), 0);
        QCOMPARE(s.call({"HLEN", "dramatiq:default.XQ.msgs"}).toInteger(), 0);
        queued = s.list("dramatiq:default");
        QCOMPARE(queued.mid(4), (QList<QByteArray>{"m4", "m5"})); // the oldest dead letter first
        QCOMPARE(s.call({"HEXISTS", "dramatiq:default.msgs", "m4"}).toInteger(), 1);
    }

    // Dramatiq records when a message was sent (message_timestamp) and no
    // time a worker fetched it: the queue's oldest waiting age is its head's,
    // the message fetch takes next; 0 once none is enqueued.
    void oldestEnqueuedMessageAge()
    {
        DramatiqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        const qint64 sentAt = s.nowMs - 90000;
        s.enqueue("old", false, sentAt);
        s.enqueue("new");
        s.enqueue("later", true, sentAt - 60000); // delay queue: not waiting on the queue

        const QJsonObject snap = gatehouse::test::snapshotOf(s.cli({"snapshot", "--json"}));
        QJsonObject q;
        for (const QJsonValue &v : snap[QStringLiteral("queues")].toArray()) {
            if (v[QStringLiteral("key")].toString() == QLatin1String("dramatiq:default"))
                q = v.toObject();
        }
        const QJsonObject latency = q[QStringLiteral("latency")].toObject();
        const qint64 want
            = snap[QStringLiteral("server")][QStringLiteral("timeMs")].toInteger() - sentAt;
        const qint64 shown = latency[QStringLiteral("oldestWaitingAgeMs")].toInteger(-2);
        QVERIFY2(std::abs(shown - want) <= 1000,
                 qPrintable(QStringLiteral("shown %1 ms, the head was sent %2 ms before")
                                .arg(shown)
                                .arg(want)));
        QCOMPARE(latency[QStringLiteral("waitSamples")].toInt(-1), 0);

        // Fetched by a live worker: nothing waits.
        QCOMPARE(s.fetch("worker-a", "default", 2, s.nowMs).size(), 2);
        QCOMPARE(
            s.queue()[QStringLiteral("latency")][QStringLiteral("oldestWaitingAgeMs")].toInteger(
                -2),
            0);
    }

    // A resembling layout: a "dramatiq:" messages hash whose values are not
    // Dramatiq's messages is read-only and refused; a lone "dramatiq:" list
    // without messages or heartbeats is an application's.
    void resemblingLayoutReadOnly()
    {
        DramatiqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.enqueue("m1");
        s.call({"HSET", "dramatiq:default.XQ.msgs", "x1", R"({"job":"not dramatiq"})"});
        s.call({"ZADD", "dramatiq:default.XQ", QByteArray::number(s.nowMs), "x1"});
        s.call({"RPUSH", "dramatiq:plain", "a", "b"});
        const QJsonObject snap = gatehouse::test::snapshotOf(s.cli({"snapshot", "--json"}));
        int dramatiq = 0;
        for (const QJsonValue &v : snap[QStringLiteral("queues")].toArray())
            dramatiq += v[QStringLiteral("pattern")].toString() == QLatin1String("dramatiq");
        QCOMPARE(dramatiq, 1);
        const QJsonObject q = s.queue();
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        const CliRun run = s.act(QStringLiteral("retry"), {QStringLiteral("--all")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(s.call({"ZCARD", "dramatiq:default.XQ"}).toInteger(), 1);
        QCOMPARE(s.list("dramatiq:default"), QList<QByteArray>{"m1"});
    }

    // Every other library's real state beside Dramatiq's queue, some of it
    // in Dramatiq's own namespace: node-resque under "dramatiq" (its
    // "dramatiq:failed" is a list named as a Dramatiq queue, with Dramatiq's
    // heartbeats there), BullMQ under the prefix "dramatiq", a Celery queue
    // named "dramatiq:reports". Dramatiq's queue alone is Dramatiq's; each
    // other library's is shown as its own, with a known layout.
    void notTakenForOtherLibraries()
    {
        DramatiqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        gatehouse::test::OtherLibraries others(s.server, *s.client);
        others.resque(QStringLiteral("dramatiq"));
        others.bullmq(QStringLiteral("dramatiq"), QStringLiteral("mail"));
        others.celery(QStringLiteral("dramatiq:reports"));
        others.rest({QStringLiteral("dramatiq")});
        QVERIFY2(others.failures().isEmpty(), qPrintable(others.failures().join(u'\n')));
        QCOMPARE(s.call({"TYPE", "dramatiq:failed"}).bytes(), QByteArray("list"));
        QCOMPARE(s.call({"TYPE", "dramatiq:reports"}).bytes(), QByteArray("list"));

        const QJsonObject snap = gatehouse::test::snapshotOf(s.cli({"snapshot", "--json"}));
        QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("dramatiq")).join(u' '),
                 QStringLiteral("dramatiq:default"));
        QCOMPARE(s.queue()[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(),
                 true);
        QCOMPARE(gatehouse::test::notShownAsTheirs(snap, others.planted()).join(u'\n'), QString());
    }
};

QTEST_GUILESS_MAIN(tst_LibDramatiq)
#include "tst_lib_dramatiq.moc"
