// SPDX-License-Identifier: MIT
// Resque, both its writers: npm node-resque 9 driven for real
// (tests/libraries/resque-app.js: its own Queue.enqueue/enqueueIn and Worker
// against a private redis-server, a worker killed with SIGKILL in the middle
// of a job), and Ruby Resque 2, which Debian does not package: its state is
// written here with the commands of its own source (resque/resque v2.6.0:
// lib/resque/data_store.rb push_to_queue and the workers:heartbeat HASH,
// lib/resque/worker.rb register_worker and working_on, lib/resque/failure/
// redis.rb save). With no profile, Gatehouse shows one Resque deployment per
// namespace with node-resque's own figures (Queue#length, failedCount,
// timestamps), never a Sidekiq deployment; it requeues a stuck worker's job,
// retries and removes failures, and node-resque then sees every job where it
// should be. Layouts that resemble Resque and are not (Sidekiq's, RQ's, a
// Resque namespace holding a Sidekiq job) are not taken for it. Jobs waiting
// with no live worker listening to their queue read "no worker seen".
#include <monitor/jobbrowser.h>
#include <patterns/resque/resqueunit.h>
#include <redis/redisclient.h>

#include "librarytest.h"
#include "otherlibraries.h"
#include "redisserver.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

// One run of the node-resque driver (tests/libraries/resque-app.js).
struct ResqueApp
{
    QString url;
    QString ns = QStringLiteral("resque");

    QStringList args(const QStringList &command) const
    {
        return QStringList{LibrariesDir + QStringLiteral("/resque-app.js"), url, ns} + command;
    }
    QString run(const QStringList &command) const
    {
        QProcess p;
        p.start(QStringLiteral("node"), args(command));
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit
            || p.exitCode() != 0) {
            qWarning("resque-app.js %s failed: %s", qPrintable(command.join(QLatin1Char(' '))),
                     p.readAllStandardError().constData());
            return QStringLiteral("<failed>");
        }
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }
    std::unique_ptr<QProcess> start(const QStringList &command) const
    {
        auto p = std::make_unique<QProcess>();
        p->start(QStringLiteral("node"), args(command));
        return p;
    }
    // A real worker on queue that takes a job and hangs in it; taken says
    // whether it said so (within 30 s) and still runs.
    std::unique_ptr<QProcess> takeAndHang(const QString &queue, bool *taken) const
    {
        std::unique_ptr<QProcess> p = start({QStringLiteral("hang"), queue});
        bool said = false;
        if (p->waitForStarted(10000)) {
            gatehouse::test::pollUntil(
                [&] {
                    said = said || p->readAllStandardOutput().contains("taken");
                    return said || p->state() == QProcess::NotRunning;
                },
                30000);
        }
        *taken = said && p->state() == QProcess::Running;
        return p;
    }
    QJsonObject counts() const
    {
        return QJsonDocument::fromJson(
                   run({QStringLiteral("counts"), QStringLiteral("mail"), QStringLiteral("sms")})
                       .toUtf8())
            .object();
    }
};

QJsonObject resqueOf(const QJsonObject &snapshot, const QString &key)
{
    for (const QJsonValue &q : snapshot[QStringLiteral("queues")].toArray()) {
        if (q[QStringLiteral("key")].toString() == key)
            return q.toObject();
    }
    return {};
}

QStringList patternsOf(const QJsonObject &snapshot)
{
    QStringList out;
    for (const QJsonValue &q : snapshot[QStringLiteral("queues")].toArray())
        out << q[QStringLiteral("pattern")].toString() + QLatin1Char(' ')
                   + q[QStringLiteral("key")].toString();
    out.sort();
    return out;
}

// A time as Resque's heartbeat! writes it (data_store.rb: the server's time,
// Time#iso8601), seconds ago.
QByteArray heartbeatAt(qint64 secondsAgo)
{
    return QDateTime::currentDateTimeUtc()
               .addSecs(-secondsAgo)
               .toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss"))
               .toUtf8()
           + "+00:00";
}

QString stateOf(const QJsonObject &deployment)
{
    return deployment[QStringLiteral("state")][QStringLiteral("id")].toString();
}

qint64 sizeOf(const QJsonObject &deployment, const QString &queue)
{
    for (const QJsonValue &q : deployment[QStringLiteral("queues")].toArray()) {
        if (q[QStringLiteral("name")].toString() == queue)
            return q[QStringLiteral("size")].toInteger(-1);
    }
    return -1;
}

} // namespace

class tst_LibResque : public QObject
{
    Q_OBJECT

private:
    CliRun cli(const RedisServer &server, QStringList args)
    {
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, args);
    }
    QJsonObject snapshot(const RedisServer &server, const QString &profile = {})
    {
        QStringList args{QStringLiteral("snapshot"), QStringLiteral("--json")};
        if (!profile.isEmpty())
            args = QStringList{QStringLiteral("--profile"), profile} + args;
        return gatehouse::test::snapshotOf(cli(server, args));
    }
    // A profile naming the deployment, with a stuck threshold of ms.
    QString profile(const QTemporaryDir &dir, qint64 stuckAfterMs)
    {
        const QString path = dir.filePath(QStringLiteral("resque.json"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(QJsonDocument(
                    QJsonObject{{QStringLiteral("name"), QStringLiteral("resque")},
                                {QStringLiteral("rules"),
                                 QJsonArray{QJsonObject{
                                     {QStringLiteral("pattern"), QStringLiteral("resque")},
                                     {QStringLiteral("match"), QStringLiteral("resque:queues")},
                                     {QStringLiteral("stuckAfter"), double(stuckAfterMs)}}}}})
                    .toJson());
        return path;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/node-resque")),
                 "npm node-resque is missing: run .ci/install-deps (tests/libraries/package.json)");
    }

    // node-resque's own producer and workers: two queues, failures, delayed
    // jobs; a worker killed mid-job; requeue, retry and remove through the CLI.
    void nodeResque()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        const ResqueApp app{server.url()};
        // The state of the issue: 4+3 queued, 2+1 failed, 2+1 delayed.
        QCOMPARE(app.run({QStringLiteral("produce-failing"), QStringLiteral("mail"),
                          QStringLiteral("2")}),
                 QString());
        QCOMPARE(app.run({QStringLiteral("produce-failing"), QStringLiteral("sms"),
                          QStringLiteral("1")}),
                 QString());
        app.run({QStringLiteral("drain"), QStringLiteral("mail"), QStringLiteral("log")});
        app.run({QStringLiteral("drain"), QStringLiteral("sms"), QStringLiteral("log")});
        app.run({QStringLiteral("produce"), QStringLiteral("mail"), QStringLiteral("4")});
        app.run({QStringLiteral("produce"), QStringLiteral("sms"), QStringLiteral("3")});
        app.run({QStringLiteral("produce-delayed"), QStringLiteral("mail"), QStringLiteral("2")});
        app.run({QStringLiteral("produce-delayed"), QStringLiteral("sms"), QStringLiteral("1")});
        QJsonObject counts = app.counts();
        QCOMPARE(counts[QStringLiteral("failedCount")].toInt(), 3);

        // No profile: one Resque deployment, node-resque's own figures, no
        // Sidekiq deployment, nothing of Resque's shown as anything else.
        QJsonObject snap = snapshot(server);
        QCOMPARE(patternsOf(snap), QStringList{QStringLiteral("resque resque:queues")});
        QCOMPARE(gatehouse::test::objectsBesides(snap, QStringLiteral("resque:queues")),
                 QStringList());
        // Nor offered as a candidate, nor left over: every key is Resque's.
        QCOMPARE(snap[QStringLiteral("candidates")].toArray().size(), 0);
        QCOMPARE(snap[QStringLiteral("other")].toArray().size(), 0);
        QJsonObject d = resqueOf(snap, QStringLiteral("resque:queues"));
        QCOMPARE(d[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        QCOMPARE(sizeOf(d, QStringLiteral("mail")),
                 counts[QStringLiteral("length")][QStringLiteral("mail")].toInteger());
        QCOMPARE(sizeOf(d, QStringLiteral("sms")),
                 counts[QStringLiteral("length")][QStringLiteral("sms")].toInteger());
        const QJsonObject c = d[QStringLiteral("counts")].toObject();
        QCOMPARE(c[QStringLiteral("queued")].toInt(), 7);
        QCOMPARE(c[QStringLiteral("failed")].toInteger(),
                 counts[QStringLiteral("failedCount")].toInteger());
        // node-resque keeps one schedule entry per timestamp (s); its own
        // count of delayed jobs is 3 over at most 3 timestamps.
        QCOMPARE(counts[QStringLiteral("delayed")].toInt(), 3);
        QVERIFY(c[QStringLiteral("delayed timestamps")].toInt() >= 1);
        const QJsonObject delayed = d[QStringLiteral("delayed")].toObject();
        QCOMPARE(delayed[QStringLiteral("timestamps")].toInt(),
                 c[QStringLiteral("delayed timestamps")].toInt());
        const qint64 due = delayed[QStringLiteral("nextDueInMs")].toInteger(-1);
        // node-resque rounds the due time to the nearest second (queue.js
        // enqueueAt: Math.round), so it can be up to 0.5 s past an hour.
        QVERIFY2(due > 3500 * 1000 && due <= 3600 * 1000 + 500, qPrintable(QString::number(due)));
        QCOMPARE(c[QStringLiteral("stat:failed")].toInteger(),
                 counts[QStringLiteral("stats")][QStringLiteral("failed")].toString().toLongLong());
        // A search of the delayed state reads the jobs each due time holds
        // (node-resque's own count: 3), not the due times; each one opens.
        {
            const CliRun found = cli(server, {QStringLiteral("queue"), QStringLiteral("search"),
                                              QStringLiteral("resque:queues"),
                                              QStringLiteral("add"), QStringLiteral("--state"),
                                              QStringLiteral("delayed"), QStringLiteral("--json")});
            QVERIFY2(found.exitCode == 0, qPrintable(found.err + found.out));
            const QJsonObject o = QJsonDocument::fromJson(found.out.toUtf8()).object();
            QCOMPARE(o[QStringLiteral("total")].toInt(), counts[QStringLiteral("delayed")].toInt());
            QCOMPARE(o[QStringLiteral("scanned")].toInt(), 3);
            const QJsonArray hits = o[QStringLiteral("hits")].toArray();
            QCOMPARE(hits.size(), 3);
            for (const QJsonValue &h : hits) {
                QCOMPARE(h[QStringLiteral("name")].toString(), QStringLiteral("add"));
                // Due in about an hour.
                QVERIFY(h[QStringLiteral("atMs")].toInteger()
                        > QDateTime::currentMSecsSinceEpoch() + 3500 * 1000);
            }
            const CliRun job = cli(server, {QStringLiteral("queue"), QStringLiteral("job"),
                                            QStringLiteral("Resque resque"),
                                            hits.first()[QStringLiteral("ref")].toString()});
            QVERIFY2(job.exitCode == 0, qPrintable(job.err + job.out));
            QVERIFY2(job.out.contains(QLatin1String("Delayed job")), qPrintable(job.out));
            QVERIFY2(job.out.contains(QLatin1String("\"class\": \"add\"")), qPrintable(job.out));
        }

        // A real worker takes a mail job and is killed with SIGKILL: it stays
        // registered, working on the job.
        bool taken = false;
        std::unique_ptr<QProcess> hang = app.takeAndHang(QStringLiteral("mail"), &taken);
        QVERIFY(taken);
        hang->kill();
        hang->waitForFinished(10000);
        hang.reset();
        counts = app.counts();
        const QStringList workers = counts[QStringLiteral("workers")].toObject().keys();
        QCOMPARE(workers.size(), 1);
        QCOMPARE(counts[QStringLiteral("length")][QStringLiteral("mail")].toInt(), 3);

        // Without a profile the threshold is 60 s: working, not yet stuck.
        snap = snapshot(server);
        d = resqueOf(snap, QStringLiteral("resque:queues"));
        QCOMPARE(d[QStringLiteral("counts")][QStringLiteral("working")].toInt(), 1);
        QCOMPARE(d[QStringLiteral("stuck")].toArray().size(), 0);
        const QJsonArray shownWorkers = d[QStringLiteral("workers")].toArray();
        QCOMPARE(shownWorkers.size(), 1);
        const QString worker = shownWorkers.first()[QStringLiteral("id")].toString();
        QVERIFY2(worker.startsWith(workers.first()), qPrintable(worker));
        QCOMPARE(
            shownWorkers.first()[QStringLiteral("workingOn")][QStringLiteral("class")].toString(),
            QStringLiteral("add"));
        // A search over every state reads the working job too, from the
        // worker's own record, and the record is what `queue job` shows.
        {
            const CliRun found = cli(server, {QStringLiteral("queue"), QStringLiteral("search"),
                                              QStringLiteral("resque:queues"),
                                              QStringLiteral("add"), QStringLiteral("--state"),
                                              QStringLiteral("working"), QStringLiteral("--json")});
            QVERIFY2(found.exitCode == 0, qPrintable(found.err + found.out));
            const QJsonObject o = QJsonDocument::fromJson(found.out.toUtf8()).object();
            QCOMPARE(o[QStringLiteral("end")].toString(), QStringLiteral("complete"));
            const QJsonArray hits = o[QStringLiteral("hits")].toArray();
            QCOMPARE(hits.size(), 1);
            QCOMPARE(hits.first()[QStringLiteral("id")].toString(), worker);
            QCOMPARE(hits.first()[QStringLiteral("name")].toString(), QStringLiteral("add"));
            QVERIFY(hits.first()[QStringLiteral("ageMs")].toInteger(-1) >= 0);
            const CliRun everyState
                = cli(server, {QStringLiteral("queue"), QStringLiteral("search"),
                               QStringLiteral("resque:queues"), QStringLiteral("add"),
                               QStringLiteral("--json")});
            const QJsonObject all = QJsonDocument::fromJson(everyState.out.toUtf8()).object();
            QCOMPARE(all[QStringLiteral("end")].toString(), QStringLiteral("complete"));
            QStringList states;
            for (const QJsonValue &h : all[QStringLiteral("hits")].toArray())
                states << h[QStringLiteral("state")].toString();
            QVERIFY2(states.contains(QStringLiteral("working"))
                         && states.contains(QStringLiteral("queued")),
                     qPrintable(everyState.err + everyState.out));
            const CliRun job = cli(server, {QStringLiteral("queue"), QStringLiteral("job"),
                                            QStringLiteral("resque:queues"), worker});
            QVERIFY2(job.exitCode == 0, qPrintable(job.err + job.out));
            QVERIFY2(job.out.contains(QLatin1String("\"class\": \"add\"")), qPrintable(job.out));
        }
        // Not stuck yet: the requeue refuses and writes nothing.
        CliRun run
            = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                           QStringLiteral("resque:queues"), QStringLiteral("--job"), worker});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(call(*client, {"LLEN", "resque:queue:mail"}).toInteger(), 3);

        // With a profile of 300 ms it is stuck; the requeue puts its job back.
        QTemporaryDir dir;
        const QString p = profile(dir, 300);
        QTest::qWait(400);
        d = resqueOf(snapshot(server, p), QStringLiteral("resque:queues"));
        QCOMPARE(d[QStringLiteral("stuck")].toArray().size(), 1);
        QCOMPARE(d[QStringLiteral("stuck")].toArray().first()[QStringLiteral("job")].toString(),
                 worker);
        run = cli(server, {QStringLiteral("--profile"), p, QStringLiteral("queue"),
                           QStringLiteral("requeue"), QStringLiteral("resque:queues"),
                           QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        counts = app.counts();
        QCOMPARE(counts[QStringLiteral("length")][QStringLiteral("mail")].toInt(), 4);
        QCOMPARE(counts[QStringLiteral("workers")].toObject().size(), 0);
        QCOMPARE(counts[QStringLiteral("workingOn")].toObject().size(), 0);
        QCOMPARE(counts[QStringLiteral("failedCount")].toInt(), 3);
        QCOMPARE(counts[QStringLiteral("stats")][QStringLiteral("failed")].toString(),
                 QStringLiteral("4"));
        const QByteArray w = "resque:worker:" + worker.toUtf8();
        QCOMPARE(call(*client, {"EXISTS", w, w + ":started"}).toInteger(), 0);

        // Retry failure 0 (a "fail" job of mail): off the failed list, back
        // on its queue as node-resque encodes a job.
        const QJsonArray failed
            = QJsonDocument::fromJson(app.run({QStringLiteral("failed")}).toUtf8()).array();
        QCOMPARE(failed.size(), 3);
        const QString queue0 = failed.first()[QStringLiteral("queue")].toString();
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"),
                           QStringLiteral("resque:queues"), QStringLiteral("--job"),
                           QStringLiteral("0:0000000000000000000000000000000000000000")});
        QCOMPARE(run.exitCode, 3); // the entry shown is not the one at 0: refused
        QCOMPARE(app.counts()[QStringLiteral("failedCount")].toInt(), 3);
        run = cli(server,
                  {QStringLiteral("queue"), QStringLiteral("retry"),
                   QStringLiteral("resque:queues"), QStringLiteral("--job"), QStringLiteral("0")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        counts = app.counts();
        QCOMPARE(counts[QStringLiteral("failedCount")].toInt(), 2);
        const QByteArray last
            = call(*client, {"LINDEX", "resque:queue:" + queue0.toUtf8(), "-1"}).bytes();
        QCOMPARE(last,
                 QByteArray(R"({"class":"fail","queue":")" + queue0.toUtf8() + R"(","args":[1]})"));

        // Remove failure 0: node-resque counts one failure left... two, one.
        run = cli(server,
                  {QStringLiteral("queue"), QStringLiteral("remove"),
                   QStringLiteral("resque:queues"), QStringLiteral("--job"), QStringLiteral("0")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(app.counts()[QStringLiteral("failedCount")].toInt(), 1);

        // A real worker then runs every mail job: each "add" once, the
        // requeued one included (args 1..4 of the first produce).
        app.run({QStringLiteral("drain"), QStringLiteral("mail"), QStringLiteral("ran")});
        QStringList ran;
        const RedisValue log = call(*client, {"LRANGE", "ran", "0", "-1"});
        for (const RedisValue &v : log.elements())
            ran << QString::fromUtf8(v.bytes());
        ran.sort();
        QCOMPARE(ran, (QStringList{"1", "2", "3", "4"}));
        QCOMPARE(app.counts()[QStringLiteral("length")][QStringLiteral("mail")].toInt(), 0);

        // The failed list in the job browser: class, error, worker, failed_at.
        JobBrowser browser(client.get());
        QSignalSpy listed(&browser, &JobBrowser::listed);
        QVERIFY(browser.listJobs(ResqueUnit::objectForKey("resque:queues"),
                                 QStringLiteral("failed"), 0, 50));
        QVERIFY(listed.wait(5000));
        const JobListing page = listed.first().first().value<JobListing>();
        QVERIFY(page.ok);
        QCOMPARE(page.total, app.counts()[QStringLiteral("failedCount")].toInteger());
        QCOMPARE(page.rows.size(), int(page.total));
        QCOMPARE(page.rows.first().name, QStringLiteral("fail"));
        QVERIFY2(page.rows.first().error.contains(QLatin1String("failing on purpose"))
                     && page.rows.first().error.contains(QLatin1String("worker drain-")),
                 qPrintable(page.rows.first().error));
        QVERIFY(page.rows.first().atMs > 0);
    }

    // Ruby Resque 2's layout, written with the commands of its own source.
    void rubyResqueLayout()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        RedisClient &r = *client;
        // data_store.rb push_to_queue: SADD queues, RPUSH queue:<q> {class, args}.
        for (int n = 1; n <= 3; ++n) {
            call(r, {"SADD", "resque:queues", "reports"});
            call(r, {"RPUSH", "resque:queue:reports",
                     R"({"class":"ReportJob","args":[)" + QByteArray::number(n) + "]}"});
        }
        // worker.rb register_worker, heartbeat!, working_on (an hour ago).
        const QByteArray id = "host-1:4242:reports";
        call(r, {"SADD", "resque:workers", id});
        call(r, {"SET", "resque:worker:" + id + ":started", "2026-11-25 00:00:00 +0000"});
        call(r, {"HSET", "resque:workers:heartbeat", id, "2026-11-25T00:00:00+00:00"});
        call(r, {"SET", "resque:worker:" + id,
                 R"({"queue":"reports","run_at":"2000-01-01T00:00:00Z","payload":)"
                 R"({"class":"ReportJob","args":[9,{"a":1}]}})"});
        // failure/redis.rb save.
        call(r, {"RPUSH", "resque:failed",
                 R"({"failed_at":"Tue, 24 Nov 2026 10:00:00 +0000","payload":{"class":)"
                 R"("ReportJob","args":[]},"exception":"RuntimeError","error":"boom",)"
                 R"("backtrace":["a.rb:1"],"worker":"host-1:4242:reports","queue":"reports"})"});
        call(r, {"SET", "resque:stat:processed", "12"});
        call(r, {"SET", "resque:stat:failed", "1"});

        QJsonObject d = resqueOf(snapshot(server), QStringLiteral("resque:queues"));
        QCOMPARE(d[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        const QJsonObject c = d[QStringLiteral("counts")].toObject();
        QCOMPARE(c[QStringLiteral("queued")].toInt(), 3);
        QCOMPARE(c[QStringLiteral("working")].toInt(), 1);
        QCOMPARE(c[QStringLiteral("failed")].toInt(), 1);
        QCOMPARE(c[QStringLiteral("stat:processed")].toInt(), 12);
        QCOMPARE(d[QStringLiteral("stuck")].toArray().size(), 1); // an hour past 60 s

        // Requeue: the job back as Resque encodes one, the worker
        // unregistered as prune_dead_workers does.
        CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                                  QStringLiteral("resque:queues"), QStringLiteral("--job"),
                                  QString::fromUtf8(id)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(r, {"LINDEX", "resque:queue:reports", "-1"}).bytes(),
                 QByteArray(R"({"class":"ReportJob","args":[9,{"a":1}]})"));
        QCOMPARE(call(r, {"SCARD", "resque:workers"}).toInteger(), 0);
        QCOMPARE(call(r, {"HLEN", "resque:workers:heartbeat"}).toInteger(), 0);
        QCOMPARE(call(r, {"EXISTS", "resque:worker:" + id, "resque:worker:" + id + ":started"})
                     .toInteger(),
                 0);
        QCOMPARE(call(r, {"GET", "resque:stat:failed"}).bytes(), QByteArray("2"));

        // Retry the failure: {class, args} with the empty args an array.
        run = cli(server,
                  {QStringLiteral("queue"), QStringLiteral("retry"),
                   QStringLiteral("resque:queues"), QStringLiteral("--job"), QStringLiteral("0")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(r, {"LINDEX", "resque:queue:reports", "-1"}).bytes(),
                 QByteArray(R"({"class":"ReportJob","args":[]})"));
        QCOMPARE(call(r, {"LLEN", "resque:failed"}).toInteger(), 0);
    }

    // A script writes a job back with cjson: what it would not write exactly
    // (17 digits, an empty nested list) is refused and left where it was;
    // what it writes exactly goes back unchanged.
    void argsWrittenBackExactlyOrNotAtAll()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        RedisClient &r = *client;
        call(r, {"SADD", "resque:queues", "reports"});
        call(r, {"RPUSH", "resque:queue:reports", R"({"class":"ReportJob","args":[1]})"});
        const QByteArray failure
            = R"({"failed_at":"Tue, 24 Nov 2026 10:00:00 +0000","payload":{"class":"ReportJob",)"
              R"("args":[12345678901234567,[]]},"exception":"RuntimeError","error":"boom",)"
              R"("worker":"host-1:4242:reports","queue":"reports"})";
        call(r, {"RPUSH", "resque:failed", failure});
        const QByteArray id = "host-1:4243:reports";
        const QByteArray working = R"({"queue":"reports","run_at":"2000-01-01T00:00:00Z",)"
                                   R"("payload":{"class":"ReportJob","args":[[],"x"]}})";
        call(r, {"SADD", "resque:workers", id});
        call(r, {"SET", "resque:worker:" + id, working});

        CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"),
                                  QStringLiteral("resque:queues"), QStringLiteral("--job"),
                                  QStringLiteral("0")});
        QVERIFY2(run.exitCode != 0, qPrintable(run.out));
        QVERIFY2(run.err.contains(QLatin1String("nothing changed")), qPrintable(run.err));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                           QStringLiteral("resque:queues"), QStringLiteral("--job"),
                           QString::fromUtf8(id)});
        QVERIFY2(run.exitCode != 0, qPrintable(run.out));
        QVERIFY2(run.err.contains(QLatin1String("Requeue it with Resque itself")),
                 qPrintable(run.err));
        // Everything where it was.
        QCOMPARE(call(r, {"LLEN", "resque:failed"}).toInteger(), 1);
        QCOMPARE(call(r, {"LINDEX", "resque:failed", "0"}).bytes(), failure);
        QCOMPARE(call(r, {"GET", "resque:worker:" + id}).bytes(), working);
        QCOMPARE(call(r, {"SISMEMBER", "resque:workers", id}).toInteger(), 1);
        QCOMPARE(call(r, {"LLEN", "resque:queue:reports"}).toInteger(), 1);

        // Numbers of up to 14 digits, fractions, nested lists and objects.
        call(r, {"LSET", "resque:failed", "0",
                 R"({"failed_at":"Tue, 24 Nov 2026 10:00:00 +0000","payload":{"class":)"
                 R"("ReportJob","args":[1.5,"x",{"k":[1,2]},1795585335551]},)"
                 R"("exception":"RuntimeError","error":"boom","queue":"reports"})"});
        run = cli(server,
                  {QStringLiteral("queue"), QStringLiteral("retry"),
                   QStringLiteral("resque:queues"), QStringLiteral("--job"), QStringLiteral("0")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(r, {"LINDEX", "resque:queue:reports", "-1"}).bytes(),
                 QByteArray(R"({"class":"ReportJob","args":[1.5,"x",{"k":[1,2]},1795585335551]})"));
        QCOMPARE(call(r, {"LLEN", "resque:failed"}).toInteger(), 0);
    }

    // Jobs wait and no live worker listens to their queue: "no worker
    // seen". node-resque's real workers write no heartbeat: one on another
    // queue does not count, one on the queue might be alive (unknown).
    void nodeResqueNoWorkerSeen()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        const ResqueApp app{server.url()};
        app.run({QStringLiteral("produce"), QStringLiteral("mail"), QStringLiteral("3")});
        // A delayed job makes the namespace Resque's (a part only it writes).
        app.run({QStringLiteral("produce-delayed"), QStringLiteral("mail"), QStringLiteral("1")});
        QJsonObject d = resqueOf(snapshot(server), QStringLiteral("resque:queues"));
        QCOMPARE(d[QStringLiteral("length")].toInt(), 3);
        QCOMPARE(stateOf(d), QStringLiteral("no-worker"));
        QCOMPARE(d[QStringLiteral("state")][QStringLiteral("words")].toString(),
                 QStringLiteral("no worker seen"));
        QCOMPARE(d[QStringLiteral("workersAlive")].toInt(-1), 0);

        // A real worker on sms only: registered, and no help to mail's jobs.
        std::unique_ptr<QProcess> sms = app.start({QStringLiteral("hang"), QStringLiteral("sms")});
        QVERIFY(sms->waitForStarted(10000));
        QVERIFY(gatehouse::test::pollUntil(
            [&] {
                return call(*client, {"SCARD", "resque:workers"}).toInteger() == 1;
            },
            30000));
        d = resqueOf(snapshot(server), QStringLiteral("resque:queues"));
        QCOMPARE(d[QStringLiteral("workers")].toArray().size(), 1);
        QCOMPARE(stateOf(d), QStringLiteral("no-worker"));
        QCOMPARE(d[QStringLiteral("workersAlive")].toInt(-1), 0);

        // A real worker on mail takes a job; two wait. node-resque keeps no
        // workers:heartbeat entry: alive or not is unknown, never "no worker".
        bool taken = false;
        std::unique_ptr<QProcess> mail = app.takeAndHang(QStringLiteral("mail"), &taken);
        QVERIFY(taken);
        d = resqueOf(snapshot(server), QStringLiteral("resque:queues"));
        QCOMPARE(d[QStringLiteral("length")].toInt(), 2);
        QCOMPARE(d[QStringLiteral("workers")].toArray().size(), 2);
        QCOMPARE(call(*client, {"EXISTS", "resque:workers:heartbeat"}).toInteger(), 0);
        QVERIFY(d[QStringLiteral("workersAlive")].isNull());
        QCOMPARE(stateOf(d), QStringLiteral("ok"));
        gatehouse::test::stopProcess(mail);
        gatehouse::test::stopProcess(sms);
    }

    // Ruby Resque 2's heartbeats, written with the commands of its source
    // (data_store.rb heartbeat!, worker.rb register_worker): alive within
    // Resque.prune_interval (300 s), only for the queues its id names.
    void rubyResqueHeartbeats()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        RedisClient &r = *client;
        call(r, {"SADD", "resque:queues", "reports"});
        call(r, {"RPUSH", "resque:queue:reports", "{\"class\":\"ReportJob\",\"args\":[1]}"});
        call(r, {"RPUSH", "resque:queue:reports", "{\"class\":\"ReportJob\",\"args\":[2]}"});
        const auto beating = [&](const QByteArray &id, qint64 secondsAgo) {
            call(r, {"HSET", "resque:workers:heartbeat", id, heartbeatAt(secondsAgo)});
            call(r, {"SADD", "resque:workers", id});
            call(r, {"SET", "resque:worker:" + id + ":started", heartbeatAt(secondsAgo)});
        };
        const auto gone = [&](const QByteArray &id) {
            call(r, {"SREM", "resque:workers", id});
            call(r, {"HDEL", "resque:workers:heartbeat", id});
            call(r, {"DEL", "resque:worker:" + id + ":started"});
        };
        // A live worker of another queue, and one of reports whose last
        // heartbeat is 6 min old (prune_dead_workers would unregister it).
        beating("host-1:100:mail", 0);
        beating("host-1:101:reports", 360);
        QJsonObject d = resqueOf(snapshot(server), QStringLiteral("resque:queues"));
        QCOMPARE(d[QStringLiteral("workers")].toArray().size(), 2);
        QCOMPARE(d[QStringLiteral("workersAlive")].toInt(-1), 0);
        QCOMPARE(stateOf(d), QStringLiteral("no-worker"));

        // Alive on reports: "*" (every queue), or a glob among its queues.
        for (const QByteArray &id : {QByteArray("host-2:102:*"), QByteArray("host-2:103:mail,rep*"),
                                     QByteArray("host-2:104:reports")}) {
            beating(id, 30);
            d = resqueOf(snapshot(server), QStringLiteral("resque:queues"));
            QVERIFY2(d[QStringLiteral("workersAlive")].toInt(-1) == 1, id.constData());
            QVERIFY2(stateOf(d) == QLatin1String("ok"), id.constData());
            gone(id);
        }
        // A worker of reports with no heartbeat (Resque 1): unknown.
        call(r, {"SADD", "resque:workers", "host-3:105:reports"});
        d = resqueOf(snapshot(server), QStringLiteral("resque:queues"));
        QVERIFY(d[QStringLiteral("workersAlive")].isNull());
        QCOMPARE(stateOf(d), QStringLiteral("ok"));
        // No job waiting: nothing at risk, whatever the workers.
        call(r, {"SREM", "resque:workers", "host-3:105:reports"});
        call(r, {"DEL", "resque:queue:reports"});
        d = resqueOf(snapshot(server), QStringLiteral("resque:queues"));
        QCOMPARE(d[QStringLiteral("workersAlive")].toInt(-1), 1); // host-1:100:mail
        QCOMPARE(stateOf(d), QStringLiteral("ok"));
    }

    // What resembles Resque and is not, and Resque as others see it.
    void resemblance()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        RedisClient &r = *client;
        // Sidekiq 6's keys (api.rb, client.rb, launcher.rb): jobs with a jid,
        // retry and schedule sets, processes, stats.
        call(r, {"SADD", "queues", "default"});
        call(r, {"LPUSH", "queue:default",
                 R"({"class":"HardJob","args":[1],"jid":"b4a577edbccf1d805744efa9","retry":true,)"
                 R"("queue":"default","enqueued_at":1764000000.0})"});
        call(r, {"ZADD", "retry", "1764000000", R"({"class":"HardJob","jid":"x1","args":[]})"});
        call(r, {"SET", "stat:processed", "5"});
        // RQ's (rq/queue.py, worker_registration.py): its queues and workers
        // sets beside a queue of job ids.
        call(r, {"SADD", "rq:queues", "rq:queue:emails"});
        call(r, {"RPUSH", "rq:queue:emails", "3f1c0a"});
        call(r, {"HSET", "rq:job:3f1c0a", "origin", "emails", "status", "queued"});
        call(r, {"SADD", "rq:workers", "rq:worker:w1"});
        call(r, {"HSET", "rq:worker:w1", "last_heartbeat", "2026-11-25T00:00:00Z"});
        // A namespace of Resque's shape (queues, failed list) whose queue
        // holds a Sidekiq job: unknown, read-only, and the retry of its
        // failure (a payload with a jid) is refused.
        call(r, {"SADD", "odd:queues", "q"});
        call(r, {"RPUSH", "odd:queue:q", R"({"class":"X","args":[],"jid":"abc"})"});
        call(r, {"RPUSH", "odd:failed",
                 R"({"payload":{"class":"X","args":[],"jid":"abc"},"queue":"q","error":"e"})"});
        // Resque's queues and queue lists with no part only Resque writes:
        // not Resque; Sidekiq's shape, shown read-only (its job has no jid).
        call(r, {"SADD", "bare:queues", "q"});
        call(r, {"RPUSH", "bare:queue:q", R"({"class":"X","args":[]})"});

        const QJsonObject snap = snapshot(server);
        QCOMPARE(patternsOf(snap), (QStringList{"resque odd:queues", "rq rq:queue:emails",
                                                "sidekiq bare:queues", "sidekiq queues"}));
        const QJsonObject odd = resqueOf(snap, QStringLiteral("odd:queues"));
        QCOMPARE(odd[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        QVERIFY2(odd[QStringLiteral("message")].toString().contains(QLatin1String("read-only")),
                 qPrintable(odd[QStringLiteral("message")].toString()));
        QVERIFY(odd[QStringLiteral("keys")].toArray().contains(QStringLiteral("odd:failed")));
        CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"),
                                  QStringLiteral("odd:queues"), QStringLiteral("--job"),
                                  QStringLiteral("0")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(call(r, {"LLEN", "odd:failed"}).toInteger(), 1);
        QCOMPARE(call(r, {"LLEN", "odd:queue:q"}).toInteger(), 1);
        const QJsonObject bare = resqueOf(snap, QStringLiteral("bare:queues"));
        QCOMPARE(bare[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        const QJsonObject sidekiq = resqueOf(snap, QStringLiteral("queues"));
        QCOMPARE(sidekiq[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
    }

    // node-resque's state beside every other library's, some of it in
    // Resque's own shape or namespace: Sidekiq's "queues" set and
    // "queue:default" list (Resque's layout without a namespace), BullMQ
    // under the prefix "resque", a Celery queue named "resque:queue:reports"
    // (a list named as a Resque queue that resque:queues does not list).
    // Only the namespace's deployment is Resque's; each other library's is
    // shown as its own.
    void notTakenForOtherLibraries()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        gatehouse::test::OtherLibraries libraries(server, *c);
        libraries.resque(QStringLiteral("resque"));
        libraries.bullmq(QStringLiteral("resque"), QStringLiteral("mail"));
        libraries.celery(QStringLiteral("resque:queue:reports"));
        libraries.rest();
        QVERIFY2(libraries.failures().isEmpty(), qPrintable(libraries.failures().join(u'\n')));
        QCOMPARE(call(*c, {"TYPE", "resque:queue:reports"}).bytes(), QByteArray("list"));
        QCOMPARE(call(*c, {"TYPE", "queue:default"}).bytes(), QByteArray("list"));

        const QJsonObject snap = snapshot(server);
        QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("resque")).join(u' '),
                 QStringLiteral("resque:queues"));
        QCOMPARE(gatehouse::test::notShownAsTheirs(snap, libraries.planted()).join(u'\n'),
                 QString());
    }
};

QTEST_GUILESS_MAIN(tst_LibResque)
#include "tst_lib_resque.moc"
