// SPDX-License-Identifier: MIT
// bee-queue 2.x and 1.x (npm bee-queue and its bee-queue1 alias,
// tests/libraries/package.json), driven for real:
// its own producer and worker (tests/libraries/beequeue-app.js) against a
// private redis-server. A worker is killed with SIGKILL in the middle of a
// job; bee-queue's own stall check (Queue#checkStalledJobs) puts the job
// under watch; once a stall interval passes with no renewal Gatehouse shows it
// stalled with no profile, counts as bee-queue's own checkHealth() does,
// requeues it through the CLI, and a real worker then runs every job exactly
// once. A job that fails is retried, a delayed one removed, each checked
// through bee-queue's own API.
//
// Resemblance: a bee-queue queue is never taken for a Bull queue (with
// bee-queue's own id counter, and with a real Bull queue beside it), and a
// layout with bee-queue's names but a missing or foreign part is shown
// read-only as an unknown layout whose scripts refuse before writing.
#include <monitor/jobbrowser.h>
#include <patterns/bee-queue/beequeueunit.h>
#include <redis/redisclient.h>

#include "librarytest.h"
#include "matchnow.h"
#include "otherlibraries.h"
#include "redisserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
const QString Queue = QStringLiteral("bq:emails");

// One queue of the bee-queue application (tests/libraries/beequeue-app.js).
struct BeeApp
{
    QString url;
    QString queue = QStringLiteral("emails");
    QString module = QStringLiteral("bee-queue"); // or "bee-queue1": 1.x

    QStringList args(const QStringList &command) const
    {
        return QStringList{LibrariesDir + QStringLiteral("/beequeue-app.js"), url, queue} + command;
    }
    void setUp(QProcess &p) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("BEE_QUEUE_MODULE"), module);
        p.setProcessEnvironment(env);
    }
    QString run(const QStringList &command) const
    {
        QProcess p;
        setUp(p);
        p.start(QStringLiteral("node"), args(command));
        if (!p.waitForFinished(60000) || p.exitCode() != 0) {
            qWarning("node beequeue-app.js %s failed: %s", qPrintable(command.join(u' ')),
                     p.readAllStandardError().constData());
            return QStringLiteral("<failed>");
        }
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }
    std::unique_ptr<QProcess> start(const QStringList &command, const QByteArray &want) const
    {
        auto p = std::make_unique<QProcess>();
        setUp(*p);
        p->start(QStringLiteral("node"), args(command));
        QByteArray out;
        gatehouse::test::pollUntil(
            [&] {
                p->waitForReadyRead(100);
                out += p->readAllStandardOutput();
                return out.contains(want) || p->state() == QProcess::NotRunning;
            },
            30000);
        if (!out.contains(want))
            qWarning("node beequeue-app.js %s did not print %s: %s %s",
                     qPrintable(command.join(u' ')), want.constData(), out.constData(),
                     p->readAllStandardError().constData());
        return p;
    }
    // bee-queue's own Queue#checkHealth().
    QJsonObject health() const
    {
        return QJsonDocument::fromJson(run({QStringLiteral("health")}).toUtf8()).object();
    }
};

bool waitFor(const std::function<bool()> &done, int ms = 20000)
{
    return gatehouse::test::pollUntil(done, ms);
}

// The count the console's confirmation shows for a batch verb, read from the
// server as the console reads it.
qint64 matchCount(RedisClient &client, const QString &action, const QString &flag)
{
    const gatehouse::test::MatchNow m = gatehouse::test::matchNow(
        client, BeeQueueUnit::Kind, BeeQueueUnit::objectForBase(Queue.toUtf8()), action,
        {{flag, {}}});
    if (!m.ok)
        qWarning("%s", qPrintable(m.error));
    return m.ok ? m.count : -1;
}

QJsonObject queueOf(const QJsonObject &snapshot, const QString &key)
{
    for (const QJsonValue &q : snapshot[QStringLiteral("queues")].toArray()) {
        if (q[QStringLiteral("key")].toString() == key)
            return q.toObject();
    }
    return {};
}

} // namespace

class tst_LibBeeQueue : public QObject
{
    Q_OBJECT

private:
    // Each test function's own server, and a client of it (init, cleanup).
    std::unique_ptr<RedisServer> m_server;
    std::unique_ptr<RedisClient> m_client;

    CliRun cli(const RedisServer &server, QStringList args)
    {
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, args);
    }
    QJsonObject snapshot(const RedisServer &server)
    {
        return gatehouse::test::snapshotOf(
            cli(server, {QStringLiteral("snapshot"), QStringLiteral("--json")}));
    }
    // Gatehouse's counts under bee-queue's names equal checkHealth()'s.
    static void compareCounts(const QJsonObject &q, const QJsonObject &health)
    {
        const QJsonObject counts = q[QStringLiteral("counts")].toObject();
        QCOMPARE(counts.size(), 5);
        for (const char *state : {"waiting", "active", "succeeded", "failed", "delayed"})
            QCOMPARE(counts[QLatin1String(state)].toInt(-1), health[QLatin1String(state)].toInt());
        QCOMPARE(q[QStringLiteral("newestJob")].toInt(-1),
                 health[QStringLiteral("newestJob")].toInt());
    }

    // Each test with a row per major version: bee-queue 2 and 1
    // (package.json's "bee-queue1" alias).
    static void versions()
    {
        QTest::addColumn<QString>("module");
        QTest::newRow("bee-queue 2") << QStringLiteral("bee-queue");
        QTest::newRow("bee-queue 1") << QStringLiteral("bee-queue1");
    }
    static BeeApp app(const QString &url)
    {
        QFETCH(QString, module);
        BeeApp a{url};
        a.module = module;
        return a;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty(),
                 "node is not installed: run .ci/install-deps");
        for (const auto &[module, major] : {std::pair{"bee-queue", "2."}, {"bee-queue1", "1."}}) {
            QFile f(LibrariesDir + QStringLiteral("/node_modules/%1/package.json").arg(module));
            QVERIFY2(f.open(QIODevice::ReadOnly),
                     qPrintable(QStringLiteral("npm %1 is not installed in tests/libraries: run "
                                               ".ci/install-deps")
                                    .arg(module)));
            const QString version = QJsonDocument::fromJson(f.readAll())
                                        .object()[QStringLiteral("version")]
                                        .toString();
            QVERIFY2(version.startsWith(QLatin1String(major)), qPrintable(version));
            qInfo("%s: bee-queue %s", module, qPrintable(version));
        }
    }

    void init()
    {
        m_server = std::make_unique<RedisServer>();
        QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
        m_client = gatehouse::test::connectedClient(*m_server);
        QVERIFY(m_client);
    }
    void cleanup()
    {
        m_client.reset();
        m_server.reset();
    }

    void stalledJobRequeuedAndRunOnce_data() { versions(); }
    void stalledJobRequeuedAndRunOnce();
    void failedRetriedDelayedRemoved_data() { versions(); }
    void failedRetriedDelayedRemoved();
    void notTakenForBull_data() { versions(); }
    void notTakenForBull();
    void resemblingLayoutReadOnly();
    void largeSucceededSetPagedInSteps();
    void notTakenForOtherLibraries();
    void oldestWaitingAsTheLibraryRecordsIt_data() { versions(); }
    void oldestWaitingAsTheLibraryRecordsIt();
};

// A worker killed mid-job: not stalled until bee-queue's rule says so, then
// requeued by Gatehouse and run once by a real worker.
void tst_LibBeeQueue::stalledJobRequeuedAndRunOnce()
{
    RedisServer &server = *m_server;
    RedisClient &client = *m_client;
    const BeeApp app = tst_LibBeeQueue::app(server.url());
    QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("3")}), QString());
    auto hung = app.start({QStringLiteral("hang")}, "taken job-1");
    hung->kill(); // SIGKILL, in the middle of job-1
    hung->waitForFinished(10000);
    hung.reset();

    // Active, and not under a stall check yet (the worker's own check ran
    // before it took the job): not stalled by bee-queue's rule.
    QVERIFY(waitFor([&] {
        return call(client, {"EXISTS", "bq:emails:stallBlock"}).toInteger() == 0;
    }));
    QJsonObject snap = snapshot(server);
    QJsonObject q = queueOf(snap, Queue);
    QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("bee-queue"));
    QCOMPARE(snap[QStringLiteral("queues")].toArray().size(), 1);
    compareCounts(q, app.health());
    QCOMPARE(q[QStringLiteral("counts")][QStringLiteral("waiting")].toInt(), 2);
    QCOMPARE(q[QStringLiteral("counts")][QStringLiteral("active")].toInt(), 1);
    QCOMPARE(q[QStringLiteral("stuck")].toArray().size(), 0);
    QCOMPARE(gatehouse::test::objectsBesides(snap, Queue), QStringList());

    // bee-queue's own check (here with an 8 s interval) puts job-1 under
    // watch and requeues nothing yet; within the interval it may still be
    // renewed: not stalled, and Gatehouse's requeue refuses it.
    QCOMPARE(app.run({QStringLiteral("check-stalled"), QStringLiteral("8000")}),
             QStringLiteral("0"));
    QCOMPARE(call(client, {"SISMEMBER", "bq:emails:stalling", "job-1"}).toInteger(), 1);
    q = queueOf(snapshot(server), Queue);
    CliRun done = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), Queue,
                               QStringLiteral("--job"), QStringLiteral("job-1")});
    QVERIFY2(call(client, {"EXISTS", "bq:emails:stallBlock"}).toInteger() == 1,
             "the stall check's 8 s passed before the test could look");
    QCOMPARE(q[QStringLiteral("stuck")].toArray().size(), 0);
    QCOMPARE(matchCount(client, QStringLiteral("queue.requeue"), QStringLiteral("stuck")), 0);
    QVERIFY2(done.exitCode != 0, qPrintable(done.out));
    QVERIFY2(done.out.contains(QLatin1String("not stalled yet"))
                 || done.err.contains(QLatin1String("not stalled yet")),
             qPrintable(done.out + done.err));
    QCOMPARE(call(client, {"LLEN", "bq:emails:active"}).toInteger(), 1);

    // A whole interval with no renewal: stalled, as bee-queue's next check
    // would find it.
    QVERIFY(waitFor([&] {
        return call(client, {"EXISTS", "bq:emails:stallBlock"}).toInteger() == 0;
    }));
    snap = snapshot(server);
    q = queueOf(snap, Queue);
    compareCounts(q, app.health());
    const QJsonArray stuck = q[QStringLiteral("stuck")].toArray();
    QCOMPARE(stuck.size(), 1);
    QCOMPARE(stuck.first()[QStringLiteral("job")].toString(), QStringLiteral("job-1"));
    QVERIFY2(stuck.first()[QStringLiteral("reason")].toString().contains(QLatin1String("stalled")),
             qPrintable(stuck.first()[QStringLiteral("reason")].toString()));
    QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
    QCOMPARE(gatehouse::test::objectsBesides(snap, Queue), QStringList());

    QCOMPARE(matchCount(client, QStringLiteral("queue.requeue"), QStringLiteral("stuck")), 1);
    done = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), Queue,
                        QStringLiteral("--stuck")});
    QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
    QVERIFY2(done.out.contains(QLatin1String("Requeued 1 stalled job.")), qPrintable(done.out));
    QJsonObject health = app.health();
    QCOMPARE(health[QStringLiteral("waiting")].toInt(), 3);
    QCOMPARE(health[QStringLiteral("active")].toInt(), 0);
    // bee-queue's own check finds nothing left to requeue.
    QCOMPARE(app.run({QStringLiteral("check-stalled")}), QStringLiteral("0"));

    auto worker = app.start({QStringLiteral("work"), QStringLiteral("ran")}, "working");
    QVERIFY2(waitFor([&] {
                 return call(client, {"SCARD", "bq:emails:succeeded"}).toInteger() == 3;
             }),
             "the bee-queue worker did not run the requeued job");
    gatehouse::test::stopProcess(worker);
    QStringList ran;
    const RedisValue ranList = call(client, {"LRANGE", "ran", "0", "-1"});
    for (const RedisValue &v : ranList.elements())
        ran << QString::fromUtf8(v.bytes());
    ran.sort();
    QCOMPARE(ran, (QStringList{"job-1", "job-2", "job-3"}));
    health = app.health();
    QCOMPARE(health[QStringLiteral("succeeded")].toInt(), 3);
    compareCounts(queueOf(snapshot(server), Queue), health);

    // The job browser's succeeded page and one job's record.
    JobBrowser browser(&client);
    QSignalSpy listed(&browser, &JobBrowser::listed);
    QSignalSpy detailed(&browser, &JobBrowser::detailed);
    const PatternObject object = BeeQueueUnit::objectForBase(Queue.toUtf8());
    QVERIFY(browser.listJobs(object, QStringLiteral("succeeded"), 0, 50));
    QVERIFY(listed.wait(5000));
    const JobListing page = listed.first().first().value<JobListing>();
    QCOMPARE(page.total, 3);
    QCOMPARE(page.rows.size(), 3);
    QCOMPARE(page.rows.first().id, QByteArray("job-1"));
    QVERIFY(page.rows.first().atMs > 0);
    QVERIFY(browser.showJob(object, "job-2"));
    QVERIFY(detailed.wait(5000));
    const JobListing detail = detailed.first().first().value<JobListing>();
    QVERIFY2(detail.ok, qPrintable(detail.message));
    QVERIFY2(detail.detail.contains(QLatin1String("\"succeeded\"")), qPrintable(detail.detail));
    QVERIFY2(detail.detail.contains(QLatin1String("\"n\": 2")), qPrintable(detail.detail));
}

// Retry a failed job (Job#retry) and remove a delayed one
// (Queue#removeJob), through the CLI, checked with bee-queue's own API.
void tst_LibBeeQueue::failedRetriedDelayedRemoved()
{
    RedisServer &server = *m_server;
    RedisClient &client = *m_client;
    const BeeApp app = tst_LibBeeQueue::app(server.url());
    QCOMPARE(app.run({QStringLiteral("produce-failing"), QStringLiteral("1")}), QString());
    QCOMPARE(app.run({QStringLiteral("produce-delayed"), QStringLiteral("1")}), QString());
    auto worker = app.start({QStringLiteral("work"), QStringLiteral("ran")}, "working");
    QVERIFY(waitFor([&] { return call(client, {"SCARD", "bq:emails:failed"}).toInteger() == 1; }));
    QJsonObject q = queueOf(snapshot(server), Queue);
    compareCounts(q, app.health());
    QCOMPARE(q[QStringLiteral("deadLength")].toInt(), 1);
    QCOMPARE(matchCount(client, QStringLiteral("queue.retry"), QStringLiteral("all")), 1);
    QCOMPARE(q[QStringLiteral("counts")][QStringLiteral("delayed")].toInt(), 1);

    // A job that is not failed is not retried.
    CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"), Queue,
                              QStringLiteral("--job"), QStringLiteral("delayed-1")});
    QVERIFY(run.exitCode != 0);
    QCOMPARE(call(client, {"ZCARD", "bq:emails:delayed"}).toInteger(), 1);

    run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"), Queue,
                       QStringLiteral("--job"), QStringLiteral("failing-1")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QVERIFY2(waitFor([&] {
                 return call(client, {"LLEN", "ran"}).toInteger() == 1;
             }),
             "the bee-queue worker did not run the retried job");
    QVERIFY(waitFor([&] {
        return call(client, {"SCARD", "bq:emails:succeeded"}).toInteger() == 1;
    }));
    gatehouse::test::stopProcess(worker);

    run = cli(server, {QStringLiteral("queue"), QStringLiteral("remove"), Queue,
                       QStringLiteral("--job"), QStringLiteral("delayed-1")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(app.run({QStringLiteral("exists"), QStringLiteral("delayed-1")}),
             QStringLiteral("false"));
    const QJsonObject health = app.health();
    QCOMPARE(health[QStringLiteral("delayed")].toInt(), 0);
    QCOMPARE(health[QStringLiteral("failed")].toInt(), 0);
    QCOMPARE(health[QStringLiteral("succeeded")].toInt(), 1);
    compareCounts(queueOf(snapshot(server), Queue), health);

    // Named by a profile rule: the same queue and counts.
    const QString profile = server.dir() + QStringLiteral("/bee.json");
    QFile f(profile);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(R"({"name": "bee", "rules": [{"pattern": "bee-queue", "match": "bq:*"}]})");
    f.close();
    const QJsonObject ruled = gatehouse::test::snapshotOf(
        cli(server, {QStringLiteral("--profile"), profile, QStringLiteral("snapshot"),
                     QStringLiteral("--json")}));
    QCOMPARE(ruled[QStringLiteral("queues")].toArray().size(), 1);
    const QJsonObject byRule = queueOf(ruled, Queue);
    QCOMPARE(byRule[QStringLiteral("pattern")].toString(), QStringLiteral("bee-queue"));
    compareCounts(byRule, health);

    // No such job: refused, nothing written.
    run = cli(server, {QStringLiteral("queue"), QStringLiteral("remove"), Queue,
                       QStringLiteral("--job"), QStringLiteral("nope")});
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.out.contains(QLatin1String("no job")) || run.err.contains(QLatin1String("no job")),
             qPrintable(run.out + run.err));
}

// bee-queue's id counter, active list and delayed set are names Bull uses
// too: with them, and beside a real Bull queue, each is its own library's.
void tst_LibBeeQueue::notTakenForBull()
{
    RedisServer &server = *m_server;
    RedisClient &client = *m_client;
    const BeeApp app = tst_LibBeeQueue::app(server.url());
    QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("2")}), QString());
    QCOMPARE(app.run({QStringLiteral("produce-delayed"), QStringLiteral("1")}), QString());
    // A job with bee-queue's own id counter ("bq:emails:id"), as createJob
    // without setId does.
    QCOMPARE(app.run({QStringLiteral("produce-counted"), QStringLiteral("1")}), QString());
    auto hung = app.start({QStringLiteral("hang")}, "taken job-1");
    hung->kill();
    hung->waitForFinished(10000);
    hung.reset();
    QCOMPARE(call(client, {"GET", "bq:emails:id"}).bytes(), QByteArray("1"));

    QProcess bull;
    bull.start(QStringLiteral("node"),
               {LibrariesDir + QStringLiteral("/bull-app.js"), QStringLiteral("bull"), server.url(),
                QStringLiteral("emails"), QStringLiteral("produce"), QStringLiteral("2")});
    QVERIFY(bull.waitForFinished(60000));
    QCOMPARE(bull.exitCode(), 0);

    const QJsonObject snap = snapshot(server);
    QCOMPARE(snap[QStringLiteral("queues")].toArray().size(), 2);
    const QJsonObject bee = queueOf(snap, Queue);
    QCOMPARE(bee[QStringLiteral("pattern")].toString(), QStringLiteral("bee-queue"));
    compareCounts(bee, app.health());
    QCOMPARE(bee[QStringLiteral("newestJob")].toInt(), 1);
    QCOMPARE(bee[QStringLiteral("counts")][QStringLiteral("waiting")].toInt(), 2);
    const QJsonObject bullQueue = queueOf(snap, QStringLiteral("bull:emails"));
    QCOMPARE(bullQueue[QStringLiteral("pattern")].toString(), QStringLiteral("bull"));
    QCOMPARE(bullQueue[QStringLiteral("counts")][QStringLiteral("wait")].toInt(), 2);
    QStringList others = gatehouse::test::objectsBesides(snap, Queue);
    others.removeAll(QStringLiteral("queues bull:emails"));
    QCOMPARE(others, QStringList());

    // Named on the command line, the base is bee-queue's, not Bull's: its
    // job "1" (a record in the jobs hash, no hash of its own) is removed.
    const CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("remove"), Queue,
                                    QStringLiteral("--job"), QStringLiteral("1")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(app.run({QStringLiteral("exists"), QStringLiteral("1")}), QStringLiteral("false"));
    QCOMPARE(app.health()[QStringLiteral("waiting")].toInt(), 1);
}

// bee-queue's names with a missing or foreign part: shown read-only as an
// unknown layout (its keys listed); the CLI refuses each action before any
// script is sent (each script would refuse it too).
void tst_LibBeeQueue::resemblingLayoutReadOnly()
{
    RedisServer &server = *m_server;
    RedisClient &client = *m_client;
    // Jobs listed with no jobs hash.
    call(client, {"RPUSH", "bq:nohash:waiting", "1", "2"});
    call(client, {"RPUSH", "bq:nohash:active", "3"});
    call(client, {"SADD", "bq:nohash:stalling", "3"});
    // A jobs hash beside a "failed" sorted set (Bull's type, not bee-queue's).
    call(client, {"HSET", "bq:foreign:jobs", "1",
                  "{\"data\":{},\"options\":{},\"status\":"
                  "\"failed\"}"});
    call(client, {"ZADD", "bq:foreign:failed", "1", "1"});
    call(client, {"RPUSH", "bq:foreign:waiting", "2"});

    const QJsonObject snap = snapshot(server);
    for (const QString &key : {QStringLiteral("bq:nohash"), QStringLiteral("bq:foreign")}) {
        const QJsonObject q = queueOf(snap, key);
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("bee-queue"));
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        // Its state says so, not "ok".
        QCOMPARE(q[QStringLiteral("state")][QStringLiteral("id")].toString(),
                 QStringLiteral("unknown-layout"));
        QVERIFY2(q[QStringLiteral("message")].toString().contains(QLatin1String("read-only")),
                 qPrintable(q[QStringLiteral("message")].toString()));
        QVERIFY(!q[QStringLiteral("keys")].toArray().isEmpty());
    }
    QCOMPARE(snap[QStringLiteral("queues")].toArray().size(), 2);

    const QList<QStringList> refused{
        {QStringLiteral("requeue"), QStringLiteral("bq:nohash"), QStringLiteral("--stuck")},
        {QStringLiteral("remove"), QStringLiteral("bq:nohash"), QStringLiteral("--job"),
         QStringLiteral("3")},
        {QStringLiteral("retry"), QStringLiteral("bq:foreign"), QStringLiteral("--all")},
        {QStringLiteral("remove"), QStringLiteral("bq:foreign"), QStringLiteral("--job"),
         QStringLiteral("1")},
    };
    // The CLI reads the target first, as the console does, and refuses with
    // the reading's reason before any script is sent.
    for (const QStringList &args : refused) {
        const CliRun run = cli(server, QStringList{QStringLiteral("queue")} + args);
        QVERIFY2(run.exitCode == 3, qPrintable(args.join(u' ') + run.out + run.err));
        QVERIFY2(run.err.contains(QLatin1String("is not a bee-queue queue layout")),
                 qPrintable(args.join(u' ') + run.err));
    }
    QCOMPARE(call(client, {"LLEN", "bq:nohash:waiting"}).toInteger(), 2);
    QCOMPARE(call(client, {"LLEN", "bq:nohash:active"}).toInteger(), 1);
    QCOMPARE(call(client, {"SCARD", "bq:nohash:stalling"}).toInteger(), 1);
    QCOMPARE(call(client, {"ZCARD", "bq:foreign:failed"}).toInteger(), 1);
    QCOMPARE(call(client, {"HLEN", "bq:foreign:jobs"}).toInteger(), 1);
    QCOMPARE(call(client, {"LLEN", "bq:foreign:waiting"}).toInteger(), 1);
}

// bee-queue keeps every succeeded job id in a plain set unless told
// otherwise: the job browser pages it in bounded SSCAN steps, never with a
// SORT that reads and sorts the whole set in one command, and its pages
// hold every member once.
void tst_LibBeeQueue::largeSucceededSetPagedInSteps()
{
    RedisClient &client = *m_client;
    const int jobs = 2500;
    for (int b = 0; b < jobs; b += 500) {
        QList<QByteArray> add{"SADD", "bq:big:succeeded"};
        for (int i = b + 1; i <= b + 500; ++i)
            add << QByteArray::number(i);
        QCOMPARE(call(client, add).toInteger(), 500);
    }
    // Redis moves a set to a larger table a step per lookup: looked up
    // until it has, every walk below sees one table (one that meets a set
    // mid-move may see a member twice, and counts it once).
    QList<QByteArray> lookup{"SMISMEMBER", "bq:big:succeeded"};
    for (int i = 1; i <= 3 * jobs; ++i)
        lookup << QByteArray::number(i);
    QCOMPARE(call(client, lookup).size(), 3 * jobs);
    call(client, {"CONFIG", "RESETSTAT"});
    JobBrowser browser(&client);
    QSignalSpy listed(&browser, &JobBrowser::listed);
    const PatternObject object = BeeQueueUnit::objectForBase("bq:big");
    QSet<QByteArray> seen;
    for (qint64 offset = 0; offset < jobs; offset += 500) {
        listed.clear();
        QVERIFY(browser.listJobs(object, QStringLiteral("succeeded"), offset, 500));
        QVERIFY(listed.wait(10000));
        const JobListing page = listed.first().first().value<JobListing>();
        QVERIFY2(page.ok, qPrintable(page.message));
        QCOMPARE(page.total, jobs);
        QCOMPARE(page.rows.size(), 500);
        for (qsizetype i = 0; i < page.rows.size(); ++i) {
            seen.insert(page.rows.at(i).id);
            if (i > 0) // in id order within the page
                QVERIFY(page.rows.at(i - 1).id.toInt() < page.rows.at(i).id.toInt());
        }
    }
    QCOMPARE(seen.size(), jobs);
    // The last page is cut where the set ends.
    listed.clear();
    QVERIFY(browser.listJobs(object, QStringLiteral("succeeded"), jobs - 20, 50));
    QVERIFY(listed.wait(10000));
    QCOMPARE(listed.first().first().value<JobListing>().rows.size(), 20);
    const QByteArray stats = call(client, {"INFO", "commandstats"}).bytes();
    QVERIFY2(stats.contains("cmdstat_sscan"), stats.constData());
    QVERIFY2(!stats.contains("cmdstat_sort"), stats.constData());
}

// bee-queue records when a job was created (Job#options.timestamp) and no time
// a worker took it: the queue's oldest waiting age is its oldest waiting
// job's, as the library's own getJob reads that time; 0 once none waits.
void tst_LibBeeQueue::oldestWaitingAsTheLibraryRecordsIt()
{
    const BeeApp bee = app(m_server->url());
    QCOMPARE(bee.run({QStringLiteral("produce"), QStringLiteral("3")}), QString());
    bool ok = false;
    const qint64 created
        = bee.run({QStringLiteral("created"), QStringLiteral("job-1")}).toLongLong(&ok);
    QVERIFY(ok);
    QTest::qWait(1500);

    const QJsonObject snap = snapshot(*m_server);
    const QJsonObject q = queueOf(snap, Queue);
    const qint64 shown
        = q[QStringLiteral("latency")][QStringLiteral("oldestWaitingAgeMs")].toInteger(-2);
    const qint64 want
        = snap[QStringLiteral("server")][QStringLiteral("timeMs")].toInteger() - created;
    QVERIFY2(want >= 1500, qPrintable(QString::number(want)));
    // The snapshot's server time and the reading's differ by the reading's
    // round trips at most.
    QVERIFY2(std::abs(shown - want) <= 1000,
             qPrintable(QStringLiteral("shown %1 ms, job-1 was created %2 ms before the "
                                       "snapshot")
                            .arg(shown)
                            .arg(want)));
    // No wait or run quantiles: bee-queue records neither.
    QCOMPARE(q[QStringLiteral("latency")][QStringLiteral("waitSamples")].toInt(-1), 0);

    auto worker = bee.start({QStringLiteral("work"), QStringLiteral("ran")}, "working");
    QVERIFY(waitFor([&] { return call(*m_client, {"LLEN", "ran"}).toInteger() == 3; }));
    const QJsonObject after = queueOf(snapshot(*m_server), Queue);
    QCOMPARE(after[QStringLiteral("counts")][QStringLiteral("waiting")].toInt(-1), 0);
    QCOMPARE(after[QStringLiteral("latency")][QStringLiteral("oldestWaitingAgeMs")].toInteger(-2),
             0);
    gatehouse::test::stopProcess(worker);
}

// bee-queue's state beside every other library's, some of it under bee-queue's
// prefix: BullMQ under "bq" (its own id counter, wait list and job hashes of
// another queue), node-resque in the namespace "bq", a Celery queue named
// "bq:reports:waiting" (a list named as a bee-queue state). Only bee-queue's
// queue is bee-queue's; each other library's is shown as its own.
void tst_LibBeeQueue::notTakenForOtherLibraries()
{
    gatehouse::test::OtherLibraries libraries(*m_server, *m_client);
    libraries.beeQueue(QStringLiteral("emails"));
    libraries.bullmq(QStringLiteral("bq"), QStringLiteral("images"));
    libraries.resque(QStringLiteral("bq"));
    libraries.celery(QStringLiteral("bq:reports:waiting"));
    libraries.rest();
    QVERIFY2(libraries.failures().isEmpty(), qPrintable(libraries.failures().join(u'\n')));
    QCOMPARE(call(*m_client, {"TYPE", "bq:images:id"}).bytes(), QByteArray("string"));

    const QJsonObject snap = snapshot(*m_server);
    QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("bee-queue")).join(u' '), Queue);
    QCOMPARE(gatehouse::test::notShownAsTheirs(snap, libraries.planted()).join(u'\n'), QString());
}

QTEST_GUILESS_MAIN(tst_LibBeeQueue)
#include "tst_lib_beequeue.moc"
