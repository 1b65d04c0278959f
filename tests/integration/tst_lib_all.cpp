// SPDX-License-Identifier: MIT
// Every library at once, on one server, with the seed patterns beside them:
// the keyspace an operator meets on a real deployment. BullMQ 6 and 5 (the
// latter under a Cluster hash-tag prefix), Bull 4 under BullMQ's own default
// prefix, Sidekiq, Celery, RQ, bee-queue, node-resque, Laravel's Redis queue
// and Symfony Messenger's Redis transport, each driven by its own producer
// and a real worker (tests/libraries/); asynq, Dramatiq and Laravel Horizon
// written as their own code writes them; a stream read by consumer groups;
// Redisson's locks, semaphores and delayed queue built by Redisson's own Lua;
// Python limits' windows and a redis-semaphore holder, then `gatehouse-cli
// simulate` for the seeds (Redisson's rate limiter among them). One
// snapshot with no profile must show every library object under its
// pattern and library with the library's own counts, every seed object
// under its pattern, and nothing else: no stats counter, job hash, result,
// binding, registry, worker, delay or timeout key of any library, nor an
// event stream without a group, shown as a limiter, lock, token or queue of
// its own.
#include <redis/redisclient.h>

#include "libplanting.h"
#include "librarytest.h"
#include "phpapp.h"
#include "redisserver.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::PhpApp;
using gatehouse::test::plantHorizon;
using gatehouse::test::plantRedisson;
using gatehouse::test::RedisServer;
using gatehouse::test::streamCounts;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
const QString Python = QStringLiteral("/usr/bin/python3"); // Debian's, with celery and rq

// One program of tests/libraries/: a command run to its end, or a worker.
struct Program
{
    QString program;
    QStringList leading; // script and fixed arguments
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();

    QString run(const QStringList &args) const
    {
        QProcess p;
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(LibrariesDir);
        p.start(program, leading + args);
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit
            || p.exitCode() != 0) {
            qWarning("%s %s failed: %s", qPrintable(leading.value(0)),
                     qPrintable(args.join(QLatin1Char(' '))), p.readAllStandardError().constData());
            return QStringLiteral("<failed>");
        }
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }
    QJsonObject json(const QStringList &args) const
    {
        return QJsonDocument::fromJson(run(args).toUtf8()).object();
    }
    // A worker, its output in LOG (read when a test fails).
    std::unique_ptr<QProcess> start(const QStringList &args, const QString &log) const
    {
        auto p = std::make_unique<QProcess>();
        p->setProcessEnvironment(env);
        p->setWorkingDirectory(LibrariesDir);
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->setStandardOutputFile(log);
        p->start(program, leading + args);
        return p;
    }
};

void stop(std::unique_ptr<QProcess> &p)
{
    if (p && p->state() != QProcess::NotRunning) {
        p->terminate(); // a clean shutdown: nothing left in flight
        if (!p->waitForFinished(15000)) {
            p->kill();
            p->waitForFinished(10000);
        }
    }
    p.reset();
}

bool waitFor(const std::function<bool()> &done, int ms = 60000)
{
    return gatehouse::test::pollUntil(done, ms);
}

QByteArray tail(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().right(3000) : QByteArray();
}

} // namespace

class tst_LibAll : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;

    CliRun cli(QStringList args)
    {
        args.prepend(m_server.url());
        args.prepend(QStringLiteral("--url"));
        QProcessEnvironment env;
        env.insert(QStringLiteral("GATEHOUSE_AUDIT_LOG"), m_server.dir() + "/audit.jsonl");
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, env, 120000);
    }
    qint64 integer(const QList<QByteArray> &command)
    {
        return call(*m_client, command).toInteger();
    }
    QString log(const char *name) const
    {
        return m_server.dir() + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".log");
    }

    Program node(const QString &script) const
    {
        return {QStringLiteral("node"), {LibrariesDir + QLatin1Char('/') + script}};
    }
    Program python(const QString &script, const QProcessEnvironment &extra = {}) const
    {
        Program p{Python, {}};
        if (!script.isEmpty())
            p.leading << LibrariesDir + QLatin1Char('/') + script;
        p.env.insert(QStringLiteral("PYTHONPATH"), LibrariesDir);
        p.env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
        for (const QString &k : extra.keys())
            p.env.insert(k, extra.value(k));
        return p;
    }

    using Planted = gatehouse::test::LibraryObject; // with the library's own counts
    QList<Planted> m_planted;
    QJsonObject m_census;            // simulate's account of the seed objects
    qint64 m_horizonSupervisors = 0; // in Horizon's "supervisors", all beating

private slots:
    void initTestCase()
    {
        QVERIFY2(
            !QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty()
                && QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json"))
                && QFile::exists(LibrariesDir
                                 + QStringLiteral("/node_modules/bullmq5/package.json"))
                && QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bull/package.json"))
                && QFile::exists(LibrariesDir
                                 + QStringLiteral("/node_modules/node-resque/package.json"))
                && QFile::exists(QStringLiteral("/usr/bin/sidekiq")) && QFile::exists(Python)
                && QFile::exists(PhpApp::php())
                && QFile::exists(QStringLiteral("/usr/share/php/Illuminate/Queue/RedisQueue.php"))
                && QFile::exists(QStringLiteral("/usr/share/php/Symfony/Component/Messenger/"
                                                "Bridge/Redis/Transport/Connection.php"))
                && QFile::exists(LibrariesDir + QStringLiteral("/redisson/rlock_trylock.lua")),
            "node, the npm packages or a Debian library package is missing: run "
            ".ci/install-deps");
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
    }

    // BullMQ 6 under "bull", BullMQ 5 under "{b5}", Bull 4 under "bull" too.
    void bullmq()
    {
        const QString url = m_server.url();
        Program mq = node(QStringLiteral("bullmq-app.js"));
        mq.leading << QStringLiteral("bullmq") << url << QStringLiteral("mail");
        mq.env.insert(QStringLiteral("BULL_PREFIX"), QStringLiteral("bull"));
        QCOMPARE(mq.run({QStringLiteral("produce"), QStringLiteral("4")}), QString());
        QCOMPARE(mq.run({QStringLiteral("produce-failing"), QStringLiteral("1")}), QString());
        auto worker
            = mq.start({QStringLiteral("work"), QStringLiteral("bullmq-ran")}, log("bullmq"));
        QVERIFY2(waitFor([&] {
                     return integer({"ZCARD", "bull:mail:completed"}) == 4
                            && integer({"ZCARD", "bull:mail:failed"}) == 1;
                 }),
                 tail(log("bullmq")).constData());
        stop(worker);
        QCOMPARE(mq.run({QStringLiteral("produce-delayed"), QStringLiteral("2")}), QString());
        // Added after the worker left: these wait.
        QCOMPARE(mq.run({QStringLiteral("produce-one"), QStringLiteral("late-1")}), QString());
        m_planted.append({QStringLiteral("bull:mail"), QStringLiteral("bullmq"),
                          mq.json({QStringLiteral("counts")})});

        Program mq5 = node(QStringLiteral("bullmq-app.js"));
        mq5.leading << QStringLiteral("bullmq5") << url << QStringLiteral("reports");
        mq5.env.insert(QStringLiteral("BULL_PREFIX"), QStringLiteral("{b5}"));
        QCOMPARE(mq5.run({QStringLiteral("produce"), QStringLiteral("3")}), QString());
        m_planted.append({QStringLiteral("{b5}:reports"), QStringLiteral("bullmq"),
                          mq5.json({QStringLiteral("counts")})});
    }

    void bull()
    {
        Program bull = node(QStringLiteral("bull-app.js"));
        bull.leading << QStringLiteral("bull") << m_server.url() << QStringLiteral("images");
        QCOMPARE(bull.run({QStringLiteral("produce"), QStringLiteral("3")}), QString());
        QCOMPARE(bull.run({QStringLiteral("produce-failing"), QStringLiteral("1")}), QString());
        auto worker = bull.start({QStringLiteral("work"), QStringLiteral("bull-ran")}, log("bull"));
        QVERIFY2(waitFor([&] {
                     return integer({"ZCARD", "bull:images:completed"}) == 3
                            && integer({"ZCARD", "bull:images:failed"}) == 1;
                 }),
                 tail(log("bull")).constData());
        stop(worker);
        QCOMPARE(bull.run({QStringLiteral("produce"), QStringLiteral("5")}), QString()); // 4, 5 new
        m_planted.append({QStringLiteral("bull:images"), QStringLiteral("bull"),
                          bull.json({QStringLiteral("counts")})});
    }

    void sidekiq()
    {
        Program app{QStringLiteral("/usr/bin/ruby"),
                    {LibrariesDir + QStringLiteral("/sidekiq_app.rb"), m_server.url()}};
        // One job fails once (and waits an hour in the retry set), one runs.
        QCOMPARE(app.run({QStringLiteral("push"), QStringLiteral("FailOnceJob"),
                          QStringLiteral("retried")})
                     .size(),
                 24);
        QCOMPARE(app.run({QStringLiteral("push"), QStringLiteral("HangJob"), QStringLiteral("ran")})
                     .size(),
                 24);
        Program worker{QStringLiteral("/usr/bin/sidekiq"),
                       {QStringLiteral("-r"), LibrariesDir + QStringLiteral("/sidekiq_app.rb"),
                        QStringLiteral("-c"), QStringLiteral("1")}};
        worker.env.insert(QStringLiteral("REDIS_URL"), m_server.url());
        auto process = worker.start({}, log("sidekiq"));
        QVERIFY2(waitFor([&] {
                     return integer({"ZCARD", "retry"}) == 1
                            && integer({"LLEN", "queue:default"}) == 0
                            && integer({"GET", "stat:processed"}) == 2;
                 }),
                 tail(log("sidekiq")).constData());
        stop(process); // a clean stop: the process leaves `processes`
        for (const char *tag : {"waiting-1", "waiting-2"})
            QCOMPARE(
                app.run({QStringLiteral("push"), QStringLiteral("HangJob"), QLatin1String(tag)})
                    .size(),
                24);
        const QJsonObject stats = app.json({QStringLiteral("stats")});
        // Sidekiq::Stats in the library's state names (busy: no process runs).
        m_planted.append(
            {QStringLiteral("queues"), QStringLiteral("sidekiq"),
             QJsonObject{{QStringLiteral("enqueued"), stats[QStringLiteral("enqueued")]},
                         {QStringLiteral("scheduled"), stats[QStringLiteral("scheduled")]},
                         {QStringLiteral("retry"), stats[QStringLiteral("retry")]},
                         {QStringLiteral("dead"), stats[QStringLiteral("dead")]},
                         {QStringLiteral("busy"), 0}}});
    }

    void celery()
    {
        QProcessEnvironment env;
        env.insert(QStringLiteral("GATEHOUSE_CELERY_URL"),
                   QStringLiteral("redis://127.0.0.1:%1/0").arg(m_server.port()));
        env.insert(QStringLiteral("GATEHOUSE_CELERY_VISIBILITY"), QStringLiteral("3600"));
        const Program app = python(QStringLiteral("celery_app.py"), env);
        // One task runs on a real worker (its result stays, with a TTL: not a token).
        const QString done = app.run({QStringLiteral("produce"), QStringLiteral("done")});
        QCOMPARE(done.size(), 36);
        Program worker = python({}, env);
        worker.leading << QStringLiteral("-m") << QStringLiteral("celery") << QStringLiteral("-A")
                       << QStringLiteral("celery_app") << QStringLiteral("worker")
                       << QStringLiteral("--pool=solo") << QStringLiteral("--without-mingle")
                       << QStringLiteral("--without-gossip")
                       << QStringLiteral("--hostname=all@gatehouse-test");
        auto process = worker.start({}, log("celery"));
        QVERIFY2(waitFor([&] {
                     return app.run({QStringLiteral("result"), done})
                         .startsWith(QLatin1String("SUCCESS"));
                 }),
                 tail(log("celery")).constData());
        stop(process);
        for (int i = 0; i < 2; ++i)
            QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("waiting")}).size(), 36);
        // kombu's own view is the list and the unacked hash.
        m_planted.append({QStringLiteral("celery"), QStringLiteral("celery"),
                          QJsonObject{{QStringLiteral("queued"), integer({"LLEN", "celery"})},
                                      {QStringLiteral("unacked"), integer({"HLEN", "unacked"})}}});
        QCOMPARE(m_planted.last().counts[QStringLiteral("queued")].toInt(), 2);
    }

    void rq()
    {
        Program app = python(QStringLiteral("rq_app.py"));
        app.leading << m_server.url() << QStringLiteral("reports");
        for (const char *id : {"r-1", "r-2"})
            QCOMPARE(app.run({QStringLiteral("produce"), QLatin1String(id)}), QString());
        QCOMPARE(app.run({QStringLiteral("produce-failing"), QStringLiteral("r-fail")}), QString());
        QVERIFY(app.run({QStringLiteral("work")}).startsWith(QLatin1String("working"))); // burst
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("r-3")}), QString());
        QJsonObject counts = app.json({QStringLiteral("counts")});
        QCOMPARE(counts[QStringLiteral("finished")].toInt(), 2);
        QCOMPARE(counts[QStringLiteral("failed")].toInt(), 1);
        for (const char *lists : {"finishedIds", "canceledIds", "queuedIds"})
            counts.remove(QLatin1String(lists));
        m_planted.append({QStringLiteral("rq:queue:reports"), QStringLiteral("rq"), counts});
    }

    // asynq and Dramatiq cannot be installed here: their state is written as
    // their own scripts write it (tst_lib_asynq and tst_lib_dramatiq cite the
    // sources): an asynq queue with a task active under a live lease, a
    // retried one and a pending one; a Dramatiq queue with a message fetched
    // by a live worker, one enqueued, one delayed and one dead letter.
    void asynqAndDramatiq()
    {
        const RedisValue t = call(*m_client, {"TIME"});
        const qint64 nowMs
            = t.at(0).bytes().toLongLong() * 1000 + t.at(1).bytes().toLongLong() / 1000;
        const QByteArray a = "asynq:{billing}:";
        // TaskMessage: type "charge", id, queue "billing" (protobuf fields 1, 3, 4).
        const auto msg = [](const QByteArray &id) -> QByteArray {
            return QByteArray("\x0a\x06"
                              "charge"
                              "\x1a")
                   + char(id.size()) + id
                   + QByteArray("\x22\x07"
                                "billing");
        };
        const QByteArray d = R"({"queue_name":"%q","actor_name":"send","args":[],"kwargs":{},)"
                             R"("options":{"redis_message_id":"%1"},"message_id":"m",)"
                             R"("message_timestamp":1})";
        const auto dmsg = [&](const QByteArray &id, const QByteArray &queue) -> QByteArray {
            return QByteArray(d).replace("%1", id).replace("%q", queue);
        };
        const QList<QList<QByteArray>> cmds{
            {"SADD", "asynq:queues", "billing"},
            {"HSET", a + "t:b1", "msg", msg("b1"), "state", "active"},
            {"HSET", a + "t:b2", "msg", msg("b2"), "state", "pending", "pending_since", "1"},
            {"HSET", a + "t:b3", "msg", msg("b3"), "state", "retry"},
            {"LPUSH", a + "pending", "b2"},
            {"LPUSH", a + "active", "b1"},
            {"ZADD", a + "lease", QByteArray::number(nowMs / 1000 + 600), "b1"},
            {"ZADD", a + "retry", QByteArray::number(nowMs / 1000 + 60), "b3"},
            {"SET", a + "processed", "4"},
            {"SET", a + "failed", "1"},
            {"ZADD", "dramatiq:__heartbeats__", QByteArray::number(nowMs), "w1"},
            {"HSET", "dramatiq:mail.msgs", "d1", dmsg("d1", "mail"), "d2", dmsg("d2", "mail")},
            {"RPUSH", "dramatiq:mail", "d2"},
            {"SADD", "dramatiq:__acks__.w1.mail", "d1"},
            {"HSET", "dramatiq:mail.DQ.msgs", "d3", dmsg("d3", "mail.DQ")},
            {"RPUSH", "dramatiq:mail.DQ", "d3"},
            {"HSET", "dramatiq:mail.XQ.msgs", "d4", dmsg("d4", "mail")},
            {"ZADD", "dramatiq:mail.XQ", QByteArray::number(nowMs), "d4"}};
        for (const QList<QByteArray> &c : cmds)
            QVERIFY2(!call(*m_client, c).isError(), c.join(' ').constData());
        m_planted.append({QStringLiteral("asynq:{billing}:pending"), QStringLiteral("asynq"),
                          QJsonObject{{QStringLiteral("pending"), 1},
                                      {QStringLiteral("active"), 1},
                                      {QStringLiteral("retry"), 1},
                                      {QStringLiteral("processedTotal"), 4},
                                      {QStringLiteral("failedTotal"), 1}}});
        m_planted.append({QStringLiteral("dramatiq:mail"), QStringLiteral("dramatiq"),
                          QJsonObject{{QStringLiteral("enqueued"), 1},
                                      {QStringLiteral("delayed"), 1},
                                      {QStringLiteral("unacked"), 1},
                                      {QStringLiteral("dead"), 1}}});
    }

    void beeQueue()
    {
        Program bee = node(QStringLiteral("beequeue-app.js"));
        bee.leading << m_server.url() << QStringLiteral("mail");
        QCOMPARE(bee.run({QStringLiteral("produce"), QStringLiteral("3")}), QString());
        QCOMPARE(bee.run({QStringLiteral("produce-failing"), QStringLiteral("1")}), QString());
        QCOMPARE(bee.run({QStringLiteral("produce-delayed"), QStringLiteral("1")}), QString());
        auto worker = bee.start({QStringLiteral("work"), QStringLiteral("bq-ran")}, log("bee"));
        QVERIFY2(waitFor([&] {
                     return integer({"SCARD", "bq:mail:succeeded"}) == 3
                            && integer({"SCARD", "bq:mail:failed"}) == 1;
                 }),
                 tail(log("bee")).constData());
        stop(worker);
        QCOMPARE(bee.run({QStringLiteral("produce"), QStringLiteral("5")}), QString()); // 4, 5 new
        QJsonObject counts = bee.json({QStringLiteral("health")});
        QCOMPARE(counts[QStringLiteral("waiting")].toInt(), 2);
        counts.remove(QStringLiteral("newestJob")); // no state: the id counter
        m_planted.append({QStringLiteral("bq:mail"), QStringLiteral("bee-queue"), counts});
    }

    // node-resque under its default namespace "resque" beside Sidekiq's
    // unnamespaced keys: a failure (its worker ran), queued and delayed jobs.
    void resque()
    {
        Program app = node(QStringLiteral("resque-app.js"));
        app.leading << m_server.url() << QStringLiteral("resque");
        QCOMPARE(app.run({QStringLiteral("produce-failing"), QStringLiteral("mail"),
                          QStringLiteral("1")}),
                 QString());
        QCOMPARE(app.run({QStringLiteral("drain"), QStringLiteral("mail"), QStringLiteral("ran")}),
                 QString());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("mail"), QStringLiteral("2")}),
                 QString());
        QCOMPARE(app.run({QStringLiteral("produce-delayed"), QStringLiteral("mail"),
                          QStringLiteral("1")}),
                 QString());
        const QJsonObject counts = app.json({QStringLiteral("counts"), QStringLiteral("mail")});
        QCOMPARE(counts[QStringLiteral("failedCount")].toInt(), 1);
        m_planted.append(
            {QStringLiteral("resque:queues"), QStringLiteral("resque"),
             QJsonObject{{QStringLiteral("queued"),
                          counts[QStringLiteral("length")][QStringLiteral("mail")].toInt()},
                         {QStringLiteral("failed"), counts[QStringLiteral("failedCount")].toInt()},
                         {QStringLiteral("working"), 0}}});
        QCOMPARE(m_planted.last().counts[QStringLiteral("queued")].toInt(), 2);
    }

    // Python limits' fixed and moving windows, and a redis-semaphore holder
    // killed once it holds (a ten-minute lock timeout: not stale yet).
    void limiters()
    {
        Program limits = python(QStringLiteral("limits_app.py"));
        limits.leading << m_server.url();
        for (const QString &strategy : {QStringLiteral("fixed"), QStringLiteral("moving")}) {
            const QStringList item{strategy, QStringLiteral("5/minute"), QStringLiteral("api"),
                                   strategy};
            QCOMPARE(limits.run(QStringList{QStringLiteral("hit"), item.at(0), item.at(1),
                                            QStringLiteral("3"), item.at(2), item.at(3)}),
                     QStringLiteral("3"));
            const QJsonObject stats = limits.json(QStringList{QStringLiteral("stats")} + item);
            m_planted.append({stats[QStringLiteral("key")].toString(),
                              QStringLiteral("python-limits"),
                              QJsonObject{{QStringLiteral("hits"),
                                           stats[QStringLiteral("limit")].toInt()
                                               - stats[QStringLiteral("remaining")].toInt()}}});
        }
        QProcess holder;
        holder.start(QStringLiteral("node"),
                     {LibrariesDir + QStringLiteral("/semaphore-app.js"), m_server.url(),
                      QStringLiteral("hold"), QStringLiteral("reports"), QStringLiteral("3"),
                      QStringLiteral("0"), QStringLiteral("600000")});
        QVERIFY(holder.waitForReadyRead(60000));
        const QByteArray identifier = holder.readLine().trimmed();
        holder.kill();
        holder.waitForFinished(10000);
        QVERIFY(!call(*m_client, {"ZSCORE", "semaphore:reports", identifier}).isNil());
        m_planted.append(
            {QStringLiteral("semaphore:reports"), QStringLiteral("redis-semaphore"),
             QJsonObject{{QStringLiteral("permits held"), 1}, {QStringLiteral("stale"), 0}}});
    }

    // Laravel's Redis queue, by its own RedisQueue (tests/libraries/
    // laravel_app.php, php-illuminate-queue 8.83) under the application
    // prefix "laravel_database_": a worker (retry_after ten minutes) killed
    // in its job holds the reservation, two jobs wait, one is delayed.
    void laravel()
    {
        const PhpApp app{
            LibrariesDir + QStringLiteral("/laravel_app.php"),
            {m_server.url(), QStringLiteral("laravel_database_"), QStringLiteral("emails")}};
        QCOMPARE(app.run({QStringLiteral("produce-blocking"), QStringLiteral("l-1")}), QString());
        auto worker = app.start({QStringLiteral("work"), QStringLiteral("600")});
        QVERIFY2(waitFor([&] {
                     return integer({"LLEN", "laravel_database_taken"}) == 1;
                 }),
                 "the Laravel worker never took l-1");
        worker->kill(); // SIGKILL, in the job
        QVERIFY(worker->waitForFinished(10000));
        worker.reset();
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("l-2")}), QString());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("l-3")}), QString());
        QCOMPARE(app.run({QStringLiteral("later"), QStringLiteral("600"), QStringLiteral("l-4")}),
                 QString());
        const QJsonObject laravel = app.counts();
        QCOMPARE(laravel[QStringLiteral("reserved")].toInt(), 1);
        // RedisQueue::size is the sum of the three.
        QCOMPARE(app.run({QStringLiteral("size")}).toInt(),
                 laravel[QStringLiteral("ready")].toInt()
                     + laravel[QStringLiteral("delayed")].toInt()
                     + laravel[QStringLiteral("reserved")].toInt());
        // Laravel's "ready" (the LIST pop takes from) is the "pending" state.
        m_planted.append(
            {QStringLiteral("laravel_database_queues:emails"), QStringLiteral("laravel"),
             QJsonObject{{QStringLiteral("pending"), laravel[QStringLiteral("ready")]},
                         {QStringLiteral("delayed"), laravel[QStringLiteral("delayed")]},
                         {QStringLiteral("reserved"), laravel[QStringLiteral("reserved")]}},
             QStringLiteral("laravel-queue")});
    }

    // Symfony Messenger's Redis transport, by its own Connection
    // (tests/libraries/symfony_app.php, php-symfony-redis-messenger 5.4) on
    // its defaults: a consumer killed in a message holds it pending, one
    // message waits in the stream, one is delayed ten minutes. The delayed
    // set is Symfony's; the stream, with the transport's group, is shown by
    // the stream pattern.
    void symfony()
    {
        const PhpApp app{LibrariesDir + QStringLiteral("/symfony_app.php"), {m_server.url()}};
        QCOMPARE(app.run({QStringLiteral("produce-blocking"), QStringLiteral("s-1")}), QString());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("s-2")}), QString());
        QCOMPARE(
            app.run({QStringLiteral("later"), QStringLiteral("600000"), QStringLiteral("s-3")}),
            QString());
        auto consumer = app.start({QStringLiteral("work"), QStringLiteral("c1")});
        QVERIFY2(waitFor([&] {
                     return integer({"LLEN", "taken"}) == 1;
                 }),
                 "the Symfony consumer never took s-1");
        consumer->kill(); // SIGKILL, in the message
        QVERIFY(consumer->waitForFinished(10000));
        consumer.reset();
        const QJsonObject symfony = app.counts(); // the transport's XLEN, XPENDING, ZCARD
        QCOMPARE(symfony[QStringLiteral("pending")].toInt(), 1);
        m_planted.append(
            {QStringLiteral("messages__queue"), QStringLiteral("symfony-messenger"),
             QJsonObject{{QStringLiteral("delayed"), symfony[QStringLiteral("delayed")]}},
             QStringLiteral("symfony-delayed")});
        QJsonObject stream = streamCounts(*m_client, "messages");
        QCOMPARE(stream[QStringLiteral("entries")], symfony[QStringLiteral("stream")]);
        QCOMPARE(stream[QStringLiteral("pending")], symfony[QStringLiteral("pending")]);
        m_planted.append({QStringLiteral("messages"), QStringLiteral("redis-streams"), stream,
                          QStringLiteral("stream-group")});
    }

    // A stream read by consumer groups, as the Redis documentation presents
    // it: five orders; group billing's worker-1 read three and acknowledged
    // one, group audit read nothing yet. An event stream without a group
    // beside it (as BullMQ's "<queue>:events") is no queue.
    void streamGroups()
    {
        for (int n = 1; n <= 5; ++n)
            QVERIFY(!call(*m_client, {"XADD", "orders", "*", "order", QByteArray::number(n)})
                         .isError());
        QCOMPARE(call(*m_client, {"XGROUP", "CREATE", "orders", "billing", "0"}),
                 RedisValue::status("OK"));
        QCOMPARE(call(*m_client, {"XGROUP", "CREATE", "orders", "audit", "0"}),
                 RedisValue::status("OK"));
        const RedisValue read = call(*m_client, {"XREADGROUP", "GROUP", "billing", "worker-1",
                                                 "COUNT", "3", "STREAMS", "orders", ">"});
        const QByteArray first = read.at(0).at(1).at(0).at(0).bytes();
        QCOMPARE(integer({"XACK", "orders", "billing", first}), 1);
        QVERIFY(
            !call(*m_client, {"XADD", "app:events", "*", "user", "ada", "did", "login"}).isError());
        const QJsonObject counts = streamCounts(*m_client, "orders");
        QCOMPARE(counts[QStringLiteral("pending")].toInt(), 2);
        m_planted.append({QStringLiteral("orders"), QStringLiteral("redis-streams"), counts,
                          QStringLiteral("stream-group")});
    }

    // Redisson (Java cannot be installed here), by Redisson 3.52.0's own Lua
    // (tests/libraries/redisson/, as tst_lib_redisson runs it): locks, two
    // semaphores and a delayed queue (libplanting.h). Its rate limiters are
    // among simulate's seeds.
    void redisson()
    {
        const QString failed = plantRedisson(*m_client, m_planted);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
    }

    // Laravel Horizon beside its Laravel queue (Horizon 5 is not in Debian:
    // written as it writes it, libplanting.h): the queue's waiting job l-2
    // pending, one job completed and one failed, a supervisor and its master
    // beating now. Last before the seeds: a supervisor goes quiet after 29 s.
    void horizon()
    {
        const QByteArray pending
            = QJsonDocument::fromJson(
                  call(*m_client, {"LINDEX", "laravel_database_queues:emails", "0"}).bytes())
                  .object()[QStringLiteral("id")]
                  .toString()
                  .toUtf8();
        QVERIFY(!pending.isEmpty());
        const QString failed
            = plantHorizon(*m_client, "laravel_horizon:", "emails", pending, true, m_planted);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QCOMPARE(m_planted.last().counts[QStringLiteral("recent")].toInt(), 3);
        m_horizonSupervisors = integer({"ZCARD", "laravel_horizon:supervisors"});
        QCOMPARE(m_horizonSupervisors, 1);
    }

    // The seed patterns' traffic, last, so its short-lived locks still stand.
    void seeds()
    {
        const CliRun run
            = cli({QStringLiteral("simulate"), QStringLiteral("--seconds"), QStringLiteral("3"),
                   QStringLiteral("--scale"), QStringLiteral("2"), QStringLiteral("--seed"),
                   QStringLiteral("5"), QStringLiteral("--json"),
                   QStringLiteral("--allow-nonempty")}); // beside the libraries' keys
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        m_census = QJsonDocument::fromJson(run.out.toUtf8())
                       .object()[QStringLiteral("patterns")]
                       .toObject();
        QVERIFY(m_census.size() >= 8);
    }

    void oneSnapshotShowsEveryone()
    {
        // 13 job and limiter libraries' objects, Laravel's queue and Horizon,
        // Symfony's delayed set and stream, a stream of groups, 6 Redisson.
        QCOMPARE(m_planted.size(), 24);
        QVERIFY(!m_census.isEmpty());
        // Seed objects that still stand (a crashed holder's lock expires in
        // seconds): read before and after the snapshot, both must hold.
        const auto standing = [&] {
            QSet<QString> out;
            for (auto it = m_census.begin(); it != m_census.end(); ++it) {
                for (const QJsonValue &k : it->toObject()[QStringLiteral("keys")].toArray()) {
                    const QByteArray key = k.toString().toUtf8();
                    // A token family's key is its prefix: it stands while a
                    // token does (the keyspace here is a few thousand keys).
                    const bool stands = it.key() == QLatin1String("token-family")
                                            ? !call(*m_client, {"SCAN", "0", "MATCH", key + '*',
                                                                "COUNT", "100000"})
                                                   .at(1)
                                                   .elements()
                                                   .isEmpty()
                                            : integer({"EXISTS", key}) == 1;
                    if (stands)
                        out.insert(it.key() + QLatin1Char(' ') + k.toString());
                }
            }
            return out;
        };
        const QSet<QString> before = standing();
        const CliRun run = cli({QStringLiteral("snapshot"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject snap = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const QSet<QString> after = standing();

        // Every object, by section, pattern and key.
        QHash<QString, QJsonObject> shown; // "pattern key" -> the object
        QStringList unexpected;
        for (auto it = snap.begin(); it != snap.end(); ++it) {
            // Candidates (unconfirmed) and other keys are not shown as
            // structures; candidates are checked below.
            if (!it->isArray() || it.key() == QLatin1String("candidates")
                || it.key() == QLatin1String("other"))
                continue;
            for (const QJsonValue &v : it->toArray()) {
                const QJsonObject o = v.toObject();
                const QString key = o[QStringLiteral("key")].toString();
                const QString id = o[QStringLiteral("pattern")].toString() + QLatin1Char(' ') + key;
                shown.insert(id, o);
                const bool seed = key.startsWith(QLatin1String("sim:"))
                                  || key.startsWith(QLatin1String("{sim:"));
                const bool library = std::any_of(m_planted.cbegin(), m_planted.cend(),
                                                 [&](const Planted &p) { return p.key == key; });
                if (!seed && !library)
                    unexpected << it.key() + QLatin1Char(' ') + id;
            }
        }
        QCOMPARE(unexpected, QStringList()); // no library key shown as a structure
        // Nor offered as an unconfirmed one: a library's keys are its queue's.
        QStringList offered;
        for (const QJsonValue &v : snap[QStringLiteral("candidates")].toArray()) {
            for (const QJsonValue &k : v[QStringLiteral("keys")].toArray()) {
                if (!k.toString().startsWith(QLatin1String("sim:")))
                    offered << v[QStringLiteral("pattern")].toString() + QLatin1Char(' ')
                                   + k.toString();
            }
        }
        QCOMPARE(offered, QStringList());

        // Every library object under its pattern and library, with the
        // library's own counts.
        for (const Planted &p : std::as_const(m_planted)) {
            const QString pattern = p.pattern.isEmpty() ? p.library : p.pattern;
            const QJsonObject o = shown.value(pattern + QLatin1Char(' ') + p.key);
            QVERIFY2(!o.isEmpty(), qPrintable(pattern + QLatin1Char(' ') + p.key
                                              + QStringLiteral(" is not shown")));
            const QJsonObject library = o[QStringLiteral("library")].toObject();
            QCOMPARE(library[QStringLiteral("name")].toString(), p.library);
            QVERIFY2(library[QStringLiteral("layoutKnown")].toBool(), qPrintable(p.key));
            QVERIFY2(o[QStringLiteral("stuck")].toArray().isEmpty(), qPrintable(p.key));
            const QJsonObject counts = o[QStringLiteral("counts")].toObject();
            for (auto c = p.counts.begin(); c != p.counts.end(); ++c) {
                // The libraries name two states differently in their API:
                // BullMQ's getJobCounts says "waiting" for its "wait" list.
                QString state = c.key();
                if (p.library.startsWith(QLatin1String("bull"))
                    && state == QLatin1String("waiting"))
                    state = QStringLiteral("wait");
                if (!counts.contains(state))
                    QVERIFY2(c->toInt() == 0, qPrintable(p.key + QLatin1Char(' ') + state
                                                         + QStringLiteral(" not counted")));
                else
                    QVERIFY2(counts[state].toInt() == c->toInt(),
                             qPrintable(QStringLiteral("%1 %2: %3 shown, %4 by the library")
                                            .arg(p.key, state)
                                            .arg(counts[state].toInt())
                                            .arg(c->toInt())));
            }
        }

        // Horizon's supervisors, each with its heartbeat.
        const QJsonObject horizon = shown.value(QStringLiteral("laravel-horizon laravel_horizon:"));
        QCOMPARE(horizon[QStringLiteral("supervisors")].toInt(), m_horizonSupervisors);
        QCOMPARE(horizon[QStringLiteral("supervisorsWithHeartbeat")].toInt(), m_horizonSupervisors);
        // Symfony's stream named as the transport's, as its delayed set is.
        const QJsonObject messages = shown.value(QStringLiteral("stream-group messages"));
        QCOMPARE(messages[QStringLiteral("library")][QStringLiteral("layout")].toString(),
                 QStringLiteral("symfony-messenger"));

        // Every standing seed object under its pattern.
        QStringList missing;
        for (const QString &id : before) {
            if (after.contains(id) && !shown.contains(id))
                missing << id;
        }
        QCOMPARE(missing, QStringList());
        // Redisson's rate limiters are among them.
        QVERIFY2(std::any_of(before.cbegin(), before.cend(),
                             [](const QString &id) {
                                 return id.startsWith(QLatin1String("redisson-limiter "));
                             }),
                 "simulate left no Redisson rate limiter standing");
        QVERIFY2(before.size() >= 25,
                 qPrintable(QStringList(before.cbegin(), before.cend()).join(QLatin1Char(','))));
    }
};

QTEST_GUILESS_MAIN(tst_LibAll)
#include "tst_lib_all.moc"
