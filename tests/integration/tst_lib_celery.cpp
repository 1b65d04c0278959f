// SPDX-License-Identifier: MIT
// Celery 5 on a Redis broker (kombu 5's Redis transport), driven for real:
// its own producer and worker (tests/libraries/celery_app.py, Debian's
// python3-celery) against a private redis-server. A worker with acks_late
// takes a task and is killed (SIGKILL) in the middle of it, so its message
// stays in kombu's "unacked" hash; past the visibility timeout Gatehouse
// finds the queue and the stuck message with no profile, requeues it through
// the CLI, and a new real worker runs it: exactly once, nothing left unacked.
//
// kombu restores unacked messages itself at a worker's clean shutdown and,
// past the visibility timeout, when a worker starts polling. Neither happens
// here before Gatehouse acts: the first worker is SIGKILLed (no shutdown
// restore) and no worker runs between the kill and the requeue. The test
// checks, before the second worker starts, that the message already left
// unacked for the queue's list with kombu's "redelivered" flag: it is
// Gatehouse's requeue that recovered it.
#include <monitor/jobbrowser.h>
#include <patterns/celery/celeryunit.h>
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
const QString Python = QStringLiteral("/usr/bin/python3");
// The transport's visibility_timeout in the test (kombu's default is 3600 s).
const QByteArray VisibilitySeconds = "2";

QProcessEnvironment celeryEnv(const RedisServer &server,
                              const QByteArray &visibility = VisibilitySeconds)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("GATEHOUSE_CELERY_URL"),
               QStringLiteral("redis://127.0.0.1:%1/0").arg(server.port()));
    env.insert(QStringLiteral("GATEHOUSE_CELERY_VISIBILITY"), QString::fromLatin1(visibility));
    env.insert(QStringLiteral("PYTHONPATH"), LibrariesDir);
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    return env;
}

// celery_app.py's produce / result, to its end; stdout trimmed.
QString runApp(const RedisServer &server, const QStringList &args,
               const QByteArray &visibility = VisibilitySeconds)
{
    QProcess p;
    p.setProcessEnvironment(celeryEnv(server, visibility));
    p.setWorkingDirectory(LibrariesDir);
    p.start(Python, QStringList{LibrariesDir + QStringLiteral("/celery_app.py")} + args);
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        qWarning("celery_app.py %s failed: %s", qPrintable(args.join(QLatin1Char(' '))),
                 p.readAllStandardError().constData());
        return QStringLiteral("<failed>");
    }
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

// A real Celery worker: one process (solo pool), one message at a time.
std::unique_ptr<QProcess> startWorker(const RedisServer &server, const QString &name,
                                      const QByteArray &visibility = VisibilitySeconds,
                                      const QStringList &extra = {})
{
    auto p = std::make_unique<QProcess>();
    p->setProcessEnvironment(celeryEnv(server, visibility));
    p->setWorkingDirectory(LibrariesDir);
    p->setProcessChannelMode(QProcess::MergedChannels);
    p->setStandardOutputFile(server.dir() + QLatin1Char('/') + name + QStringLiteral(".log"));
    p->start(Python,
             QStringList{QStringLiteral("-m"), QStringLiteral("celery"), QStringLiteral("-A"),
                         QStringLiteral("celery_app"), QStringLiteral("worker"),
                         QStringLiteral("--pool=solo"), QStringLiteral("--loglevel=INFO"),
                         QStringLiteral("--without-mingle"), QStringLiteral("--without-gossip"),
                         QStringLiteral("--hostname=%1@gatehouse-test").arg(name)}
                 + extra);
    return p;
}

QByteArray workerLog(const RedisServer &server, const QString &name)
{
    QFile f(server.dir() + QLatin1Char('/') + name + QStringLiteral(".log"));
    return f.open(QIODevice::ReadOnly) ? f.readAll().right(4000) : QByteArray();
}

void kill9(std::unique_ptr<QProcess> &p)
{
    if (p && p->state() != QProcess::NotRunning) {
        p->kill(); // SIGKILL: no clean shutdown, so kombu restores nothing itself
        p->waitForFinished(10000);
    }
    p.reset();
}

bool waitFor(const std::function<bool()> &done, int ms = 30000)
{
    return gatehouse::test::pollUntil(done, ms);
}

// The server's clock, in seconds (kombu's delivery times are time()).
// A page of a state's messages, or one's detail, as the Queues page reads
// them (JobBrowser over CeleryUnit::jobPage and jobDetail).
JobListing page(RedisClient &client, const QString &state)
{
    JobBrowser browser(&client);
    QSignalSpy listed(&browser, &JobBrowser::listed);
    if (!browser.listJobs(CeleryUnit::objectForQueue("celery"), state, 0, 50) || !listed.wait(5000))
        return {};
    return listed.first().first().value<JobListing>();
}

JobListing detail(RedisClient &client, const QByteArray &ref)
{
    JobBrowser browser(&client);
    QSignalSpy detailed(&browser, &JobBrowser::detailed);
    if (!browser.showJob(CeleryUnit::objectForQueue("celery"), ref) || !detailed.wait(5000))
        return {};
    return detailed.first().first().value<JobListing>();
}

double serverSeconds(RedisClient &client)
{
    const RedisValue t = call(client, {"TIME"});
    return t.size() == 2 ? t.at(0).bytes().toDouble() + t.at(1).bytes().toDouble() / 1e6 : 0;
}

QStringList listOf(RedisClient &client, const QByteArray &key)
{
    QStringList out;
    const RedisValue list = call(client, {"LRANGE", key, "0", "99"}); // outlives the loop
    for (const RedisValue &v : list.elements())
        out << QString::fromUtf8(v.bytes());
    return out;
}

} // namespace

class tst_LibCelery : public QObject
{
    Q_OBJECT

private:
    CliRun cli(const RedisServer &server, QStringList args,
               const QByteArray &visibility = VisibilitySeconds)
    {
        // kombu keeps the visibility timeout in the workers' configuration:
        // without a profile, Gatehouse is told it this way.
        QProcessEnvironment env;
        env.insert(QStringLiteral("GATEHOUSE_CELERY_VISIBILITY_TIMEOUT"),
                   QString::fromLatin1(visibility));
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, args, env);
    }
    QJsonObject snapshot(const RedisServer &server,
                         const QByteArray &visibility = VisibilitySeconds)
    {
        return gatehouse::test::snapshotOf(
            cli(server, {QStringLiteral("snapshot"), QStringLiteral("--json")}, visibility));
    }
    // Every object of the snapshot other than the one queue: none may exist
    // (kombu's bindings, unacked keys and mutex and the result backend's
    // keys are the deployment's, not limiters, locks or tokens).
    static QStringList others(const QJsonObject &snapshot, const QString &queue)
    {
        return gatehouse::test::objectsBesides(snapshot, queue);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(Python), "/usr/bin/python3 is not installed: run .ci/install-deps");
        QProcess p;
        p.start(Python, {QStringLiteral("-c"),
                         QStringLiteral("import celery, kombu, redis; print(celery.__version__, "
                                        "kombu.__version__)")});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0,
                 qPrintable(QStringLiteral("python3-celery (kombu, redis) is not importable by "
                                           "/usr/bin/python3: run .ci/install-deps. %1")
                                .arg(QString::fromUtf8(p.readAllStandardError()))));
        const QString versions = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
        QVERIFY2(versions.startsWith(QLatin1String("5.")), qPrintable(versions));
        qInfo("celery and kombu %s", qPrintable(versions));
    }

    void celery()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const QString queue = QStringLiteral("celery");

        // A worker takes the task and dies in the middle of it (acks_late:
        // the message stays in unacked until the task returns).
        call(client, {"SET", "hold", "1"});
        const QString task = runApp(server, {QStringLiteral("produce"), QStringLiteral("first")});
        QVERIFY2(task.size() == 36, qPrintable(task));
        auto worker = startWorker(server, QStringLiteral("w1"));
        QVERIFY2(waitFor([&] {
                     return call(client, {"GET", "started"}).bytes() == task.toUtf8();
                 }),
                 workerLog(server, QStringLiteral("w1")).constData());
        kill9(worker);
        call(client, {"DEL", "hold"});
        QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 1);
        const QList<RedisValue> index
            = call(client, {"ZRANGE", "unacked_index", "0", "-1", "WITHSCORES"}).elements();
        QCOMPARE(index.size(), 2);
        const QString tag = QString::fromUtf8(index.at(0).bytes());
        const double deliveredS = index.at(1).bytes().toDouble();
        QCOMPARE(call(client, {"LLEN", "celery"}).toInteger(), 0);

        // Not yet past the visibility timeout: --job refuses while its
        // worker may still be running it (asked at once after the kill).
        CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                                  QStringLiteral("--job"), tag});
        const double nowS = serverSeconds(client);
        if (nowS < deliveredS + VisibilitySeconds.toDouble() - 0.5) {
            QCOMPARE(run.exitCode, 3);
            QVERIFY2(run.err.contains(QLatin1String("not past the visibility timeout")),
                     qPrintable(run.err + run.out));
            QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 1);
            qInfo("--job refused %.1f s after delivery, as the timeout had not passed",
                  nowS - deliveredS);
        } else {
            qInfo("--job's early refusal not checked: %.1f s passed since delivery",
                  nowS - deliveredS);
        }

        // Past it: found with no profile: one queue, its library, Celery's
        // names for the counts, the stuck message; nothing else.
        QVERIFY(waitFor([&] {
            return serverSeconds(client) > deliveredS + VisibilitySeconds.toDouble() + 0.2;
        }));
        QJsonObject snap = snapshot(server);
        const QJsonArray queues = snap[QStringLiteral("queues")].toArray();
        QCOMPARE(queues.size(), 1);
        const QJsonObject q = queues.first().toObject();
        QCOMPARE(q[QStringLiteral("key")].toString(), queue);
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("celery"));
        QCOMPARE(q[QStringLiteral("library")].toObject()[QStringLiteral("name")].toString(),
                 QStringLiteral("celery"));
        const QJsonObject counts = q[QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("queued")].toInt(), 0);
        QCOMPARE(counts[QStringLiteral("unacked")].toInt(), 1);
        const QJsonArray stuck = q[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.first()[QStringLiteral("job")].toString(), tag);
        QCOMPARE(qint64(stuck.first()[QStringLiteral("sinceMs")].toDouble()) / 1000,
                 qint64(deliveredS));
        QCOMPARE(others(snap, queue), QStringList());

        // Its message listed unacked, as the Queues page reads it: the task
        // id from its headers, the task's name, delivered when unacked_index
        // says; named by its delivery tag for the actions and the detail.
        JobListing jobs = page(client, QStringLiteral("unacked"));
        QVERIFY2(jobs.ok, qPrintable(jobs.message));
        QCOMPARE(jobs.total, 1);
        QCOMPARE(jobs.rows.size(), 1);
        QCOMPARE(QString::fromUtf8(jobs.rows.first().id), task);
        QCOMPARE(jobs.rows.first().name, QStringLiteral("celery_app.work"));
        QCOMPARE(QString::fromUtf8(jobs.rows.first().ref), tag);
        QCOMPARE(jobs.rows.first().atMs / 1000, qint64(deliveredS));
        JobListing shown = detail(client, jobs.rows.first().ref);
        QVERIFY2(shown.ok, qPrintable(shown.message));
        QVERIFY2(shown.detail.contains(task), qPrintable(shown.detail));
        QCOMPARE(page(client, QStringLiteral("queued")).total, 0);

        // "Requeue all stuck"'s confirmation counts it (past the visibility
        // timeout by the server's clock).
        PatternObject celery = CeleryUnit::objectForQueue("celery");
        celery.params.stuckAfterMs = qint64(VisibilitySeconds.toDouble() * 1000);
        const auto stuckNow = [&] {
            return gatehouse::test::matchNow(client, CeleryUnit::Kind, celery,
                                             QStringLiteral("queue.requeue"),
                                             {{QStringLiteral("stuck"), QByteArray()}});
        };
        gatehouse::test::MatchNow counted = stuckNow();
        QVERIFY2(counted.ok, qPrintable(counted.error));
        QCOMPARE(counted.count, qint64(1));
        QVERIFY2(counted.sentence.startsWith(QLatin1String("1 match now; they are restored 100")),
                 qPrintable(counted.sentence));

        // Requeued through the CLI, before any worker runs: the message left
        // unacked for the queue's list, marked redelivered as kombu does.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                           QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(QLatin1String("Requeued 1 stuck message.")), qPrintable(run.out));
        QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 0);
        QCOMPARE(call(client, {"ZCARD", "unacked_index"}).toInteger(), 0);
        QCOMPARE(call(client, {"LLEN", "celery"}).toInteger(), 1);
        QCOMPARE(stuckNow().count, qint64(0));
        const QJsonObject message
            = QJsonDocument::fromJson(call(client, {"LINDEX", "celery", "0"}).bytes()).object();
        const QJsonObject headers = message[QStringLiteral("headers")].toObject();
        QCOMPARE(headers[QStringLiteral("id")].toString(), task);
        QCOMPARE(headers[QStringLiteral("redelivered")].toBool(), true);
        // Listed queued now, and unacked no more.
        jobs = page(client, QStringLiteral("queued"));
        QCOMPARE(jobs.total, 1);
        QCOMPARE(QString::fromUtf8(jobs.rows.first().id), task);
        QCOMPARE(jobs.rows.first().name, QStringLiteral("celery_app.work"));
        shown = detail(client, jobs.rows.first().ref);
        QVERIFY2(shown.ok, qPrintable(shown.message));
        QVERIFY2(shown.detail.contains(QLatin1String("\"redelivered\": true")),
                 qPrintable(shown.detail));
        QCOMPARE(page(client, QStringLiteral("unacked")).total, 0);
        QCOMPARE(detail(client, tag.toUtf8()).ok, false);
        QCOMPARE(headers[QStringLiteral("timelimit")].toArray().size(), 2); // not re-encoded
        QCOMPARE(message[QStringLiteral("properties")]
                     .toObject()[QStringLiteral("delivery_info")]
                     .toObject()[QStringLiteral("redelivered")]
                     .toBool(),
                 true);
        // Nothing more to do: a second requeue finds nothing.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                           QStringLiteral("--stuck")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(call(client, {"LLEN", "celery"}).toInteger(), 1);

        // A new real worker runs it, exactly once, and acknowledges it.
        worker = startWorker(server, QStringLiteral("w2"));
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "ran"}).toInteger() >= 1;
                 }),
                 workerLog(server, QStringLiteral("w2")).constData());
        QVERIFY(waitFor([&] {
            return runApp(server, {QStringLiteral("result"), task})
                   == QStringLiteral("SUCCESS first");
        }));
        QVERIFY(waitFor([&] { return call(client, {"HLEN", "unacked"}).toInteger() == 0; }));
        // Longer than the visibility timeout: nothing comes back to run again.
        QTest::qWait(int(VisibilitySeconds.toDouble() * 1000) + 1500);
        QCOMPARE(listOf(client, "ran"), QStringList{task});
        QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 0);
        QCOMPARE(call(client, {"LLEN", "celery"}).toInteger(), 0);

        // The result backend's key (a STRING with a TTL) and the worker's
        // bindings are the deployment's: still one queue, nothing else.
        const QByteArray meta = "celery-task-meta-" + task.toUtf8();
        QCOMPARE(call(client, {"TYPE", meta}).bytes(), QByteArray("string"));
        QVERIFY(call(client, {"PTTL", meta}).toInteger() > 0);
        kill9(worker);

        // One message by its delivery tag: a second task, its worker killed.
        call(client, {"SET", "hold", "1"});
        const QString second
            = runApp(server, {QStringLiteral("produce"), QStringLiteral("second")});
        QVERIFY2(second.size() == 36, qPrintable(second));
        worker = startWorker(server, QStringLiteral("w3"));
        QVERIFY2(waitFor([&] {
                     return call(client, {"GET", "started"}).bytes() == second.toUtf8();
                 }),
                 workerLog(server, QStringLiteral("w3")).constData());
        kill9(worker);
        call(client, {"DEL", "hold"});
        const QList<RedisValue> secondIndex
            = call(client, {"ZRANGE", "unacked_index", "0", "-1", "WITHSCORES"}).elements();
        QCOMPARE(secondIndex.size(), 2);
        const QString secondTag = QString::fromUtf8(secondIndex.at(0).bytes());
        const double secondS = secondIndex.at(1).bytes().toDouble();
        QVERIFY(waitFor(
            [&] { return serverSeconds(client) > secondS + VisibilitySeconds.toDouble() + 0.2; }));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                           QStringLiteral("--job"), secondTag});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(QStringLiteral("was put back on queue \"%1\"").arg(queue)),
                 qPrintable(run.out));
        QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 0);
        QCOMPARE(call(client, {"LLEN", "celery"}).toInteger(), 1);
        // Gone from unacked: asking again changes nothing.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                           QStringLiteral("--job"), secondTag});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("is not unacked")), qPrintable(run.err));
        worker = startWorker(server, QStringLiteral("w4"));
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "ran"}).toInteger() >= 2;
                 }),
                 workerLog(server, QStringLiteral("w4")).constData());
        QVERIFY(waitFor([&] {
            return runApp(server, {QStringLiteral("result"), second})
                   == QStringLiteral("SUCCESS second");
        }));
        QVERIFY(waitFor([&] { return call(client, {"HLEN", "unacked"}).toInteger() == 0; }));
        QTest::qWait(int(VisibilitySeconds.toDouble() * 1000) + 1500);
        QCOMPARE(listOf(client, "ran"), (QStringList{task, second}));
        QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 0);
        kill9(worker);

        call(client, {"SET", "unacked_mutex", "held-by-a-test", "EX", "60"});
        snap = snapshot(server);
        QCOMPARE(snap[QStringLiteral("queues")].toArray().size(), 1);
        QCOMPARE(others(snap, queue), QStringList());
        const QJsonObject after = snap[QStringLiteral("queues")].toArray().first().toObject();
        QCOMPARE(after[QStringLiteral("counts")].toObject()[QStringLiteral("unacked")].toInt(), 0);
        QCOMPARE(after[QStringLiteral("stuck")].toArray().size(), 0);
        // While unacked_mutex is held (a kombu worker restoring), Gatehouse
        // leaves unacked alone, as kombu's restore_visible does.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), queue,
                           QStringLiteral("--stuck")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("unacked_mutex")), qPrintable(run.err + run.out));
    }

    // kombu's "unacked" hash is the broker's: each queue counts its own
    // entries by routing key. Two queues, a worker of "celery" only, killed
    // -9 holding a message (kombu's default visibility timeout, 1 h): celery
    // shows it unacked with when kombu will restore it, "reports" none.
    // requeue --stuck explains why it does nothing; --older-than MS is
    // refused unless forced, and forced restores exactly that message.
    void unackedPerQueueAndOlderThan()
    {
        const QByteArray hour = "3600";
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const auto run = [&](QStringList args) {
            return cli(server, args, hour);
        };

        call(client, {"SET", "hold", "1"});
        const QString task
            = runApp(server, {QStringLiteral("produce"), QStringLiteral("held")}, hour);
        QVERIFY2(task.size() == 36, qPrintable(task));
        auto worker = startWorker(server, QStringLiteral("c1"), hour,
                                  {QStringLiteral("-Q"), QStringLiteral("celery")});
        QVERIFY2(waitFor([&] {
                     return call(client, {"GET", "started"}).bytes() == task.toUtf8();
                 }),
                 workerLog(server, QStringLiteral("c1")).constData());
        kill9(worker);
        call(client, {"DEL", "hold"});
        // A second queue no worker consumes, with one message waiting.
        const QString waiting = runApp(
            server, {QStringLiteral("produce"), QStringLiteral("r1"), QStringLiteral("reports")},
            hour);
        QVERIFY2(waiting.size() == 36, qPrintable(waiting));
        QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 1);
        QCOMPARE(call(client, {"LLEN", "reports"}).toInteger(), 1);
        const QList<RedisValue> index
            = call(client, {"ZRANGE", "unacked_index", "0", "-1", "WITHSCORES"}).elements();
        QCOMPARE(index.size(), 2);
        const QString tag = QString::fromUtf8(index.at(0).bytes());
        const double deliveredS = index.at(1).bytes().toDouble();

        const QJsonObject snap = snapshot(server, hour);
        QHash<QString, QJsonObject> byKey;
        for (const QJsonValue &q : snap[QStringLiteral("queues")].toArray())
            byKey.insert(q[QStringLiteral("key")].toString(), q.toObject());
        QVERIFY2(byKey.contains(QStringLiteral("celery"))
                     && byKey.contains(QStringLiteral("reports")),
                 QJsonDocument(snap).toJson().constData());
        const QJsonObject celery = byKey.value(QStringLiteral("celery"));
        const QJsonObject reports = byKey.value(QStringLiteral("reports"));
        QCOMPARE(celery[QStringLiteral("counts")][QStringLiteral("unacked")].toInt(), 1);
        QCOMPARE(reports[QStringLiteral("counts")][QStringLiteral("unacked")].toInt(), 0);
        QCOMPARE(reports[QStringLiteral("counts")][QStringLiteral("queued")].toInt(), 1);
        QCOMPARE(celery[QStringLiteral("unackedByPriority")][QStringLiteral("0")].toInt(), 1);
        QCOMPARE(reports[QStringLiteral("unackedByPriority")][QStringLiteral("0")].toInt(), 0);
        QCOMPARE(celery[QStringLiteral("stuck")].toArray().size(), 0);
        // kombu restores it by itself an hour after its delivery.
        const double restoreAt = celery[QStringLiteral("oldestUnackedRestoreAtMs")].toDouble();
        QVERIFY2(qAbs(restoreAt - (deliveredS + 3600) * 1000) < 2000,
                 qPrintable(QString::number(restoreAt - (deliveredS + 3600) * 1000)));
        const double restoreIn = celery[QStringLiteral("oldestUnackedRestoreInMs")].toDouble();
        QVERIFY2(restoreIn > 3500000 && restoreIn <= 3600000,
                 qPrintable(QString::number(restoreIn)));
        QVERIFY(reports[QStringLiteral("oldestUnackedRestoreInMs")].isNull());
        qInfo("unacked per queue: celery %d, reports %d; kombu restores in %.0f s",
              celery[QStringLiteral("counts")][QStringLiteral("unacked")].toInt(),
              reports[QStringLiteral("counts")][QStringLiteral("unacked")].toInt(),
              restoreIn / 1000);

        // --stuck: nothing is past the timeout; it says what is unacked, for
        // how long, when kombu restores it and how to restore it now.
        CliRun r = run({QStringLiteral("queue"), QStringLiteral("requeue"),
                        QStringLiteral("celery"), QStringLiteral("--stuck")});
        QCOMPARE(r.exitCode, 3);
        const QString said = r.err + r.out;
        QVERIFY2(!said.contains(QLatin1String("Nothing to do; nothing changed.")),
                 qPrintable(said));
        for (const QString &part :
             {QStringLiteral("1 message(s)"), tag, QStringLiteral("kombu puts it back"),
              QStringLiteral("--older-than"), QStringLiteral("--force"),
              QStringLiteral("runs twice")})
            QVERIFY2(said.contains(part), qPrintable(said));
        QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 1);

        // --older-than without --force: refused, with the warning; nothing sent.
        r = run({QStringLiteral("queue"), QStringLiteral("requeue"), QStringLiteral("celery"),
                 QStringLiteral("--older-than"), QStringLiteral("0")});
        QVERIFY(r.exitCode != 0);
        const QString refused = r.err + r.out;
        QVERIFY2(refused.contains(QLatin1String("twice")), qPrintable(refused));
        QVERIFY2(refused.contains(QLatin1String("--force")), qPrintable(refused));
        QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 1);
        QCOMPARE(call(client, {"LLEN", "celery"}).toInteger(), 0);

        QVERIFY(waitFor([&] { return serverSeconds(client) > deliveredS + 1.2; }));
        // Forced: exactly that message back on its queue, gone from unacked
        // and unacked_index, the other queue untouched; audited as forced.
        r = run({QStringLiteral("queue"), QStringLiteral("requeue"), QStringLiteral("celery"),
                 QStringLiteral("--older-than"), QStringLiteral("1000"),
                 QStringLiteral("--force")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QLatin1String("Requeued 1")), qPrintable(r.out));
        QCOMPARE(call(client, {"HLEN", "unacked"}).toInteger(), 0);
        QCOMPARE(call(client, {"ZCARD", "unacked_index"}).toInteger(), 0);
        QCOMPARE(call(client, {"LLEN", "celery"}).toInteger(), 1);
        QCOMPARE(call(client, {"LLEN", "reports"}).toInteger(), 1);
        const QJsonObject message
            = QJsonDocument::fromJson(call(client, {"LINDEX", "celery", "0"}).bytes()).object();
        QCOMPARE(message[QStringLiteral("headers")][QStringLiteral("id")].toString(), task);
        QCOMPARE(message[QStringLiteral("headers")][QStringLiteral("redelivered")].toBool(), true);
        QFile audit(server.dir() + QStringLiteral("/audit.jsonl"));
        QVERIFY(audit.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = audit.readAll().trimmed().split('\n');
        const QJsonObject last = QJsonDocument::fromJson(lines.last()).object();
        QCOMPARE(last[QStringLiteral("force")].toBool(), true);
        QVERIFY2(lines.last().contains("celery_restore"), lines.last().constData());

        // A worker runs it once; nothing is left unacked.
        worker = startWorker(server, QStringLiteral("c2"), hour,
                             {QStringLiteral("-Q"), QStringLiteral("celery")});
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "ran"}).toInteger() >= 1;
                 }),
                 workerLog(server, QStringLiteral("c2")).constData());
        QVERIFY(waitFor([&] { return call(client, {"HLEN", "unacked"}).toInteger() == 0; }));
        kill9(worker);
        QCOMPARE(listOf(client, "ran"), QStringList{task});
        QCOMPARE(call(client, {"LLEN", "reports"}).toInteger(), 1);

        // A message of priority 7 unacked on "reports" (written as kombu's
        // QoS.append writes it): counted on reports, in its priority-6
        // sub-queue (kombu's steps 0, 3, 6, 9), and not on celery.
        const QByteArray entry
            = "[{\"body\": \"W10=\", \"headers\": {\"id\": \"p-7\"}, \"properties\": "
              "{\"delivery_info\": {\"exchange\": \"reports\", \"routing_key\": \"reports\"}, "
              "\"priority\": 7, \"delivery_tag\": \"tag-p7\"}}, \"reports\", \"reports\"]";
        call(client, {"HSET", "unacked", "tag-p7", entry});
        call(client, {"ZADD", "unacked_index", QByteArray::number(qint64(serverSeconds(client))),
                      "tag-p7"});
        QHash<QString, QJsonObject> after;
        for (const QJsonValue &q : snapshot(server, hour)[QStringLiteral("queues")].toArray())
            after.insert(q[QStringLiteral("key")].toString(), q.toObject());
        QCOMPARE(
            after[QStringLiteral("reports")][QStringLiteral("counts")][QStringLiteral("unacked")]
                .toInt(),
            1);
        QCOMPARE(after[QStringLiteral("reports")][QStringLiteral("unackedByPriority")]
                      [QStringLiteral("6")]
                          .toInt(),
                 1);
        QCOMPARE(
            after[QStringLiteral("celery")][QStringLiteral("counts")][QStringLiteral("unacked")]
                .toInt(),
            0);
    }
};

QTEST_GUILESS_MAIN(tst_LibCelery)
#include "tst_lib_celery.moc"
