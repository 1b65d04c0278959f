// SPDX-License-Identifier: MIT
// RQ (Debian python3-rq), driven for real: RQ's own Queue.enqueue and
// SimpleWorker (tests/libraries/rq_app.py) against a private redis-server. A
// worker is killed with SIGKILL in the middle of a job; once the job's
// started-registry expiry has passed, Gatehouse finds the queue and the
// abandoned job with no profile, requeues it through the CLI, and RQ's own
// API and a real worker then show every job ran exactly once and nothing was
// lost. A job that fails once is requeued from the failed registry; one is
// canceled, then deleted. A started-registry member of neither version's
// shape is shown read-only.
//
// GATEHOUSE_RQ_PYTHONPATH (a checkout of RQ 2.x, as README's
// supported-libraries section fetches it) runs the same test with that RQ
// instead of Debian's 1.13: its started registry holds "job_id:execution_id"
// with an rq:execution:<member> hash and the job's rq:executions:<id> set,
// which the requeue ends as RQ's Execution.delete does. Unset, Debian's RQ
// runs (CI).
//
// Ordering against RQ's own cleanup (StartedJobRegistry.cleanup moves an
// abandoned job to the failed registry; a worker runs it when it starts, and
// reading StartedJobRegistry.count runs it too): nothing runs RQ's cleanup
// between the kill and Gatehouse's requeue. No worker is started until the
// job is back on its queue (and the killed worker's own start took RQ's
// cleaning guard, rq:clean_registries:<queue>, for 899 s, which the test
// checks), and the driver reads registries with RQ's count only at the end.
#include <monitor/jobbrowser.h>
#include <patterns/rq/rqunit.h>
#include <redis/redisclient.h>

#include "librarytest.h"
#include "matchnow.h"
#include "redisserver.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
const QString Python = QStringLiteral("/usr/bin/python3"); // Debian's, with python3-rq

// An RQ checkout to run instead of Debian's (GATEHOUSE_RQ_PYTHONPATH), or empty.
QString rqPath()
{
    return qEnvironmentVariable("GATEHOUSE_RQ_PYTHONPATH");
}

QProcessEnvironment pythonEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!rqPath().isEmpty())
        env.insert(QStringLiteral("PYTHONPATH"), rqPath());
    return env;
}

// One run of the RQ driver (tests/libraries/rq_app.py).
struct RqApp
{
    QString url;
    QString queue = QStringLiteral("emails");

    QStringList args(const QString &command, const QString &arg = {}) const
    {
        QStringList a{LibrariesDir + QStringLiteral("/rq_app.py"), url, queue, command};
        if (!arg.isEmpty())
            a << arg;
        return a;
    }
    QString run(const QString &command, const QString &arg = {}) const
    {
        QProcess p;
        p.setProcessEnvironment(pythonEnvironment());
        p.start(Python, args(command, arg));
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit
            || p.exitCode() != 0) {
            qWarning("rq_app.py %s %s failed: %s", qPrintable(command), qPrintable(arg),
                     p.readAllStandardError().constData());
            return QStringLiteral("<failed>");
        }
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }
    std::unique_ptr<QProcess> start(const QString &command) const
    {
        auto p = std::make_unique<QProcess>();
        p->setProcessEnvironment(pythonEnvironment());
        p->start(Python, args(command));
        return p;
    }
    QJsonObject counts() const
    {
        return QJsonDocument::fromJson(run(QStringLiteral("counts")).toUtf8()).object();
    }
};

bool waitFor(const std::function<bool()> &done, int ms = 30000)
{
    return gatehouse::test::pollUntil(done, ms);
}

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &s : v.toArray())
        out << s.toString();
    return out;
}

// A private server with an RQ queue "emails" for the review tests below.
struct RqFixture
{
    RedisServer server;
    std::unique_ptr<RedisClient> client;
    qint64 now = 0;

    bool start()
    {
        if (!server.start())
            return false;
        client = gatehouse::test::connectedClient(server);
        if (!client)
            return false;
        now = call({"TIME"}).at(0).bytes().toLongLong();
        call({"SADD", "rq:queues", "rq:queue:emails"});
        return true;
    }
    RedisValue call(const QList<QByteArray> &command)
    {
        return gatehouse::test::call(*client, command);
    }
    void job(const QByteArray &id, const QByteArray &status)
    {
        call({"HSET", "rq:job:" + id, "origin", "emails", "status", status, "description",
              "rq_app.block()", "timeout", "2"});
    }
    // n abandoned RQ 2 jobs "fill-<i>", one dead execution each in the
    // started registry (expired 100 s ago).
    void abandonedFill(int n)
    {
        QList<QByteArray> zadd{"ZADD", "rq:wip:emails"};
        for (int i = 0; i < n; ++i) {
            const QByteArray id = "fill-" + QByteArray::number(i);
            job(id, "started");
            zadd << QByteArray::number(now - 100) << id + ":0123456789abcdef0123456789abcdef";
        }
        call(zadd);
    }
    QStringList queued()
    {
        const RedisValue list = call({"LRANGE", "rq:queue:emails", "0", "-1"});
        QStringList out;
        for (const RedisValue &v : list.elements())
            out << QString::fromUtf8(v.bytes());
        return out;
    }
    CliRun cli(const QList<QByteArray> &args)
    {
        QStringList a{QStringLiteral("queue"), QString::fromUtf8(args.first()),
                      QStringLiteral("rq:queue:emails")};
        for (qsizetype i = 1; i < args.size(); ++i)
            a << QString::fromUtf8(args.at(i));
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, a);
    }
};

} // namespace

class tst_LibRq : public QObject
{
    Q_OBJECT

private:
    bool m_rq2 = false; // the RQ under test is 2.x (a checkout), not Debian's 1.x
    CliRun cli(const RedisServer &server, QStringList args)
    {
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, args);
    }
    QJsonObject snapshot(const RedisServer &server)
    {
        return gatehouse::test::snapshotOf(
            cli(server, {QStringLiteral("snapshot"), QStringLiteral("--json")}));
    }
    // Every object of the snapshot other than the one queue: none may exist
    // (RQ's registries are not limiters, its cleaning guard and scheduler
    // lock not locks, its job hashes not tokens).
    static QStringList others(const QJsonObject &snapshot, const QString &queue)
    {
        return gatehouse::test::objectsBesides(snapshot, queue);
    }
    // A page of a state's jobs, or a job's detail, as the Queues page reads
    // them (JobBrowser over RqUnit::jobPage and jobDetail).
    static JobListing page(RedisClient &client, const QString &state, int count = 50)
    {
        JobBrowser browser(&client);
        QSignalSpy listed(&browser, &JobBrowser::listed);
        if (!browser.listJobs(RqUnit::objectForName("emails"), state, 0, count)
            || !listed.wait(5000))
            return {};
        return listed.first().first().value<JobListing>();
    }
    static JobListing detail(RedisClient &client, const QByteArray &job)
    {
        JobBrowser browser(&client);
        QSignalSpy detailed(&browser, &JobBrowser::detailed);
        if (!browser.showJob(RqUnit::objectForName("emails"), job) || !detailed.wait(5000))
            return {};
        return detailed.first().first().value<JobListing>();
    }
    static QStringList ids(const JobListing &page)
    {
        QStringList out;
        for (const JobRow &row : page.rows)
            out << QString::fromUtf8(row.id);
        return out;
    }
    static qint64 serverSeconds(RedisClient &client)
    {
        return call(client, {"TIME"}).at(0).bytes().toLongLong();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(Python), "/usr/bin/python3 is missing: run .ci/install-deps");
        QProcess p;
        p.setProcessEnvironment(pythonEnvironment());
        p.start(Python, {QStringLiteral("-c"),
                         QStringLiteral("import redis, rq; from rq.version import VERSION; "
                                        "print(VERSION, rq.__file__)")});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY2(p.exitCode() == 0,
                 rqPath().isEmpty()
                     ? "Debian's python3-rq is not installed: run .ci/install-deps"
                     : "GATEHOUSE_RQ_PYTHONPATH holds no importable rq (it needs Debian's "
                       "python3-redis, python3-click and python3-croniter)");
        const QString found = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
        // Debian's is 1.x; a checkout the 2.x the test was run with.
        m_rq2 = !rqPath().isEmpty();
        QVERIFY2(found.startsWith(m_rq2 ? QLatin1String("2.") : QLatin1String("1."))
                     && (!m_rq2 || found.contains(rqPath())),
                 qPrintable(QStringLiteral("RQ %1 was expected, found \"%2\"")
                                .arg(m_rq2 ? QStringLiteral("2.x from ") + rqPath()
                                           : QStringLiteral("1.x (Debian)"),
                                     found)));
        qInfo("RQ %s", qPrintable(found));
    }

    void abandonedJobRequeuedAndRunOnce()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const RqApp app{server.url()};
        const QString queue = QStringLiteral("rq:queue:emails");

        // A worker takes job-1 (2 s timeout) and is killed in the middle of it,
        // before that timeout could fire in it.
        QCOMPARE(app.run(QStringLiteral("produce-blocking"), QStringLiteral("job-1")), QString());
        QCOMPARE(app.run(QStringLiteral("produce"), QStringLiteral("job-2")), QString());
        QCOMPARE(app.run(QStringLiteral("produce"), QStringLiteral("job-3")), QString());
        // The job as RQ wrote it: its data a zlib-compressed pickle, read as
        // a structure (the function's name, never run).
        {
            const CliRun shown = cli(server, {QStringLiteral("queue"), QStringLiteral("job"), queue,
                                              QStringLiteral("job-2"), QStringLiteral("--json")});
            QVERIFY2(shown.exitCode == 0, qPrintable(shown.out + shown.err));
            const QJsonArray decoded
                = QJsonDocument::fromJson(shown.out.toUtf8()).object().value("decoded").toArray();
            QJsonObject data;
            for (const QJsonValue &d : decoded) {
                if (d.toObject().value("field").toString() == QLatin1String("data"))
                    data = d.toObject();
            }
            QVERIFY2(!data.isEmpty(), qPrintable(shown.out));
            const QString chain = data.value("decoder").toString();
            QVERIFY2(chain.contains(QLatin1String("zlib"))
                         && chain.contains(QLatin1String("pickle")),
                     qPrintable(chain));
            QVERIFY2(data.value("text").toString().contains(QLatin1String("rq_app.just_run")),
                     qPrintable(data.value("text").toString()));
        }
        auto hung = app.start(QStringLiteral("work"));
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "taken"}).toInteger() == 1;
                 }),
                 "the worker never took job-1");
        hung->kill(); // SIGKILL
        QVERIFY(hung->waitForFinished(10000));
        hung.reset();
        // In the started registry: RQ 1 by its id; RQ 2 as "job-1:<execution
        // id>", with the execution's hash and the job's executions set.
        const RedisValue started = call(client, {"ZRANGE", "rq:wip:emails", "0", "-1"});
        QCOMPARE(started.size(), qsizetype(1));
        const QByteArray member = started.at(0).bytes();
        if (m_rq2) {
            QVERIFY2(member.startsWith("job-1:") && member.count(':') == 1, member.constData());
            QCOMPARE(call(client, {"TYPE", "rq:execution:" + member}).bytes(), QByteArray("hash"));
            QCOMPARE(call(client, {"ZRANGE", "rq:executions:job-1", "0", "-1"}).size(),
                     qsizetype(1));
        } else {
            QCOMPARE(member, QByteArray("job-1"));
        }
        // No worker cleans the registries (fails job-1) before the requeue:
        // none starts. RQ 1.13's first worker took the cleaning guard for
        // 899 s; RQ 2 releases it once done (worker/base.py clean_registries).
        QCOMPARE(call(client, {"EXISTS", "rq:clean_registries:emails"}).toInteger(), m_rq2 ? 0 : 1);

        // Not abandoned yet: its expiry (timeout + 60 s) is ahead, as if a
        // worker still ran it; requeueing it is refused.
        CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                                  QStringLiteral("--job"), QStringLiteral("job-1")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("live worker")), qPrintable(run.err + run.out));
        QJsonObject q = snapshot(server)[QStringLiteral("queues")].toArray().first().toObject();
        QCOMPARE(q[QStringLiteral("stuck")].toArray().size(), 0);

        // Abandoned once the expiry is past (server time), and the dead
        // worker's hash expired with its last heartbeat.
        const QByteArray deadWorker = call(client, {"SRANDMEMBER", "rq:workers:emails"}).bytes();
        QVERIFY(deadWorker.startsWith("rq:worker:"));
        QVERIFY2(waitFor(
                     [&] {
                         return call(client, {"ZCOUNT", "rq:wip:emails", "-inf",
                                              QByteArray::number(serverSeconds(client) - 1)})
                                        .toInteger()
                                    == 1
                                && call(client, {"EXISTS", deadWorker}).toInteger() == 0;
                     },
                     90000),
                 "job-1's started-registry expiry never passed");

        // Found with no profile: one queue, RQ's own counts, the abandoned
        // job with its started_at; the dead worker registered, without a
        // heartbeat; nothing else.
        QJsonObject snap = snapshot(server);
        QJsonArray queues = snap[QStringLiteral("queues")].toArray();
        QCOMPARE(queues.size(), 1);
        q = queues.first().toObject();
        QCOMPARE(q[QStringLiteral("key")].toString(), queue);
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("rq"));
        const QJsonObject library = q[QStringLiteral("library")].toObject();
        QCOMPARE(library[QStringLiteral("name")].toString(), QStringLiteral("rq"));
        QCOMPARE(library[QStringLiteral("layoutKnown")].toBool(), true);
        QJsonObject counts = q[QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("queued")].toInt(), 2);
        QCOMPARE(counts[QStringLiteral("started")].toInt(), 1);
        for (const char *state : {"finished", "failed", "scheduled", "deferred", "canceled"})
            QVERIFY2(counts.contains(QLatin1String(state))
                         && counts[QLatin1String(state)].toInt() == 0,
                     state);
        QCOMPARE(q[QStringLiteral("workers")].toInt(), 1);
        QCOMPARE(q[QStringLiteral("workersWithHeartbeat")].toInt(), 0);
        const QJsonArray stuck = q[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.first()[QStringLiteral("job")].toString(), QStringLiteral("job-1"));
        QVERIFY(stuck.first()[QStringLiteral("reason")].toString().contains(
            QLatin1String("abandoned")));
        // When it was taken: RQ 1's job hash's started_at. RQ 2's abandoned
        // execution's record expired with its last heartbeat: unknown (null);
        // its job hash's started_at shows on the started page below.
        const QJsonValue sinceValue = stuck.first()[QStringLiteral("sinceMs")];
        const double since = sinceValue.toDouble();
        if (m_rq2)
            QVERIFY2(sinceValue.isNull(), qPrintable(QString::number(since, 'f', 0)));
        else
            QVERIFY2(since > 0 && since <= double(serverSeconds(client)) * 1000 - 60000,
                     qPrintable(QString::number(since, 'f', 0)));
        QCOMPARE(others(snap, queue), QStringList());

        // The job lists, as the Queues page reads them: the abandoned job
        // started, with its function and when it started; the others queued.
        JobListing jobs = page(client, QStringLiteral("started"));
        QVERIFY2(jobs.ok, qPrintable(jobs.message));
        QCOMPARE(jobs.total, 1);
        QCOMPARE(ids(jobs), QStringList{"job-1"});
        QCOMPARE(jobs.rows.first().name, QStringLiteral("rq_app.block"));
        QVERIFY(jobs.rows.first().atMs > 0
                && jobs.rows.first().atMs
                       <= (m_rq2 ? serverSeconds(client) * 1000 - 60000 : qint64(since) + 1000));
        jobs = page(client, QStringLiteral("queued"));
        QCOMPARE(jobs.total, 2);
        QCOMPARE(ids(jobs), (QStringList{"job-2", "job-3"})); // RQ pushes at the right
        QCOMPARE(jobs.rows.first().name, QStringLiteral("rq_app.just_run"));
        jobs = page(client, QStringLiteral("queued"), 1);
        QCOMPARE(jobs.total, 2);
        QCOMPARE(ids(jobs), QStringList{"job-2"}); // a page, never the whole list
        QCOMPARE(page(client, QStringLiteral("failed")).total, 0);

        // "Requeue all stuck"'s confirmation counts it (its expiry passed by
        // the server's clock), as the script will judge it.
        const auto matchNow = [&](const QString &action, const QString &flag) {
            return gatehouse::test::matchNow(client, RqUnit::Kind, RqUnit::objectForName("emails"),
                                             action, {{flag, QByteArray()}});
        };
        gatehouse::test::MatchNow counted
            = matchNow(QStringLiteral("queue.requeue"), QStringLiteral("stuck"));
        QVERIFY2(counted.ok, qPrintable(counted.error));
        QCOMPARE(counted.count, qint64(1));
        QVERIFY2(counted.sentence.startsWith(QLatin1String("1 match now; they are requeued 100")),
                 qPrintable(counted.sentence));

        // Requeued through the CLI; RQ sees it queued again, at the back.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                           QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("Requeued 1 abandoned job.")), qPrintable(run.out));
        QCOMPARE(app.run(QStringLiteral("state"), QStringLiteral("job-1")),
                 QStringLiteral("queued"));
        QCOMPARE(call(client, {"ZCARD", "rq:wip:emails"}).toInteger(), 0);
        QCOMPARE(call(client, {"LINDEX", "rq:queue:emails", "-1"}).bytes(), QByteArray("job-1"));
        if (m_rq2) {
            // The dead execution ended as RQ's Execution.delete ends one.
            QCOMPARE(call(client, {"EXISTS", "rq:execution:" + member}).toInteger(), 0);
            QCOMPARE(call(client, {"ZCARD", "rq:executions:job-1"}).toInteger(), 0);
        }

        // A job that fails once; a new real worker runs everything queued.
        QCOMPARE(app.run(QStringLiteral("produce-failing"), QStringLiteral("failing-1")),
                 QString());
        QVERIFY(app.run(QStringLiteral("work")).startsWith(QLatin1String("working")));
        QCOMPARE(app.run(QStringLiteral("state"), QStringLiteral("failing-1")),
                 QStringLiteral("failed"));
        QCOMPARE(call(client, {"ZCARD", "rq:failed:emails"}).toInteger(), 1);
        q = snapshot(server)[QStringLiteral("queues")].toArray().first().toObject();
        QCOMPARE(q[QStringLiteral("counts")][QStringLiteral("failed")].toInt(), 1);
        QCOMPARE(q[QStringLiteral("counts")][QStringLiteral("finished")].toInt(), 3);
        // The failed job listed with the exception its exc_info ends with,
        // its detail with the traceback; the finished ones the latest first.
        jobs = page(client, QStringLiteral("failed"));
        QCOMPARE(ids(jobs), QStringList{"failing-1"});
        QCOMPARE(jobs.rows.first().name, QStringLiteral("rq_app.fail_once"));
        QCOMPARE(jobs.rows.first().error, QStringLiteral("RuntimeError: failing once, as asked"));
        JobListing failed = detail(client, "failing-1");
        QVERIFY2(failed.ok, qPrintable(failed.message));
        QVERIFY2(failed.detail.contains(QLatin1String("Traceback")), qPrintable(failed.detail));
        QVERIFY2(failed.detail.contains(QLatin1String("\"status\": \"failed\"")),
                 qPrintable(failed.detail));
        jobs = page(client, QStringLiteral("finished"));
        QCOMPARE(jobs.total, 3);
        QCOMPARE(jobs.rows.size(), 3);
        QCOMPARE(detail(client, "no-such-job").ok, false);

        // Nothing abandoned is left; "Retry all"'s confirmation counts the
        // failed one.
        QCOMPARE(matchNow(QStringLiteral("queue.requeue"), QStringLiteral("stuck")).count,
                 qint64(0));
        counted = matchNow(QStringLiteral("queue.retry"), QStringLiteral("all"));
        QVERIFY2(counted.ok, qPrintable(counted.error));
        QCOMPARE(counted.count, qint64(1));

        // Requeued from the failed registry as RQ's FailedJobRegistry.requeue
        // does; the worker runs it.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"), queue,
                           QStringLiteral("--job"), QStringLiteral("failing-1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(app.run(QStringLiteral("state"), QStringLiteral("failing-1")),
                 QStringLiteral("queued"));
        QVERIFY(app.run(QStringLiteral("work")).startsWith(QLatin1String("working")));

        // Exactly once each, by the jobs' own record and by RQ's API.
        QStringList ran;
        const RedisValue ranList = call(client, {"LRANGE", "ran", "0", "-1"});
        for (const RedisValue &v : ranList.elements())
            ran << QString::fromUtf8(v.bytes());
        ran.sort();
        QCOMPARE(ran, (QStringList{"failing-1", "job-1", "job-2", "job-3"}));
        QCOMPARE(call(client, {"LLEN", "taken"}).toInteger(), 1);
        for (const char *job : {"job-1", "job-2", "job-3", "failing-1"})
            QCOMPARE(app.run(QStringLiteral("state"), QLatin1String(job)),
                     QStringLiteral("finished"));

        // Cancel one job, then delete it, as RQ's API sees them.
        QCOMPARE(app.run(QStringLiteral("produce"), QStringLiteral("later-1")), QString());
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("cancel"), queue,
                           QStringLiteral("--job"), QStringLiteral("later-1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(app.run(QStringLiteral("state"), QStringLiteral("later-1")),
                 QStringLiteral("canceled"));
        counts = app.counts();
        QCOMPARE(strings(counts[QStringLiteral("canceledIds")]), QStringList{"later-1"});
        QCOMPARE(strings(counts[QStringLiteral("queuedIds")]), QStringList());
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("delete"), queue,
                           QStringLiteral("--job"), QStringLiteral("later-1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(app.run(QStringLiteral("exists"), QStringLiteral("later-1")),
                 QStringLiteral("false"));

        // Nothing lost, nothing left anywhere, by RQ's own counts (which now
        // may run its cleanup).
        counts = app.counts();
        QCOMPARE(strings(counts[QStringLiteral("finishedIds")]),
                 (QStringList{"failing-1", "job-1", "job-2", "job-3"}));
        for (const char *state :
             {"queued", "started", "failed", "scheduled", "deferred", "canceled"})
            QVERIFY2(counts[QLatin1String(state)].toInt() == 0, state);

        // Still one queue, nothing of RQ's mistaken for anything else.
        snap = snapshot(server);
        QCOMPARE(snap[QStringLiteral("queues")].toArray().size(), 1);
        QCOMPARE(others(snap, queue), QStringList());

        // A started-registry member of neither RQ 1's shape (a job id) nor RQ
        // 2's ("job_id:execution_id") is an unknown layout: shown read-only,
        // and the CLI reads it first and refuses before sending any script.
        call(client, {"HSET", "rq:job:job-9", "origin", "emails", "status", "started"});
        call(client, {"ZADD", "rq:wip:emails", "1", "job-9:a:b"});
        q = snapshot(server)[QStringLiteral("queues")].toArray().first().toObject();
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        QVERIFY2(q[QStringLiteral("message")].toString().contains(QLatin1String("read-only")),
                 qPrintable(q[QStringLiteral("message")].toString()));
        QCOMPARE(q[QStringLiteral("stuck")].toArray().first()[QStringLiteral("job")].toString(),
                 QStringLiteral("job-9"));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                           QStringLiteral("--stuck")});
        QCOMPARE(run.exitCode, 3); // read first: refused before any script is sent
        QVERIFY2(run.err.contains(QLatin1String("is not an RQ queue layout")),
                 qPrintable(run.err + run.out));
        QVERIFY2(run.err.contains(QLatin1String("several ':'")), qPrintable(run.err));
        QCOMPARE(call(client, {"ZCARD", "rq:wip:emails"}).toInteger(), 1);
        QCOMPARE(call(client, {"LLEN", "rq:queue:emails"}).toInteger(), 0);
    }

    // RQ 2's started-registry records as RQ 2.10's worker leaves them (what
    // the GATEHOUSE_RQ_PYTHONPATH run of the test above reads live; written
    // here with RQ 2's own commands, Execution.create and
    // StartedJobRegistry.add_execution of rq/executions.py, so that CI,
    // which has Debian's RQ 1, covers the RQ 2 paths of Gatehouse's
    // scripts): a live execution is never touched; an abandoned one is
    // ended (its hash, registry member and the job's executions entry) and
    // its job requeued; a job with a live execution beside a dead one is
    // refused; cancel and delete take the execution members too.
    void rq2ExecutionsWrittenAsRq2Does()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const QString queue = QStringLiteral("rq:queue:emails");
        const qint64 now = serverSeconds(client);
        // Execution.create: the execution hash (TTL = heartbeat TTL), the
        // job's executions ZSET (score + 60) and the started member.
        const auto execute = [&](const QByteArray &job, const QByteArray &exec, qint64 expiry) {
            call(client,
                 {"HSET", "rq:job:" + job, "origin", "emails", "status", "started", "description",
                  "rq_app.block()", "timeout", "2", "started_at", "2026-11-24T07:06:28.836787Z"});
            if (expiry > now)
                call(client,
                     {"HSET", "rq:execution:" + job + ":" + exec, "id", exec, "created_at",
                      QByteArray::number(now - 1), "last_heartbeat", QByteArray::number(now - 1)});
            call(client, {"ZADD", "rq:executions:" + job, QByteArray::number(expiry + 60), exec});
            call(client, {"ZADD", "rq:wip:emails", QByteArray::number(expiry), job + ":" + exec});
            call(client, {"SADD", "rq:queues", "rq:queue:emails"});
        };
        execute("live-1", "aaaa", now + 600);
        execute("dead-1", "bbbb", now - 5);
        execute("both-1", "cccc", now - 5);
        execute("both-1", "dddd", now + 600);
        execute("dead-2", "eeee", now - 5);

        QJsonObject q = snapshot(server)[QStringLiteral("queues")].toArray().first().toObject();
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        QCOMPARE(q[QStringLiteral("counts")][QStringLiteral("started")].toInt(), 5);
        QStringList stuck;
        for (const QJsonValue &v : q[QStringLiteral("stuck")].toArray())
            stuck << v[QStringLiteral("job")].toString();
        // (both-1, a dead execution beside a live one, is listed by its dead
        // member; the requeue refuses it below.)
        QVERIFY2(stuck.contains(QLatin1String("dead-1")) && stuck.contains(QLatin1String("dead-2"))
                     && !stuck.contains(QLatin1String("live-1")),
                 qPrintable(stuck.join(QLatin1Char(' '))));

        const auto requeue = [&](const char *job) {
            return cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                                QStringLiteral("--job"), QLatin1String(job)});
        };
        // Live: refused, nothing written.
        CliRun run = requeue("live-1");
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("live worker")), qPrintable(run.err + run.out));
        run = requeue("both-1");
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("live worker")), qPrintable(run.err + run.out));
        QCOMPARE(call(client, {"ZCARD", "rq:wip:emails"}).toInteger(), 5);
        QCOMPARE(call(client, {"LLEN", "rq:queue:emails"}).toInteger(), 0);

        // Abandoned, by its job id: its execution ended, the job queued.
        run = requeue("dead-1");
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY(call(client, {"ZSCORE", "rq:wip:emails", "dead-1:bbbb"}).isNil());
        QCOMPARE(call(client, {"EXISTS", "rq:executions:dead-1"}).toInteger(), 0);
        QCOMPARE(call(client, {"HGET", "rq:job:dead-1", "status"}).bytes(), QByteArray("queued"));
        QCOMPARE(call(client, {"HGET", "rq:job:dead-1", "started_at"}).bytes(), QByteArray());
        QCOMPARE(call(client, {"LRANGE", "rq:queue:emails", "0", "-1"}).size(), qsizetype(1));

        // Every abandoned one: dead-2 only (both-1 has a live execution).
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                           QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(QLatin1String("Requeued 1 abandoned job.")), qPrintable(run.out));
        QStringList queued;
        const RedisValue queuedList = call(client, {"LRANGE", "rq:queue:emails", "0", "-1"});
        for (const RedisValue &v : queuedList.elements())
            queued << QString::fromUtf8(v.bytes());
        QCOMPARE(queued, (QStringList{"dead-1", "dead-2"}));
        QCOMPARE(call(client, {"ZRANGE", "rq:wip:emails", "0", "-1"}).size(), qsizetype(3));
        QCOMPARE(call(client, {"ZCARD", "rq:executions:dead-2"}).toInteger(), 0);

        // Delete refuses a live job; cancel of an abandoned-and-live one
        // too; delete of the live one once its execution is past ends it.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("delete"), queue,
                           QStringLiteral("--job"), QStringLiteral("live-1")});
        QCOMPARE(run.exitCode, 3);
        call(client, {"ZADD", "rq:wip:emails", QByteArray::number(now - 1), "live-1:aaaa"});
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("delete"), queue,
                           QStringLiteral("--job"), QStringLiteral("live-1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        for (const QByteArray key :
             {QByteArray("rq:job:live-1"), QByteArray("rq:executions:live-1"),
              QByteArray("rq:execution:live-1:aaaa")})
            QCOMPARE(call(client, {"EXISTS", key}).toInteger(), 0);
        QVERIFY(call(client, {"ZSCORE", "rq:wip:emails", "live-1:aaaa"}).isNil());
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("cancel"), queue,
                           QStringLiteral("--job"), QStringLiteral("both-1")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(call(client, {"ZCARD", "rq:wip:emails"}).toInteger(), 2);
    }

    // A job with two dead RQ 2 executions whose second member lies past the
    // first full page of --stuck (100 members) is requeued once, not once
    // per page, and none of its members is left behind for RQ's cleanup to
    // fail the requeued job by.
    void rq2SplitPageRequeuedOnce()
    {
        RqFixture f;
        QVERIFY(f.start());
        f.job("split-1", "started");
        f.call({"ZADD", "rq:executions:split-1", QByteArray::number(f.now - 240), "ffff",
                QByteArray::number(f.now + 55), "gggg"});
        f.call({"ZADD", "rq:wip:emails", QByteArray::number(f.now - 300), "split-1:ffff",
                QByteArray::number(f.now - 5), "split-1:gggg"});
        f.abandonedFill(99);
        const CliRun run = f.cli({"requeue", "--stuck"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        const QStringList queued = f.queued();
        QCOMPARE(queued.count(QStringLiteral("split-1")), 1);
        QCOMPARE(queued.size(), 100);
        QCOMPARE(f.call({"ZCARD", "rq:wip:emails"}).toInteger(), 0);
        QCOMPARE(f.call({"ZCARD", "rq:executions:split-1"}).toInteger(), 0);
    }

    // `requeue --stuck` goes on past a page that held a refused job (a live
    // execution beside a dead one) and a job of two dead executions: it
    // stopped after that page (98 jobs of 100 members), leaving the
    // abandoned jobs behind it for a second run.
    void stuckRequeueGoesPastRefusedAndTwinMembers()
    {
        RqFixture f;
        QVERIFY(f.start());
        f.job("twin", "started");
        f.call({"ZADD", "rq:executions:twin", QByteArray::number(f.now - 340), "aaaa",
                QByteArray::number(f.now - 330), "bbbb"});
        f.call({"ZADD", "rq:wip:emails", QByteArray::number(f.now - 400), "twin:aaaa",
                QByteArray::number(f.now - 390), "twin:bbbb"});
        f.job("held", "started");
        f.call({"ZADD", "rq:executions:held", QByteArray::number(f.now - 320), "cccc",
                QByteArray::number(f.now + 55), "dddd"});
        f.call({"ZADD", "rq:wip:emails", QByteArray::number(f.now - 380), "held:cccc",
                QByteArray::number(f.now - 5 + 60), "held:dddd"});
        f.abandonedFill(120);
        const CliRun run = f.cli({"requeue", "--stuck"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        const QStringList queued = f.queued();
        QCOMPARE(queued.size(), 121);
        QCOMPARE(queued.count(QStringLiteral("twin")), 1);
        QVERIFY(!queued.contains(QStringLiteral("held")));
        // What is left is the held job, both of its members, untouched.
        QCOMPARE(f.call({"ZCARD", "rq:wip:emails"}).toInteger(), 2);
        QCOMPARE(f.call({"ZCARD", "rq:executions:held"}).toInteger(), 2);
        QCOMPARE(f.call({"HGET", "rq:job:held", "status"}).bytes(), QByteArray("started"));
    }

    // RQ 1 takes any job id, ':' too: an abandoned "report:42" beside a
    // finished "report" is requeued itself, never read as an execution of
    // "report" (which requeued the finished "report" and dropped
    // "report:42" from the started registry).
    void rq1ColonIdAbandonedIsItsOwnJob()
    {
        RqFixture f;
        QVERIFY(f.start());
        f.job("report", "finished");
        f.call({"ZADD", "rq:finished:emails", QByteArray::number(f.now + 500), "report"});
        f.job("report:42", "started");
        f.call({"ZADD", "rq:wip:emails", QByteArray::number(f.now - 5), "report:42"});
        // The snapshot names the stuck job by its own id, in RQ 1's layout.
        const QJsonObject q = gatehouse::test::snapshotOf(gatehouse::test::libraryCli(
            QStringLiteral(GATEHOUSE_CLI), f.server,
            {QStringLiteral("snapshot"), QStringLiteral("--json")}))[QStringLiteral("queues")]
                                  .toArray()
                                  .first()
                                  .toObject();
        const QJsonArray stuck = q[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.first()[QStringLiteral("job")].toString(), QStringLiteral("report:42"));
        CliRun run = f.cli({"requeue", "--stuck"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(f.call({"HGET", "rq:job:report", "status"}).bytes(), QByteArray("finished"));
        QCOMPARE(f.queued(), QStringList{QStringLiteral("report:42")});
        QCOMPARE(f.call({"HGET", "rq:job:report:42", "status"}).bytes(), QByteArray("queued"));
        // By its id too, and "report"'s own requeue does not take it.
        f.call({"DEL", "rq:queue:emails"});
        f.call({"ZADD", "rq:wip:emails", QByteArray::number(f.now - 5), "report:42"});
        f.call({"ZADD", "rq:wip:emails", QByteArray::number(f.now - 5), "report"});
        run = f.cli({"requeue", "--job", "report"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(f.queued(), QStringList{QStringLiteral("report")});
        QVERIFY(!f.call({"ZSCORE", "rq:wip:emails", "report:42"}).isNil());
    }

    // The failed registry holds job ids (RQ 1 and 2): "digest:7" is retried
    // itself, not as "digest" (which dropped "digest:7" from the registry).
    void rq1ColonIdFailedIsItsOwnJob()
    {
        RqFixture f;
        QVERIFY(f.start());
        f.job("digest", "finished");
        f.job("digest:7", "failed");
        f.call({"ZADD", "rq:failed:emails", QByteArray::number(f.now + 500), "digest:7"});
        const CliRun run = f.cli({"retry", "--all"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(f.call({"HGET", "rq:job:digest", "status"}).bytes(), QByteArray("finished"));
        QCOMPARE(f.queued(), QStringList{QStringLiteral("digest:7")});
        QCOMPARE(f.call({"ZCARD", "rq:failed:emails"}).toInteger(), 0);
    }

    // Delete of "sync" leaves the abandoned RQ 1 job "sync:1" where it is.
    void rq1ColonIdNotTakenByDelete()
    {
        RqFixture f;
        QVERIFY(f.start());
        f.job("sync", "finished");
        f.job("sync:1", "started");
        f.call({"ZADD", "rq:wip:emails", QByteArray::number(f.now - 5), "sync:1"});
        const CliRun run = f.cli({"delete", "--job", "sync"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(f.call({"EXISTS", "rq:job:sync"}).toInteger(), 0);
        QVERIFY(!f.call({"ZSCORE", "rq:wip:emails", "sync:1"}).isNil());
    }

    // Delete reads rq:executions:<id> after its first write: one that is not
    // a ZSET is refused before anything is written (the job stays queued).
    void deleteRefusedBeforeWriting()
    {
        RqFixture f;
        QVERIFY(f.start());
        f.job("odd-1", "queued");
        f.call({"RPUSH", "rq:queue:emails", "odd-1"});
        f.call({"SET", "rq:executions:odd-1", "not RQ's"});
        const CliRun run = f.cli({"delete", "--job", "odd-1"});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(f.queued(), QStringList{QStringLiteral("odd-1")});
        QCOMPARE(f.call({"EXISTS", "rq:job:odd-1"}).toInteger(), 1);
    }
};

QTEST_GUILESS_MAIN(tst_LibRq)
#include "tst_lib_rq.moc"
