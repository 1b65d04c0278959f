// SPDX-License-Identifier: MIT
// `queue search` against what real libraries wrote: BullMQ (npm, a real
// worker completing and failing jobs), Sidekiq (Debian's ruby-sidekiq,
// its own DeadSet#kill) and RQ (Debian's python3-rq, its SimpleWorker
// finishing and failing jobs). Each search is checked against the jobs the test
// made, by id: the payload path, the error text, the name, the state filter,
// the limit, nothing found, and the sentences for what is wrong.
#include "librarytest.h"
#include "nodeapp.h"
#include "redisserver.h"

#include <redis/redisclient.h>

#include <QtTest>

#include <csignal>

using namespace gatehouse;
using namespace gatehouse::test;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
const QString Python = QStringLiteral("/usr/bin/python3"); // Debian's, with python3-rq

// RQ as tst_lib_rq runs it: Debian's, or a checkout on GATEHOUSE_RQ_PYTHONPATH.
QProcessEnvironment rqEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString path = qEnvironmentVariable("GATEHOUSE_RQ_PYTHONPATH");
    if (!path.isEmpty())
        env.insert(QStringLiteral("PYTHONPATH"), path);
    return env;
}

// python3 ARGS (rq_app.py's commands, or a script of RQ's own API); its
// output, or "<failed>" with a warning.
QString pythonRun(const QStringList &args)
{
    QProcess p;
    p.setProcessEnvironment(rqEnvironment());
    p.start(Python, args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("python3 %s: %s", qPrintable(args.join(QLatin1Char(' '))),
                 p.readAllStandardError().constData());
        return QStringLiteral("<failed>");
    }
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

// The RQ driver (tests/libraries/rq_app.py) on queue "billing".
QString rqApp(const RedisServer &server, const QString &command, const QString &arg = {})
{
    QStringList args{LibrariesDir + QStringLiteral("/rq_app.py"), server.url(),
                     QStringLiteral("billing"), command};
    if (!arg.isEmpty())
        args << arg;
    return pythonRun(args);
}

CliRun search(const RedisServer &server, const QStringList &args)
{
    return runCli(QStringLiteral(GATEHOUSE_CLI),
                  QStringList{QStringLiteral("--url"), server.url(), QStringLiteral("queue"),
                              QStringLiteral("search")}
                      + args,
                  {}, 60000);
}

QStringList hitIds(const CliRun &run)
{
    QStringList ids;
    const QJsonObject o = QJsonDocument::fromJson(run.out.toUtf8()).object();
    for (const QJsonValue &h : o.value(QLatin1String("hits")).toArray())
        ids << h[QStringLiteral("state")].toString() + QLatin1Char(':')
                   + h[QStringLiteral("id")].toString();
    ids.sort();
    return ids;
}

} // namespace

class tst_JobSearch : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void bullmqCompletedAndFailed()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")),
                 "npm bullmq is missing: run .ci/install-deps");
        RedisServer server(RedisServer::Options{});
        QVERIFY(server.start());
        // 30 jobs done, 6 failed by a real worker ("failing on purpose").
        NodeApp app{QStringLiteral("bullmq"), server.url(), QStringLiteral("orders")};
        QCOMPARE(app.run(QStringLiteral("produce"), QStringLiteral("30")), QString());
        NodeApp failing = app;
        failing.env.insert(QStringLiteral("JOB_ID_BASE"), QStringLiteral("100"));
        QCOMPARE(failing.run(QStringLiteral("produce-failing"), QStringLiteral("6")), QString());
        std::unique_ptr<QProcess> worker
            = app.start(QStringLiteral("work"), QStringLiteral("ran"), "working");
        RedisClient client(server.endpoint());
        client.open();
        QVERIFY(pollUntil(
            [&] {
                return call(client, {"ZCARD", "bull:orders:completed"}).toInteger() == 30
                       && call(client, {"ZCARD", "bull:orders:failed"}).toInteger() == 6;
            },
            60000));
        stopProcess(worker);

        // A JSON path into the payload BullMQ stored: exactly the one job.
        CliRun run = search(server, {QStringLiteral("bull:orders"), QStringLiteral("data.n = 17"),
                                     QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(hitIds(run), QStringList{QStringLiteral("completed:job-17")});
        const QJsonObject figures = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(figures[QStringLiteral("end")].toString(), QStringLiteral("complete"));
        QCOMPARE(figures[QStringLiteral("scanned")].toInt(), 36); // every state read
        QCOMPARE(figures[QStringLiteral("total")].toInt(), 36);

        // The error text of the failed ones, as text: a table and a summary.
        run = search(server,
                     {QStringLiteral("bull:orders"), QStringLiteral("error~\"ON PURPOSE\"")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        for (int n = 101; n <= 106; ++n)
            QVERIFY2(run.out.contains(QStringLiteral("failed     failing-%1   ").arg(n)),
                     qPrintable(run.out));
        QVERIFY2(
            run.out.contains(QLatin1String("6 jobs found in bull:orders (BullMQ queue): 36 of 36 "
                                           "jobs searched, every state read")),
            qPrintable(run.out));

        // Name and payload together, in one state, stopped at the limit.
        run = search(server,
                     {QStringLiteral("bull:orders"), QStringLiteral("name=fail-once data.n>102"),
                      QStringLiteral("--state"), QStringLiteral("failed"),
                      QStringLiteral("--limit"), QStringLiteral("2"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QStringList two = hitIds(run);
        QCOMPARE(two.size(), 2);
        for (const QString &id : two)
            QVERIFY2(QStringList({QStringLiteral("failed:failing-103"),
                                  QStringLiteral("failed:failing-104"),
                                  QStringLiteral("failed:failing-105"),
                                  QStringLiteral("failed:failing-106")})
                         .contains(id),
                     qPrintable(id));
        const QJsonObject limited = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(limited[QStringLiteral("end")].toString(), QStringLiteral("limit"));
        // Searched up to the job that reached the limit, not the whole page:
        // four of the six match, so at least the last two were not needed.
        QCOMPARE(limited[QStringLiteral("total")].toInt(), 6);
        const int searched = limited[QStringLiteral("scanned")].toInt();
        QVERIFY2(searched >= 2 && searched <= 4, qPrintable(run.out));

        // A word anywhere: the id, the name, the payload.
        run = search(server, {QStringLiteral("bull:orders"), QStringLiteral("job-2"),
                              QStringLiteral("--json")});
        QCOMPARE(
            hitIds(run),
            QStringList({QStringLiteral("completed:job-2"), QStringLiteral("completed:job-20"),
                         QStringLiteral("completed:job-21"), QStringLiteral("completed:job-22"),
                         QStringLiteral("completed:job-23"), QStringLiteral("completed:job-24"),
                         QStringLiteral("completed:job-25"), QStringLiteral("completed:job-26"),
                         QStringLiteral("completed:job-27"), QStringLiteral("completed:job-28"),
                         QStringLiteral("completed:job-29")}));

        // Nothing found: exit 3, and a sentence that says how much was read.
        run = search(server, {QStringLiteral("bull:orders"), QStringLiteral("data.n=999")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.out.contains(QLatin1String("0 jobs found")), qPrintable(run.out));

        // A job whose payload is over the 64 KiB a search reads: neither
        // found nor ruled out, but counted and said, and nothing found is
        // not "none" (exit 1). A negated term does not find it either.
        QCOMPARE(app.run(QStringLiteral("produce-big"), QStringLiteral("70000")), QString());
        run = search(server,
                     {QStringLiteral("bull:orders"), QStringLiteral("data.customerId=4411")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains(QLatin1String("1 job not searched: its record holds a field "
                                                "over 64 KiB")),
                 qPrintable(run.out));
        run = search(server,
                     {QStringLiteral("bull:orders"), QStringLiteral("data.customerId!=4411"),
                      QStringLiteral("--state"), QStringLiteral("wait"), QStringLiteral("--json")});
        QCOMPARE(hitIds(run), QStringList());
        QCOMPARE(QJsonDocument::fromJson(run.out.toUtf8())[QStringLiteral("unsearched")].toInt(),
                 1);
        QCOMPARE(call(client, {"DEL", "bull:orders:big-1"}).toInteger(), 1);
        QCOMPARE(call(client, {"LREM", "bull:orders:wait", "0", "big-1"}).toInteger(), 1);

        // What is wrong, said: the expression, the state, the queue.
        run = search(server, {QStringLiteral("bull:orders"), QStringLiteral("age>soon")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QLatin1String("age>30s")), qPrintable(run.err));
        run = search(server, {QStringLiteral("bull:orders"), QStringLiteral("x"),
                              QStringLiteral("--state"), QStringLiteral("bogus")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QLatin1String("\"bogus\" is not a state")), qPrintable(run.err));
        run = search(server, {QStringLiteral("bull:nothing"), QStringLiteral("x")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("is not a queue whose jobs")), qPrintable(run.err));
        run = search(server, {QStringLiteral("bull:orders"), QStringLiteral("x"),
                              QStringLiteral("--busy"), QStringLiteral("0")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QLatin1String("--busy")), qPrintable(run.err));
        const CliRun other
            = runCli(QStringLiteral(GATEHOUSE_CLI),
                     {QStringLiteral("--url"), server.url(), QStringLiteral("snapshot"),
                      QStringLiteral("--busy"), QStringLiteral("50")},
                     {}, 30000);
        QCOMPARE(other.exitCode, 2);
        QVERIFY2(other.err.contains(QLatin1String("--busy applies to queue search only")),
                 qPrintable(other.err));

        // Searching wrote nothing.
        QCOMPARE(call(client, {"ZCARD", "bull:orders:completed"}).toInteger(), 30);
        QCOMPARE(call(client, {"ZCARD", "bull:orders:failed"}).toInteger(), 6);

        // Ctrl+C during a long search: it stops, prints what it found so far
        // and how far it got. 200,000 more completed entries (ids only: the
        // search reads each page's rows all the same).
        for (int from = 0; from < 200000; from += 10000) {
            QList<QByteArray> zadd{"ZADD", "bull:orders:completed"};
            for (int n = from + 1; n <= from + 10000; ++n)
                zadd << "1"
                     << "x-" + QByteArray::number(n);
            QCOMPARE(call(client, zadd).toInteger(), 10000);
        }
        QProcess long_;
        long_.start(QStringLiteral(GATEHOUSE_CLI),
                    {QStringLiteral("--url"), server.url(), QStringLiteral("queue"),
                     QStringLiteral("search"), QStringLiteral("bull:orders"),
                     QStringLiteral("name=fail-once"), QStringLiteral("--state"),
                     QStringLiteral("failed,completed"), QStringLiteral("--json")});
        QVERIFY(long_.waitForStarted());
        QTest::qWait(1500);
        QCOMPARE(long_.state(), QProcess::Running); // 200,000 jobs, paced: not done yet
        ::kill(pid_t(long_.processId()), SIGINT);
        QVERIFY(long_.waitForFinished(10000));
        QCOMPARE(long_.exitCode(), 0); // failed was read first: found
        const QJsonObject stopped = QJsonDocument::fromJson(long_.readAllStandardOutput()).object();
        QCOMPARE(stopped[QStringLiteral("end")].toString(), QStringLiteral("cancelled"));
        QVERIFY(stopped[QStringLiteral("scanned")].toInt() < 200036);
        QCOMPARE(stopped[QStringLiteral("hits")].toArray().size(), 6);
        // Paced at the default tenth: its time waiting on the server.
        const qint64 pacedBusy = stopped[QStringLiteral("busyMs")].toInteger();
        const qint64 pacedElapsed = stopped[QStringLiteral("elapsedMs")].toInteger();
        QVERIFY2(pacedElapsed >= 1000 && pacedBusy * 4 <= pacedElapsed,
                 qPrintable(QStringLiteral("busy %1 of %2 ms").arg(pacedBusy).arg(pacedElapsed)));

        // --busy 100: not paced; the same 200,036 jobs read to the end.
        run = search(server,
                     {QStringLiteral("bull:orders"), QStringLiteral("name=fail-once"),
                      QStringLiteral("--state"), QStringLiteral("completed"),
                      QStringLiteral("--busy"), QStringLiteral("100"), QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 3); // none of the completed jobs failed once
        const QJsonObject unpaced = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(unpaced[QStringLiteral("end")].toString(), QStringLiteral("complete"));
        QCOMPARE(unpaced[QStringLiteral("scanned")].toInt(), 200030);
        const qint64 busy = unpaced[QStringLiteral("busyMs")].toInteger();
        const qint64 elapsed = unpaced[QStringLiteral("elapsedMs")].toInteger();
        QVERIFY2(busy * 5 >= elapsed * 2,
                 qPrintable(QStringLiteral("busy %1 of %2 ms").arg(busy).arg(elapsed)));
    }

    void sidekiqDeadSet()
    {
        RedisServer server(RedisServer::Options{});
        QVERIFY(server.start());
        // A job pushed by Sidekiq's client (its "queues" set names the
        // deployment), then twelve dead ones.
        QProcess push;
        push.start(QStringLiteral("/usr/bin/ruby"),
                   {LibrariesDir + QStringLiteral("/sidekiq_app.rb"), server.url(),
                    QStringLiteral("push"), QStringLiteral("HangJob"),
                    QStringLiteral("customer-7")});
        QVERIFY(push.waitForFinished(60000));
        QVERIFY2(push.exitCode() == 0, push.readAllStandardError().constData());
        QProcess ruby;
        ruby.start(QStringLiteral("/usr/bin/ruby"),
                   {LibrariesDir + QStringLiteral("/sidekiq_app.rb"), server.url(),
                    QStringLiteral("dead"), QStringLiteral("12")});
        QVERIFY(ruby.waitForFinished(60000));
        QVERIFY2(ruby.exitCode() == 0, ruby.readAllStandardError().constData());
        QCOMPARE(QString::fromUtf8(ruby.readAllStandardOutput()).trimmed(), QStringLiteral("12"));

        // Sidekiq's args, by path and by index, in its dead set.
        CliRun run = search(server, {QStringLiteral("queues"), QStringLiteral("args.0=customer-7"),
                                     QStringLiteral("--state"), QStringLiteral("dead"),
                                     QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(hitIds(run).size(), 1);
        QVERIFY2(hitIds(run).first().endsWith(QLatin1String("dead00000000000000000007")),
                 qPrintable(hitIds(run).join(QLatin1Char(' '))));
        // Judged from the records the dead set's page held whole: every job
        // scanned, none read a second time.
        const QJsonObject paged = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(paged[QStringLiteral("scanned")].toInt(), 12);
        QCOMPARE(paged[QStringLiteral("recordsRead")].toInt(), 0);
        // Every third job timed out: 4 of 12, by their error, dead for
        // less than ten minutes (an age is the time in the state: the dead
        // set's score, when it was killed).
        run = search(server, {QStringLiteral("queues"), QStringLiteral("error~ReadTimeout age<10m"),
                              QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QStringList timedOut = hitIds(run);
        QCOMPARE(timedOut.size(), 4);
        for (int i : {3, 6, 9, 12})
            QVERIFY2(timedOut.join(QLatin1Char(' '))
                         .contains(QStringLiteral("dead%1").arg(i, 20, 10, QLatin1Char('0'))),
                     qPrintable(timedOut.join(QLatin1Char(' '))));
        // ... and none dead for over half an hour.
        run = search(server,
                     {QStringLiteral("queues"), QStringLiteral("error~ReadTimeout age>30m")});
        QCOMPARE(run.exitCode, 3);
    }

    // RQ's finished and failed registries as its SimpleWorker left them: six
    // jobs done, four that raised "failing once, as asked", and two that
    // failed in int() on their argument, one of them a customer's id. The
    // error text RQ keeps (zlib-compressed, in the job's results stream on
    // RQ 1.12+) finds exactly that one; the name and the state filter find
    // the others; and searching writes nothing.
    void rqFinishedAndFailed()
    {
        QVERIFY2(QFile::exists(Python), "/usr/bin/python3 is missing: run .ci/install-deps");
        RedisServer server(RedisServer::Options{});
        QVERIFY(server.start());
        for (int i = 1; i <= 6; ++i)
            QCOMPARE(rqApp(server, QStringLiteral("produce"), QStringLiteral("done-%1").arg(i)),
                     QString());
        for (int i = 1; i <= 4; ++i)
            QCOMPARE(
                rqApp(server, QStringLiteral("produce-failing"), QStringLiteral("fail-%1").arg(i)),
                QString());
        // RQ's own Queue.enqueue of a real function with an argument it
        // cannot take: the worker fails them with "ValueError: invalid
        // literal for int() with base 10: 'customer-4411'".
        QCOMPARE(pythonRun({QStringLiteral("-c"),
                            QStringLiteral("import sys, redis\n"
                                           "from rq import Queue\n"
                                           "q = Queue('billing', connection="
                                           "redis.Redis.from_url(sys.argv[1]))\n"
                                           "q.enqueue('builtins.int', 'customer-4411', "
                                           "job_id='parse-1')\n"
                                           "q.enqueue('builtins.int', 'customer-5100', "
                                           "job_id='parse-2')\n"
                                           "q.enqueue('builtins.int', 'customer-6200', "
                                           "job_id='1c9d5e4a-8f3b-4c1e-9a7d-2b6f0e8c4d31')\n"),
                            server.url()}),
                 QString());
        QVERIFY(rqApp(server, QStringLiteral("work")).startsWith(QLatin1String("working")));
        const QJsonObject counts
            = QJsonDocument::fromJson(rqApp(server, QStringLiteral("counts")).toUtf8()).object();
        QCOMPARE(counts.value(QLatin1String("finished")).toInt(), 6);
        QCOMPARE(counts.value(QLatin1String("failed")).toInt(), 7);
        QCOMPARE(counts.value(QLatin1String("queued")).toInt(), 0);

        RedisClient client(server.endpoint());
        client.open();
        const qint64 keys = call(client, {"DBSIZE"}).toInteger();
        const QMap<QByteArray, QByteArray> before = keyspace(client);
        QCOMPARE(qint64(before.size()), keys);
        QVERIFY(before.contains("rq:job:parse-1"));

        // The error text: the one job, every state read.
        const QString queue = QStringLiteral("rq:queue:billing");
        CliRun run = search(
            server, {queue, QStringLiteral("error~customer-4411"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(hitIds(run), QStringList{QStringLiteral("failed:parse-1")});
        QJsonObject figures = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(figures[QStringLiteral("end")].toString(), QStringLiteral("complete"));
        QCOMPARE(figures[QStringLiteral("scanned")].toInt(), 13);
        QCOMPARE(figures[QStringLiteral("total")].toInt(), 13);
        const QJsonObject hit = figures[QStringLiteral("hits")][0].toObject();
        QVERIFY2(hit[QStringLiteral("error")].toString().contains(
                     QLatin1String("invalid literal for int() with base 10: 'customer-4411'")),
                 qPrintable(run.out));

        // The word anywhere (the job's error, its description, its pickled
        // arguments): the same one job, not its neighbour.
        run = search(server, {queue, QStringLiteral("customer-4411"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(hitIds(run), QStringList{QStringLiteral("failed:parse-1")});

        // By path through the pickled data (RQ's (function, instance, args,
        // kwargs)): its first argument, exactly; not the neighbour's.
        run = search(server,
                     {queue, QStringLiteral("data.2.0=customer-4411"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(hitIds(run), QStringList{QStringLiteral("failed:parse-1")});
        run = search(server,
                     {queue, QStringLiteral("data.0=builtins.int"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QStringList intHits = hitIds(run); // in the registry's order: failure time, then id
        intHits.sort();
        QCOMPARE(intHits,
                 QStringList({QStringLiteral("failed:1c9d5e4a-8f3b-4c1e-9a7d-2b6f0e8c4d31"),
                              QStringLiteral("failed:parse-1"), QStringLiteral("failed:parse-2")}));

        // By RQ's function name and the failed state alone: the four.
        run = search(server,
                     {queue, QStringLiteral("name=rq_app.fail_once"), QStringLiteral("--state"),
                      QStringLiteral("failed"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(hitIds(run),
                 QStringList({QStringLiteral("failed:fail-1"), QStringLiteral("failed:fail-2"),
                              QStringLiteral("failed:fail-3"), QStringLiteral("failed:fail-4")}));
        figures = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(figures[QStringLiteral("scanned")].toInt(), 7);
        QCOMPARE(figures[QStringLiteral("total")].toInt(), 7);

        // A job named by a UUID, as text: its id whole, its name after it.
        run = search(server, {queue, QStringLiteral("customer-6200")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(
                     QLatin1String("failed     1c9d5e4a-8f3b-4c1e-9a7d-2b6f0e8c4d31 builtins.int")),
                 qPrintable(run.out));

        // Their error, in the finished state: none (exit 3), all six read.
        run = search(server,
                     {queue, QStringLiteral("error~\"failing once\""), QStringLiteral("--state"),
                      QStringLiteral("finished"), QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 3);
        figures = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(figures[QStringLiteral("hits")].toArray().size(), 0);
        QCOMPARE(figures[QStringLiteral("scanned")].toInt(), 6);

        // Searching wrote nothing: the same keys, each holding the same.
        QCOMPARE(call(client, {"DBSIZE"}).toInteger(), keys);
        const QMap<QByteArray, QByteArray> after = keyspace(client);
        QCOMPARE(after.keys(), before.keys());
        for (auto it = before.begin(); it != before.end(); ++it)
            QVERIFY2(after.value(it.key()) == it.value(), it.key().constData());
    }
};

QTEST_GUILESS_MAIN(tst_JobSearch)
#include "tst_jobsearch.moc"
