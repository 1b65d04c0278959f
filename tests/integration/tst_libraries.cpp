// SPDX-License-Identifier: MIT
// The job libraries people run, driven for real: their own producers and
// workers (tests/libraries/, installed by .ci/install-deps) against a private
// redis-server. A worker is killed in the middle of a job; Gatehouse finds
// the queue and the stuck job with no profile, requeues it through the CLI,
// and the library's own API and a real worker then show every job ran
// exactly once and nothing was lost.
#include <monitor/jobbrowser.h>
#include <patterns/bull/bullunit.h>
#include <redis/redisclient.h>

#include "librarytest.h"
#include "nodeapp.h"
#include "redisserver.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

using gatehouse::test::NodeApp;
using gatehouse::test::stopProcess;

bool waitFor(const std::function<bool()> &done, int ms = 20000)
{
    return gatehouse::test::pollUntil(done, ms);
}

} // namespace

class tst_Libraries : public QObject
{
    Q_OBJECT

private:
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
    // (BullMQ's completed and failed sets, stall guard and job locks are
    // its queue's, not limiters, locks or tokens).
    static QStringList others(const QJsonObject &snapshot, const QString &queue)
    {
        return gatehouse::test::objectsBesides(snapshot, queue);
    }

    // The version of the npm package a module name installs ("bull3": Bull 3.x).
    static QString bullVersion(const QString &module)
    {
        QFile f(LibrariesDir + QStringLiteral("/node_modules/") + module
                + QStringLiteral("/package.json"));
        if (!f.open(QIODevice::ReadOnly))
            return QString();
        return QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("version")].toString();
    }

    // The Bull majors the Bull tests run with (tests/libraries/package.json).
    static void bullMajors()
    {
        QTest::addColumn<QString>("module");
        QTest::addColumn<QString>("version");
        QTest::newRow("bull 4") << QStringLiteral("bull") << QStringLiteral("4.");
        QTest::newRow("bull 3") << QStringLiteral("bull3") << QStringLiteral("3.");
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty(),
                 "node is not installed: run .ci/install-deps");
        QVERIFY2(
            QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json"))
                && QFile::exists(LibrariesDir
                                 + QStringLiteral("/node_modules/bullmq5/package.json"))
                && QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bull/package.json"))
                && QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bull3/package.json")),
            "npm packages missing: run .ci/install-deps (npm ci in tests/libraries)");
    }

    void bullmq_data()
    {
        QTest::addColumn<QString>("module");
        QTest::addColumn<QString>("major");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("bullmq 6") << QStringLiteral("bullmq") << QStringLiteral("bullmq:6.")
                                  << QStringLiteral("bull");
        // A Cluster deployment's hash-tag prefix.
        QTest::newRow("bullmq 5, {bull}")
            << QStringLiteral("bullmq5") << QStringLiteral("bullmq:5.") << QStringLiteral("{bull}");
    }

    void bullmq()
    {
        QFETCH(QString, module);
        QFETCH(QString, major);
        QFETCH(QString, prefix);
        qputenv("BULL_PREFIX", prefix.toUtf8()); // bullmq-app.js's prefix
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const NodeApp app{module, server.url()};
        const QString queue = prefix + QStringLiteral(":emails");
        const QByteArray base = queue.toUtf8();

        // A worker takes job-1 and dies in the middle of it.
        QCOMPARE(app.run(QStringLiteral("produce"), QStringLiteral("3")), QString());
        auto hung = app.start(QStringLiteral("hang"), {}, "taken job-1");
        hung->kill();
        hung->waitForFinished(10000);
        QVERIFY2(waitFor([&] {
                     return call(client, {"EXISTS", base + ":job-1:lock"}).toInteger() == 0;
                 }),
                 "the dead worker's lock never expired");

        // Found with no profile: one queue, its library, BullMQ's own counts,
        // the stalled job; nothing else.
        QJsonObject snap = snapshot(server);
        QJsonArray queues = snap[QStringLiteral("queues")].toArray();
        QCOMPARE(queues.size(), 1);
        QJsonObject q = queues.first().toObject();
        QCOMPARE(q[QStringLiteral("key")].toString(), queue);
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("bullmq"));
        const QJsonObject library = q[QStringLiteral("library")].toObject();
        QCOMPARE(library[QStringLiteral("name")].toString(), QStringLiteral("bullmq"));
        QVERIFY2(library[QStringLiteral("layout")].toString().startsWith(major),
                 qPrintable(library[QStringLiteral("layout")].toString()));
        QCOMPARE(library[QStringLiteral("layoutKnown")].toBool(), true);
        QJsonObject counts = q[QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("active")].toInt(), 1);
        QCOMPARE(counts[QStringLiteral("wait")].toInt() + counts[QStringLiteral("paused")].toInt(),
                 2);
        const QJsonArray stuck = q[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.first()[QStringLiteral("job")].toString(), QStringLiteral("job-1"));
        QVERIFY(stuck.first()[QStringLiteral("sinceMs")].toDouble() > 0);
        QCOMPARE(others(snap, queue), QStringList());

        // A dry run says how many are stalled now (nothing counts them
        // ahead of the script) and moves nothing.
        CliRun run = cli(server, {QStringLiteral("--dry-run"), QStringLiteral("queue"),
                                  QStringLiteral("requeue"), queue, QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("\n1 stuck as just read")), qPrintable(run.out));
        QCOMPARE(app.run(QStringLiteral("state"), QStringLiteral("job-1")),
                 QStringLiteral("active"));

        // Requeued through the CLI; the library sees it waiting.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                           QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("Requeued 1 stalled job.")), qPrintable(run.out));
        QCOMPARE(app.run(QStringLiteral("state"), QStringLiteral("job-1")),
                 QStringLiteral("waiting"));

        // A job that fails once and one delayed by an hour.
        QCOMPARE(app.run(QStringLiteral("produce-failing"), QStringLiteral("1")), QString());
        QCOMPARE(app.run(QStringLiteral("produce-delayed"), QStringLiteral("1")), QString());

        // A real worker runs what is waiting; the failing job fails.
        auto worker = app.start(QStringLiteral("work"), QStringLiteral("ran"), "working");
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "ran"}).toInteger() == 3
                            && call(client, {"ZCARD", base + ":failed"}).toInteger() == 1;
                 }),
                 "the worker did not run the requeued job");

        // Retry the failed one and promote the delayed one: the worker takes both.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"), queue,
                           QStringLiteral("--job"), QStringLiteral("failing-1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("promote"), queue,
                           QStringLiteral("--job"), QStringLiteral("delayed-1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(waitFor([&] {
                     // Ran, and recorded as completed (after the processor returns).
                     return call(client, {"LLEN", "ran"}).toInteger() == 5
                            && call(client, {"ZCARD", base + ":completed"}).toInteger() == 5;
                 }),
                 "the worker did not run the retried and promoted jobs");

        // Exactly once each, by the library's own account too.
        QStringList ran;
        const RedisValue ranList = call(client, {"LRANGE", "ran", "0", "-1"});
        for (const RedisValue &v : ranList.elements())
            ran << QString::fromUtf8(v.bytes());
        ran.sort();
        QCOMPARE(ran, (QStringList{"delayed-1", "failing-1", "job-1", "job-2", "job-3"}));
        counts = app.counts();
        QCOMPARE(counts[QStringLiteral("completed")].toInt(), 5);
        for (const char *state : {"active", "waiting", "delayed", "failed", "prioritized"})
            QCOMPARE(counts[QLatin1String(state)].toInt(), 0);

        // Remove is refused while a worker holds the job's lock.
        stopProcess(worker);
        QCOMPARE(app.run(QStringLiteral("produce-one"), QStringLiteral("held-1")), QString());
        hung = app.start(QStringLiteral("hang"), {}, "taken held-1");
        // Its dry run names what each key is to the script: the failed set
        // it passes is not where the job is.
        run = cli(server,
                  {QStringLiteral("--dry-run"), QStringLiteral("queue"), QStringLiteral("remove"),
                   queue, QStringLiteral("--job"), QStringLiteral("held-1")});
        QVERIFY2(
            run.out.contains(QLatin1String("KEYS are: meta hash; wait list; active list"))
                && run.out.contains(QLatin1String("failed (which a removal does not read) zset")),
            qPrintable(run.out + run.err));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("remove"), queue,
                           QStringLiteral("--job"), QStringLiteral("held-1")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("locked")), qPrintable(run.err));
        QCOMPARE(app.run(QStringLiteral("state"), QStringLiteral("held-1")),
                 QStringLiteral("active"));
        stopProcess(hung);

        // Pause and resume, as the library sees them.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("pause"), queue});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(app.run(QStringLiteral("paused")), QStringLiteral("true"));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("resume"), queue});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(app.run(QStringLiteral("paused")), QStringLiteral("false"));

        // Clean: a dry run says how many match now (as the console's
        // confirmation does) and removes nothing; the count, then the removal.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("clean"), queue,
                           QStringLiteral("--state"), QStringLiteral("completed"),
                           QStringLiteral("--older-than"), QStringLiteral("0"),
                           QStringLiteral("--dry-run")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("5 match now; locked ones are left; up to ")),
                 qPrintable(run.out));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("clean"), queue,
                           QStringLiteral("--state"), QStringLiteral("completed"),
                           QStringLiteral("--older-than"), QStringLiteral("3600000"),
                           QStringLiteral("--dry-run")});
        QVERIFY2(run.out.contains(QLatin1String("0 match now")), qPrintable(run.out));
        QCOMPARE(app.counts()[QStringLiteral("completed")].toInt(), 5);
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("clean"), queue,
                           QStringLiteral("--state"), QStringLiteral("completed"),
                           QStringLiteral("--older-than"), QStringLiteral("0"),
                           QStringLiteral("--count-only")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("5 completed jobs would be removed")),
                 qPrintable(run.out));
        QCOMPARE(app.counts()[QStringLiteral("completed")].toInt(), 5);
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("clean"), queue,
                           QStringLiteral("--state"), QStringLiteral("completed"),
                           QStringLiteral("--older-than"), QStringLiteral("0")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("Removed 5 jobs")), qPrintable(run.out));
        QCOMPARE(app.counts()[QStringLiteral("completed")].toInt(), 0);
        QCOMPARE(call(client, {"EXISTS", base + ":job-1"}).toInteger(), 0);

        // Still one queue, nothing mistaken for anything else.
        snap = snapshot(server);
        QCOMPARE(snap[QStringLiteral("queues")].toArray().size(), 1);
        QCOMPARE(others(snap, queue), QStringList());

        // A layout Gatehouse does not know (a future major) is shown as such,
        // and no action writes to it.
        QCOMPARE(app.run(QStringLiteral("produce-one"), QStringLiteral("later-1")), QString());
        call(client, {"HSET", base + ":meta", "version", "bullmq:99.0.0"});
        q = snapshot(server)[QStringLiteral("queues")].toArray().first().toObject();
        QCOMPARE(q[QStringLiteral("library")].toObject()[QStringLiteral("layoutKnown")].toBool(),
                 false);
        QVERIFY2(q[QStringLiteral("message")].toString().contains(QLatin1String("read-only")),
                 qPrintable(q[QStringLiteral("message")].toString()));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("remove"), queue,
                           QStringLiteral("--job"), QStringLiteral("later-1")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("bullmq:99.0.0")), qPrintable(run.err));
        QCOMPARE(call(client, {"EXISTS", base + ":later-1"}).toInteger(), 1);
        qunsetenv("BULL_PREFIX");
    }

    void bull_data() { bullMajors(); }

    // Bull 3/4, the same way: found with its stalled job, none of its keys
    // mistaken for anything else, requeued and retried through the CLI, and
    // run exactly once by a real Bull worker.
    void bull()
    {
        QFETCH(QString, module);
        QFETCH(QString, version);
        QCOMPARE(bullVersion(module).left(2), version); // the major the row names
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        auto run = [&](const QStringList &args) {
            QProcess p;
            p.start(QStringLiteral("node"),
                    QStringList{LibrariesDir + QStringLiteral("/bull-app.js"), module, server.url(),
                                QStringLiteral("emails")}
                        + args);
            p.waitForFinished(60000);
            return p.exitCode() == 0 ? QString::fromUtf8(p.readAllStandardOutput()).trimmed()
                                     : QStringLiteral("<failed: %1>")
                                           .arg(QString::fromUtf8(p.readAllStandardError()));
        };
        QCOMPARE(run({QStringLiteral("produce"), QStringLiteral("3")}), QString());
        auto hung = std::make_unique<QProcess>();
        hung->start(QStringLiteral("node"),
                    {LibrariesDir + QStringLiteral("/bull-app.js"), module, server.url(),
                     QStringLiteral("emails"), QStringLiteral("hang")});
        QVERIFY(waitFor([&] {
            hung->waitForReadyRead(100);
            return hung->readAllStandardOutput().contains("taken job-");
        }));
        stopProcess(hung);
        QVERIFY2(waitFor([&] {
                     return call(client, {"EXISTS", "bull:emails:job-1:lock"}).toInteger() == 0;
                 }),
                 "the dead worker's lock never expired");
        const QJsonObject snap = snapshot(server);
        const QJsonArray queues = snap[QStringLiteral("queues")].toArray();
        QCOMPARE(queues.size(), 1);
        const QJsonObject q = queues.first().toObject();
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("bull"));

        QCOMPARE(q[QStringLiteral("key")].toString(), QStringLiteral("bull:emails"));
        const QJsonObject counts = q[QStringLiteral("counts")].toObject();
        const QJsonObject own
            = QJsonDocument::fromJson(run({QStringLiteral("counts")}).toUtf8()).object();
        QCOMPARE(counts[QStringLiteral("active")].toInt(), own[QStringLiteral("active")].toInt());
        QCOMPARE(counts[QStringLiteral("wait")].toInt(), own[QStringLiteral("waiting")].toInt());
        QCOMPARE(counts[QStringLiteral("active")].toInt(), 1);
        const QJsonArray stuck = q[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.first()[QStringLiteral("job")].toString(), QStringLiteral("job-1"));
        QCOMPARE(others(snap, QStringLiteral("bull:emails")), QStringList());
        CliRun done = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                                   QStringLiteral("bull:emails"), QStringLiteral("--stuck")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err));
        QVERIFY2(done.out.contains(QLatin1String("Requeued 1 stalled job.")), qPrintable(done.out));
        // A queue name with no keys (mistyped): said, not "nothing was stuck".
        const CliRun nope = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                                         QStringLiteral("bull:nope"), QStringLiteral("--stuck")});
        QVERIFY2(nope.exitCode == 3, qPrintable(nope.err + nope.out));
        QVERIFY2(QString(nope.out + nope.err)
                     .contains(QLatin1String("\"bull:nope\" has none of its keys")),
                 qPrintable(nope.err + nope.out));
        QCOMPARE(run({QStringLiteral("produce-failing"), QStringLiteral("1")}), QString());

        auto worker = std::make_unique<QProcess>();
        worker->start(QStringLiteral("node"),
                      {LibrariesDir + QStringLiteral("/bull-app.js"), module, server.url(),
                       QStringLiteral("emails"), QStringLiteral("work"), QStringLiteral("ran")});
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "ran"}).toInteger() == 3
                            && call(client, {"ZCARD", "bull:emails:failed"}).toInteger() == 1;
                 }),
                 "the Bull worker did not run the requeued job");
        done = cli(server,
                   {QStringLiteral("queue"), QStringLiteral("retry"), QStringLiteral("bull:emails"),
                    QStringLiteral("--job"), QStringLiteral("failing-1")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QVERIFY2(waitFor([&] {
                     // Ran, and recorded as completed (after the processor returns).
                     return call(client, {"LLEN", "ran"}).toInteger() == 4
                            && call(client, {"ZCARD", "bull:emails:completed"}).toInteger() == 4;
                 }),
                 "the Bull worker did not run the retried job");
        stopProcess(worker);
        const RedisValue ranList = call(client, {"LRANGE", "ran", "0", "-1"});
        QStringList ran;
        for (const RedisValue &v : ranList.elements())
            ran << QString::fromUtf8(v.bytes());
        ran.sort();
        QCOMPARE(ran, (QStringList{"failing-1", "job-1", "job-2", "job-3"}));
        const QJsonObject after
            = QJsonDocument::fromJson(run({QStringLiteral("counts")}).toUtf8()).object();
        QCOMPARE(after[QStringLiteral("completed")].toInt(), 4);
        for (const char *state : {"active", "waiting", "delayed", "failed"})
            QCOMPARE(after[QLatin1String(state)].toInt(), 0);
        QCOMPARE(others(snapshot(server), QStringLiteral("bull:emails")), QStringList());

        // Its job list and a job's detail, as the Queues page reads them.
        JobBrowser browser(&client);
        QSignalSpy listed(&browser, &JobBrowser::listed);
        QSignalSpy detailed(&browser, &JobBrowser::detailed);
        const PatternObject object = BullUnit::objectForBase("bull:emails");
        QVERIFY(browser.listJobs(object, QStringLiteral("completed"), 0, 50));
        QVERIFY(listed.wait(5000));
        const JobListing page = listed.first().first().value<JobListing>();
        QCOMPARE(page.total, 4);
        QCOMPARE(page.rows.size(), 4);
        QCOMPARE(page.rows.first().name, QStringLiteral("fail-once")); // the last to finish
        QCOMPARE(page.rows.first().attempts, 1);
        QVERIFY(browser.showJob(object, "job-2"));
        QVERIFY(detailed.wait(5000));
        const JobListing detail = detailed.first().first().value<JobListing>();
        QVERIFY2(detail.ok, qPrintable(detail.message));
        QVERIFY2(detail.detail.contains(QLatin1String("\"n\": 2")), qPrintable(detail.detail));
        QVERIFY2(detail.detail.contains(QLatin1String("\"returnvalue\": \"ok\"")),
                 qPrintable(detail.detail));

        // Two prioritised jobs: Bull keeps them in wait and indexes them in
        // its priority set; waiting jobs, counted once, as getJobCounts does.
        QCOMPARE(run({QStringLiteral("produce-priority"), QStringLiteral("2")}), QString());
        const QJsonObject own2
            = QJsonDocument::fromJson(run({QStringLiteral("counts")}).toUtf8()).object();
        const QJsonObject prioritised
            = snapshot(server)[QStringLiteral("queues")][0][QStringLiteral("counts")].toObject();
        QCOMPARE(prioritised[QStringLiteral("wait")].toInt(),
                 own2[QStringLiteral("waiting")].toInt());
        QCOMPARE(prioritised[QStringLiteral("wait")].toInt(), 2);
        QVERIFY2(!prioritised.contains(QLatin1String("priority")),
                 qPrintable(QJsonDocument(prioritised).toJson()));
        QCOMPARE(prioritised[QStringLiteral("prioritised")].toInt(), 2);
        // Not a state of its own in the job browser either.
        QVERIFY(!PatternUnit::of(object.kind).jobStates().contains(QLatin1String("priority")));
    }

    void bullVerbs_data() { bullMajors(); }

    // Bull's other verbs, each done as Bull 4.16.5's own script does
    // (lua/bull/), and checked through Bull's own API (Bull 3 and 4): promote
    // a delayed job and all of them, pause and resume (the queue still found
    // as Bull's while paused), remove refused while a worker holds the job's
    // lock and done once it is gone, clean completed jobs with a count first.
    void bullVerbs()
    {
        QFETCH(QString, module);
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const QStringList appArgs{LibrariesDir + QStringLiteral("/bull-app.js"), module,
                                  server.url(), QStringLiteral("emails")};
        auto run = [&](const QStringList &args) {
            QProcess p;
            p.start(QStringLiteral("node"), appArgs + args);
            p.waitForFinished(60000);
            return p.exitCode() == 0 ? QString::fromUtf8(p.readAllStandardOutput()).trimmed()
                                     : QStringLiteral("<failed: %1>")
                                           .arg(QString::fromUtf8(p.readAllStandardError()));
        };
        auto counts = [&] {
            return QJsonDocument::fromJson(run({QStringLiteral("counts")}).toUtf8()).object();
        };
        auto state = [&](const QString &job) {
            return run({QStringLiteral("state"), job});
        };
        auto queueCli = [&](const QStringList &args) {
            return cli(server, QStringList{QStringLiteral("queue")} + args);
        };
        const QString queue = QStringLiteral("bull:emails");
        QCOMPARE(run({QStringLiteral("produce"), QStringLiteral("2")}), QString());
        QCOMPARE(run({QStringLiteral("produce-delayed"), QStringLiteral("2")}), QString());
        QCOMPARE(counts()[QStringLiteral("delayed")].toInt(), 2);

        // Promote one delayed job, then every one left.
        CliRun done = queueCli({QStringLiteral("promote"), queue, QStringLiteral("--job"),
                                QStringLiteral("delayed-1")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QCOMPARE(state(QStringLiteral("delayed-1")), QStringLiteral("waiting"));
        QCOMPARE(state(QStringLiteral("delayed-2")), QStringLiteral("delayed"));
        done = queueCli({QStringLiteral("promote"), queue, QStringLiteral("--job"),
                         QStringLiteral("delayed-1")});
        QCOMPARE(done.exitCode, 3); // not delayed any more: nothing written
        QVERIFY2(done.err.contains(QLatin1String("not delayed")), qPrintable(done.err));

        // Pause: Bull sees it paused, the snapshot still a Bull queue (Bull's
        // pause writes a "meta" hash, which BullMQ queues have) and paused.
        done = queueCli({QStringLiteral("pause"), queue});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QCOMPARE(run({QStringLiteral("paused")}), QStringLiteral("true"));
        QJsonObject snap = snapshot(server);
        QJsonArray queues = snap[QStringLiteral("queues")].toArray();
        QCOMPARE(queues.size(), 1);
        QJsonObject q = queues.first().toObject();
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("bull"));
        QCOMPARE(q[QStringLiteral("paused")].toBool(), true);
        QCOMPARE(q[QStringLiteral("counts")].toObject()[QStringLiteral("paused")].toInt(), 3);
        QCOMPARE(others(snap, queue), QStringList());
        done = queueCli({QStringLiteral("promote"), queue, QStringLiteral("--all"),
                         QStringLiteral("--dry-run")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QVERIFY2(done.out.contains(QLatin1String("1 match now; up to 100 will be promoted")),
                 qPrintable(done.out));
        QCOMPARE(state(QStringLiteral("delayed-2")), QStringLiteral("delayed"));
        done = queueCli({QStringLiteral("promote"), queue, QStringLiteral("--all")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QVERIFY2(done.out.contains(QLatin1String("Promoted 1 job.")), qPrintable(done.out));
        QCOMPARE(counts()[QStringLiteral("paused")].toInt(), 4); // promoted while paused
        done = queueCli({QStringLiteral("resume"), queue});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QCOMPARE(run({QStringLiteral("paused")}), QStringLiteral("false"));
        QJsonObject own = counts();
        QCOMPARE(own[QStringLiteral("waiting")].toInt(), 4);
        QCOMPARE(own[QStringLiteral("delayed")].toInt(), 0);

        // Remove: refused while a worker holds the job's lock.
        auto hung = std::make_unique<QProcess>();
        hung->start(QStringLiteral("node"), appArgs + QStringList{QStringLiteral("hang")});
        QByteArray out;
        QVERIFY(waitFor([&] {
            hung->waitForReadyRead(100);
            out += hung->readAllStandardOutput();
            return out.contains("taken ");
        }));
        const QString held = QString::fromUtf8(out.mid(out.indexOf("taken ") + 6)).trimmed();
        QVERIFY2(!held.isEmpty(), out.constData());
        done = queueCli({QStringLiteral("remove"), queue, QStringLiteral("--job"), held});
        QCOMPARE(done.exitCode, 3);
        QVERIFY2(done.err.contains(QLatin1String("locked")), qPrintable(done.err));
        QCOMPARE(state(held), QStringLiteral("active"));
        stopProcess(hung);
        QVERIFY2(waitFor([&] {
                     return call(client, {"EXISTS", queue.toUtf8() + ':' + held.toUtf8() + ":lock"})
                                .toInteger()
                            == 0;
                 }),
                 "the dead worker's lock never expired");
        done = queueCli({QStringLiteral("remove"), queue, QStringLiteral("--job"), held});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QCOMPARE(state(held), QStringLiteral("missing"));
        QCOMPARE(counts()[QStringLiteral("active")].toInt(), 0);

        // The rest run once each; clean counts the completed first, then removes them.
        auto worker = std::make_unique<QProcess>();
        worker->start(QStringLiteral("node"),
                      appArgs + QStringList{QStringLiteral("work"), QStringLiteral("ran")});
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "ran"}).toInteger() == 3
                            && call(client, {"ZCARD", "bull:emails:completed"}).toInteger() == 3;
                 }),
                 "the Bull worker did not run the promoted and waiting jobs");
        stopProcess(worker);
        done = queueCli({QStringLiteral("clean"), queue, QStringLiteral("--state"),
                         QStringLiteral("completed"), QStringLiteral("--older-than"),
                         QStringLiteral("3600000"), QStringLiteral("--count-only")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QVERIFY2(done.out.contains(QLatin1String("0 completed jobs would be removed")),
                 qPrintable(done.out));
        done = queueCli({QStringLiteral("clean"), queue, QStringLiteral("--state"),
                         QStringLiteral("completed"), QStringLiteral("--older-than"),
                         QStringLiteral("0"), QStringLiteral("--dry-run")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QVERIFY2(done.out.contains(QLatin1String("3 match now; locked ones are left")),
                 qPrintable(done.out));
        done = queueCli({QStringLiteral("clean"), queue, QStringLiteral("--state"),
                         QStringLiteral("completed"), QStringLiteral("--older-than"),
                         QStringLiteral("0"), QStringLiteral("--count-only")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QVERIFY2(done.out.contains(QLatin1String("3 completed jobs would be removed")),
                 qPrintable(done.out));
        QCOMPARE(counts()[QStringLiteral("completed")].toInt(), 3);
        done = queueCli({QStringLiteral("clean"), queue, QStringLiteral("--state"),
                         QStringLiteral("completed"), QStringLiteral("--older-than"),
                         QStringLiteral("0")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        QVERIFY2(done.out.contains(QLatin1String("Removed 3 jobs")), qPrintable(done.out));
        own = counts();
        for (const char *s : {"active", "waiting", "delayed", "failed", "completed", "paused"})
            QCOMPARE(own[QLatin1String(s)].toInt(), 0);
        QCOMPARE(state(QStringLiteral("delayed-1")), QStringLiteral("missing"));
        QCOMPARE(others(snapshot(server), queue), QStringList());
    }
};

QTEST_GUILESS_MAIN(tst_Libraries)
#include "tst_libraries.moc"
