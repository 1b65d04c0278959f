// SPDX-License-Identifier: MIT
// asynq (Go) cannot be installed here: its state is written by
// test::AsynqState (tests/support/libraryplanting.h) command for command as
// asynq v0.25.1 writes it, and the counts are compared with what asynq's
// Inspector.GetQueueInfo reads, with the same commands (the sources are cited
// there).
#include <monitor/jobbrowser.h>
#include <patterns/asynq/asynqunit.h>
#include <redis/redisclient.h>

#include "libraryplanting.h"
#include "librarytest.h"
#include "otherlibraries.h"
#include "redisserver.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

// asynq's state, planted as asynq writes it, with the CLI runs of this test.
struct AsynqState : gatehouse::test::AsynqState
{
    CliRun cli(const QStringList &args)
    {
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, args);
    }
    QJsonObject snapshot() { return gatehouse::test::snapshotOf(cli({"snapshot", "--json"})); }
    CliRun act(const QString &verb, const QStringList &more = {})
    {
        return cli(
            QStringList{QStringLiteral("queue"), verb, QStringLiteral("asynq:{default}:pending")}
            + more);
    }
    QJsonObject queueOf(const QJsonObject &snap, const QString &key)
    {
        for (const QJsonValue &v : snap[QStringLiteral("queues")].toArray()) {
            if (v[QStringLiteral("key")].toString() == key)
                return v.toObject();
        }
        return {};
    }
};

} // namespace

class tst_LibAsynq : public QObject
{
    Q_OBJECT

private slots:
    void figuresAsAsynqReadsThem()
    {
        AsynqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        if (QTest::currentTestFailed())
            return;
        const QJsonObject snap = s.snapshot();
        const QJsonArray queues = snap[QStringLiteral("queues")].toArray();
        QCOMPARE(queues.size(), 2);
        const QJsonObject q = s.queueOf(snap, QStringLiteral("asynq:{default}:pending"));
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("asynq"));
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        const QJsonObject info = s.queueInfo("default");
        QCOMPARE(q[QStringLiteral("counts")].toObject(), info);
        QCOMPARE(info[QStringLiteral("pending")].toInt(), 3);
        QCOMPARE(info[QStringLiteral("processed")].toInt(), 5);
        QCOMPARE(info[QStringLiteral("failed")].toInt(), 2);
        QCOMPARE(q[QStringLiteral("paused")].toBool(), false);
        QCOMPARE(q[QStringLiteral("serversAlive")].toInt(), 1);
        // Its latency, as asynq's Inspector gives it (QueueInfo.Latency:
        // since the oldest pending task's pending_since, the list's right
        // end): the newest, LPUSHed last, is not it.
        QCOMPARE(s.call({"LINDEX", "asynq:{default}:pending", "-1"}).bytes(),
                 QByteArray("pending-1"));
        const qint64 waitingSinceMs = s.now * 1000 - 42'500;
        QCOMPARE(s.call({"HSET", "asynq:{default}:t:pending-1", "pending_since",
                         QByteArray::number(waitingSinceMs * 1'000'000)})
                     .toInteger(),
                 0);
        const qint64 latency
            = s.queueOf(s.snapshot(), QStringLiteral("asynq:{default}:pending"))[QStringLiteral(
                "latency")][QStringLiteral("oldestWaitingAgeMs")]
                  .toInteger(-1);
        const qint64 serverNowMs = s.call({"TIME"}).at(0).toInteger() * 1000 + 1000;
        QVERIFY2(latency >= 42'500 && latency <= serverNowMs - waitingSinceMs,
                 qPrintable(QStringLiteral("latency %1 ms; pending-1 waits since %2 ms ago at most")
                                .arg(latency)
                                .arg(serverNowMs - waitingSinceMs)));
        // The lease-expired task alone is stuck, with asynq's reason.
        const QJsonArray stuck = q[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.first()[QStringLiteral("job")].toString(), QStringLiteral("killed-1"));
        QVERIFY(stuck.first()[QStringLiteral("reason")].toString().contains(
            QLatin1String("lease expired")));
        QCOMPARE(s.queueOf(snap, QStringLiteral("asynq:{critical}:pending"))[QStringLiteral(
                     "counts")][QStringLiteral("pending")]
                     .toInt(),
                 1);
        // The job browser's pages: ids in the list's order, a bounded page.
        JobBrowser browser(s.client.get());
        QSignalSpy listed(&browser, &JobBrowser::listed);
        QVERIFY(
            browser.listJobs(AsynqUnit::objectForName("default"), QStringLiteral("pending"), 0, 2));
        QVERIFY(listed.wait(5000));
        const JobListing page = listed.first().first().value<JobListing>();
        QCOMPARE(page.total, 3);
        QCOMPARE(page.rows.size(), qsizetype(2));
        QCOMPARE(page.rows.first().id, QByteArray("pending-3")); // asynq LPUSHes
        // asynq's counters, task hashes and server keys are nobody else's.
        QStringList others;
        for (const QString &o :
             gatehouse::test::objectsBesides(snap, QStringLiteral("asynq:{default}:pending"))) {
            if (o != QLatin1String("queues asynq:{critical}:pending"))
                others << o;
        }
        QCOMPARE(others, QStringList());
    }

    void actionsAsAsynqsInspector()
    {
        AsynqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        if (QTest::currentTestFailed())
            return;
        const QByteArray p = "asynq:{default}:";
        // A live lease is refused; the expired one goes back to pending.
        CliRun run
            = s.act(QStringLiteral("requeue"), {QStringLiteral("--job"), QStringLiteral("live-1")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(s.call({"HGET", p + "t:live-1", "state"}).bytes(), QByteArray("active"));
        run = s.act(QStringLiteral("requeue"), {QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(s.call({"HGET", p + "t:killed-1", "state"}).bytes(), QByteArray("pending"));
        QCOMPARE(s.call({"LINDEX", p + "pending", "-1"}).bytes(), QByteArray("killed-1"));
        QCOMPARE(s.call({"ZSCORE", p + "lease", "killed-1"}).isNil(), true);
        QCOMPARE(s.call({"LLEN", p + "active"}).toInteger(), 1);
        // Its dequeue (RPOPLPUSH from the right) takes it next, as asynq's Requeue intends.
        QCOMPARE(s.dequeue("default", s.now + 30), QByteArray("killed-1"));

        // run: retry -> pending (LPUSH, as RunTask); active refused.
        run = s.act(QStringLiteral("run"), {QStringLiteral("--job"), QStringLiteral("retry-1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(s.call({"ZCARD", p + "retry"}).toInteger(), 0);
        QCOMPARE(s.call({"LINDEX", p + "pending", "0"}).bytes(), QByteArray("retry-1"));
        QCOMPARE(s.call({"HGET", p + "t:retry-1", "state"}).bytes(), QByteArray("pending"));
        run = s.act(QStringLiteral("run"), {QStringLiteral("--job"), QStringLiteral("live-1")});
        QCOMPARE(run.exitCode, 3);

        // archive: pending -> archived; delete: scheduled gone.
        run = s.act(QStringLiteral("archive"),
                    {QStringLiteral("--job"), QStringLiteral("pending-1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY(!s.call({"ZSCORE", p + "archived", "pending-1"}).isNil());
        QCOMPARE(s.call({"LPOS", p + "pending", "pending-1"}).isNil(), true);
        QCOMPARE(s.call({"HGET", p + "t:pending-1", "state"}).bytes(), QByteArray("archived"));
        run = s.act(QStringLiteral("delete"),
                    {QStringLiteral("--job"), QStringLiteral("scheduled-1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(s.call({"EXISTS", p + "t:scheduled-1"}).toInteger(), 0);
        QCOMPARE(s.call({"ZCARD", p + "scheduled"}).toInteger(), 0);

        // pause / resume: the key asynq's dequeue checks.
        run = s.act(QStringLiteral("pause"));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(s.call({"EXISTS", p + "paused"}).toInteger(), 1);
        QCOMPARE(s.queueOf(s.snapshot(),
                           QStringLiteral("asynq:{default}:pending"))[QStringLiteral("paused")]
                     .toBool(),
                 true);
        run = s.act(QStringLiteral("resume"));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(s.call({"EXISTS", p + "paused"}).toInteger(), 0);

        // Every action audited.
        QFile audit(s.server.dir() + "/audit.jsonl");
        QVERIFY(audit.open(QIODevice::ReadOnly));
        QVERIFY(audit.readAll().count('\n') >= 7);
    }

    // A layout that resembles asynq's with a foreign part (a task hash
    // without asynq's msg and state) is shown read-only, and refused.
    void resemblingLayoutReadOnly()
    {
        AsynqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.enqueue("default", "ok-1");
        s.call({"HSET", "asynq:{default}:t:odd-1", "payload", "{}"});
        s.call({"LPUSH", "asynq:{default}:active", "odd-1"});
        s.call({"ZADD", "asynq:{default}:lease", QByteArray::number(s.now - 100), "odd-1"});
        const QJsonObject q = s.queueOf(s.snapshot(), QStringLiteral("asynq:{default}:pending"));
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        QVERIFY2(q[QStringLiteral("message")].toString().contains(QLatin1String("read-only")),
                 qPrintable(q[QStringLiteral("message")].toString()));
        const CliRun run = s.act(QStringLiteral("requeue"), {QStringLiteral("--stuck")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(s.call({"LLEN", "asynq:{default}:active"}).toInteger(), 1);
        QCOMPARE(s.call({"LLEN", "asynq:{default}:pending"}).toInteger(), 1);
    }

    // asynq's state beside every other library's real state, BullMQ's under
    // the prefix "asynq" and a Celery queue named "asynq:{mail}:pending" (a
    // list named as an asynq queue, with no task hash or asynq:queues entry):
    // asynq's queues are asynq's, each other library's is shown as its own,
    // and the Celery queue, a resembling layout, is shown by asynq only as
    // an unknown layout (read-only, no verbs) beside Celery's own.
    void notTakenForOtherLibraries()
    {
        AsynqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        if (QTest::currentTestFailed())
            return;
        gatehouse::test::OtherLibraries libraries(s.server, *s.client);
        libraries.bullmq(QStringLiteral("asynq"), QStringLiteral("mail"));
        libraries.celery(QStringLiteral("asynq:{mail}:pending"));
        libraries.rest({QStringLiteral("asynq")});
        QVERIFY2(libraries.failures().isEmpty(), qPrintable(libraries.failures().join(u'\n')));
        QCOMPARE(s.call({"TYPE", "asynq:{mail}:pending"}).bytes(), QByteArray("list"));

        const QJsonObject snap = s.snapshot();
        QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("asynq")).join(u' '),
                 QStringLiteral(
                     "asynq:{critical}:pending asynq:{default}:pending asynq:{mail}:pending"));
        QStringList resembling;
        for (const QJsonValue &q : snap[QStringLiteral("queues")].toArray()) {
            if (q[QStringLiteral("key")].toString() == QLatin1String("asynq:{mail}:pending"))
                resembling
                    << q[QStringLiteral("pattern")].toString()
                           + (q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool()
                                  ? QStringLiteral(" known")
                                  : QStringLiteral(" unknown"));
        }
        resembling.sort();
        QCOMPARE(resembling.join(u','), QStringLiteral("asynq unknown,celery known"));
        QCOMPARE(gatehouse::test::notShownAsTheirs(snap, libraries.planted()).join(u'\n'),
                 QStringLiteral("celery asynq:{mail}:pending: shown as asynq, unknown layout"));
    }

    // Other libraries' layouts are not taken for asynq, and asynq's keys
    // are not taken for theirs (Bull, Sidekiq, RQ, reliable queue).
    void notTakenForAnotherLibrary()
    {
        AsynqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        if (QTest::currentTestFailed())
            return;
        // A bare "asynq:{x}:pending" list beside them without any task hash
        // or asynq:queues entry stays an application's.
        for (const QJsonValue &q : s.snapshot()[QStringLiteral("queues")].toArray())
            QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("asynq"));
        s.call({"RPUSH", "rq:queue:mail", "j1"});
        s.call({"ZADD", "rq:wip:mail", QByteArray::number(s.now + 100), "j2"});
        s.call({"HSET", "rq:job:j2", "origin", "mail", "status", "started"});
        s.call({"SADD", "queues", "default"});
        s.call({"LPUSH", "queue:default", R"({"class":"Mailer","args":[],"jid":"abc"})"});
        s.call({"RPUSH", "bull:mail:wait", "1"});
        s.call({"HSET", "bull:mail:1", "name", "x", "data", "{}", "timestamp", "1"});
        s.call({"SET", "bull:mail:id", "1"});
        const QJsonObject snap = s.snapshot();
        QStringList asynqKeys;
        for (const QJsonValue &q : snap[QStringLiteral("queues")].toArray()) {
            if (q[QStringLiteral("pattern")].toString() == QLatin1String("asynq"))
                asynqKeys << q[QStringLiteral("key")].toString();
        }
        asynqKeys.sort();
        QCOMPARE(asynqKeys, (QStringList{QStringLiteral("asynq:{critical}:pending"),
                                         QStringLiteral("asynq:{default}:pending")}));
    }
};

QTEST_GUILESS_MAIN(tst_LibAsynq)
#include "tst_lib_asynq.moc"
