// SPDX-License-Identifier: MIT
// Laravel's Redis queue (Debian php-illuminate-queue 8.83), driven for real:
// Illuminate\Queue\RedisQueue's own push, later, pop and delete
// (tests/libraries/laravel_app.php) over phpredis with the application
// prefix "laravel_database_", against a private redis-server. A worker is
// killed with SIGKILL in the middle of a job; once its reservation's expiry
// (pop time + retry_after) has passed, Gatehouse finds the queue and the
// expired reservation with no profile, puts it back through the CLI as
// RedisQueue::migrateExpiredJobs does, and a real worker then runs every job
// exactly once. A delayed job is removed. Layouts that resemble Laravel's
// with a foreign part are shown read-only, and other libraries' keys are
// not taken for a Laravel queue.
#include <patterns/laravel-queue/laravelqueueunit.h>
#include <redis/redisclient.h>

#include "librarytest.h"
#include "matchnow.h"
#include "otherlibraries.h"
#include "phpapp.h"
#include "redisserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
const QString Php = gatehouse::test::PhpApp::php(); // Debian's php-cli, with php-redis
const QByteArray Prefix = "laravel_database_";
const QString QueueKey = QStringLiteral("laravel_database_queues:emails");

// The Laravel driver (tests/libraries/laravel_app.php) on a server.
gatehouse::test::PhpApp laravelApp(const QString &url)
{
    return {LibrariesDir + QStringLiteral("/laravel_app.php"),
            {url, QString::fromLatin1(Prefix), QStringLiteral("emails")}};
}

bool waitFor(const std::function<bool()> &done, int ms = 30000)
{
    return gatehouse::test::pollUntil(done, ms);
}

QStringList strings(const RedisValue &list)
{
    QStringList out;
    for (const RedisValue &v : list.elements())
        out << QString::fromUtf8(v.bytes());
    return out;
}

// The "id" of a Laravel payload.
QString idOf(const QByteArray &payload)
{
    return QJsonDocument::fromJson(payload).object().value(QStringLiteral("id")).toString();
}

QJsonArray queuesOf(const QJsonObject &snapshot, const QString &pattern)
{
    QJsonArray out;
    for (const QJsonValue &q : snapshot.value(QStringLiteral("queues")).toArray()) {
        if (q[QStringLiteral("pattern")].toString() == pattern)
            out.append(q);
    }
    return out;
}

} // namespace

class tst_LibLaravel : public QObject
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
    static qint64 serverSeconds(RedisClient &client)
    {
        return call(client, {"TIME"}).at(0).bytes().toLongLong();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(Php), "/usr/bin/php is missing: run .ci/install-deps");
        QProcess p;
        p.start(Php, {QStringLiteral("-r"),
                      QStringLiteral("require 'Illuminate/Queue/autoload.php'; "
                                     "echo class_exists('Redis') ? 'redis ' : 'none ', "
                                     "(new ReflectionClass('Illuminate\\Queue\\RedisQueue'))"
                                     "->getFileName();")});
        QVERIFY(p.waitForFinished(30000));
        const QString found = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
        QVERIFY2(p.exitCode() == 0 && found.startsWith(QLatin1String("redis /usr/share/php/")),
                 qPrintable(QStringLiteral("php-redis and php-illuminate-queue are needed (run "
                                           ".ci/install-deps): %1 %2")
                                .arg(found, QString::fromUtf8(p.readAllStandardError()))));
    }

    void expiredReservationReleasedAndRunOnce()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const gatehouse::test::PhpApp app = laravelApp(server.url());

        QCOMPARE(app.run({QStringLiteral("produce-blocking"), QStringLiteral("job-1")}), QString());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("job-2")}), QString());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("job-3")}), QString());
        QCOMPARE(app.run({QStringLiteral("later"), QStringLiteral("600"), QStringLiteral("job-4")}),
                 QString());

        // A worker (retry_after 3 s) takes job-1 and is killed in it.
        auto hung = app.start({QStringLiteral("work"), QStringLiteral("3")});
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", Prefix + "taken"}).toInteger() == 1;
                 }),
                 "the worker never took job-1");
        hung->kill(); // SIGKILL
        QVERIFY(hung->waitForFinished(10000));
        hung.reset();
        const RedisValue reserved
            = call(client, {"ZRANGE", QueueKey.toUtf8() + ":reserved", "0", "-1"});
        QCOMPARE(reserved.size(), qsizetype(1));
        const QString job1 = idOf(reserved.at(0).bytes());
        QVERIFY(!job1.isEmpty());

        // Found with no profile, Laravel's own counts: their sum is
        // RedisQueue::size; nothing else is shown.
        QJsonObject snap = snapshot(server);
        QJsonArray queues = snap[QStringLiteral("queues")].toArray();
        QCOMPARE(queues.size(), 1);
        QJsonObject q = queues.first().toObject();
        QCOMPARE(q[QStringLiteral("key")].toString(), QueueKey);
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("laravel-queue"));
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        QJsonObject counts = q[QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("pending")].toInt(), 2);
        QCOMPARE(counts[QStringLiteral("delayed")].toInt(), 1);
        QCOMPARE(counts[QStringLiteral("reserved")].toInt(), 1);
        const QJsonObject laravel = app.counts();
        QCOMPARE(counts[QStringLiteral("pending")].toInt(),
                 laravel[QStringLiteral("ready")].toInt());
        QCOMPARE(app.run({QStringLiteral("size")}), QStringLiteral("4"));
        QCOMPARE(gatehouse::test::objectsBesides(snap, QueueKey), QStringList());
        // Not stuck while its reservation runs: releasing it is refused.
        QCOMPARE(q[QStringLiteral("stuck")].toArray().size(), 0);
        CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), QueueKey,
                                  QStringLiteral("--job"), job1});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("has not expired")), qPrintable(run.err + run.out));

        // Past retry_after by the server's clock: stuck, with the reason.
        const double expiry
            = call(client, {"ZSCORE", QueueKey.toUtf8() + ":reserved", reserved.at(0).bytes()})
                  .bytes()
                  .toDouble();
        QVERIFY2(waitFor([&] { return double(serverSeconds(client)) > expiry; }, 15000),
                 "the reservation never expired");
        snap = snapshot(server);
        q = queuesOf(snap, QStringLiteral("laravel-queue")).first().toObject();
        const QJsonArray stuck = q[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.first()[QStringLiteral("job")].toString(), job1);
        QVERIFY(stuck.first()[QStringLiteral("reason")].toString().contains(
            QLatin1String("retry_after")));
        // Stuck since its reservation expired (Laravel's own score, in s).
        QCOMPARE(stuck.first()[QStringLiteral("sinceMs")].toDouble(), expiry * 1000.0);
        QCOMPARE(q[QStringLiteral("reservedExpired")].toInt(), 1);

        const gatehouse::test::MatchNow counted = gatehouse::test::matchNow(
            client, LaravelQueueUnit::Kind, LaravelQueueUnit::objectForQueue(QueueKey.toUtf8()),
            QStringLiteral("queue.requeue"), {{QStringLiteral("stuck"), QByteArray()}});
        QVERIFY2(counted.ok, qPrintable(counted.error));
        QCOMPARE(counted.count, qint64(1));

        // Released through the CLI: back at the end of the queue, attempts
        // kept, one notification per job, as migrateExpiredJobs leaves them.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"), QueueKey,
                           QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("Put 1 expired reservation back")),
                 qPrintable(run.out));
        const QJsonObject after = app.counts();
        QCOMPARE(after[QStringLiteral("ready")].toInt(), 3);
        QCOMPARE(after[QStringLiteral("reserved")].toInt(), 0);
        const QByteArray back = call(client, {"LINDEX", QueueKey.toUtf8(), "-1"}).bytes();
        QCOMPARE(idOf(back), job1);
        QCOMPARE(QJsonDocument::fromJson(back)["attempts"].toInt(), 1);
        QCOMPARE(call(client, {"LLEN", QueueKey.toUtf8() + ":notify"}).toInteger(), qint64(3));

        // A real worker runs each job once (job-1 on its second attempt).
        auto worker = app.start({QStringLiteral("work"), QStringLiteral("60")});
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", Prefix + "ran"}).toInteger() == 3;
                 }),
                 "the worker did not run the three jobs");
        gatehouse::test::stopProcess(worker);
        QStringList ran = strings(call(client, {"LRANGE", Prefix + "ran", "0", "-1"}));
        ran.sort();
        QCOMPARE(ran, (QStringList{"job-1", "job-2", "job-3"}));
        QCOMPARE(app.run({QStringLiteral("size")}), QStringLiteral("1"));

        // An id the queue does not hold is refused; the delayed job is
        // removed by its id.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("remove"), QueueKey,
                           QStringLiteral("--job"), job1});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("no job")), qPrintable(run.err + run.out));
        QCOMPARE(app.run({QStringLiteral("size")}), QStringLiteral("1"));
        const QString job4 = idOf(
            call(client, {"ZRANGE", QueueKey.toUtf8() + ":delayed", "0", "0"}).at(0).bytes());
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("remove"), QueueKey,
                           QStringLiteral("--job"), job4});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(app.run({QStringLiteral("size")}), QStringLiteral("0"));
    }

    void pendingJobRemoved()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        const gatehouse::test::PhpApp app = laravelApp(server.url());
        for (const char *name : {"a", "b", "c"})
            QCOMPARE(app.run({QStringLiteral("produce"), QLatin1String(name)}), QString());
        const QString b = idOf(call(*connected, {"LINDEX", QueueKey.toUtf8(), "1"}).bytes());
        const CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("remove"), QueueKey,
                                        QStringLiteral("--job"), b});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(app.run({QStringLiteral("size")}), QStringLiteral("2"));
        // One notification per job left, as a pop of it would leave.
        QCOMPARE(call(*connected, {"LLEN", QueueKey.toUtf8() + ":notify"}).toInteger(), qint64(2));
        QStringList left;
        const RedisValue list = call(*connected, {"LRANGE", QueueKey.toUtf8(), "0", "-1"});
        for (const RedisValue &v : list.elements())
            left << QJsonDocument::fromJson(v.bytes())["data"]["name"].toString();
        QCOMPARE(left, (QStringList{"a", "c"}));
    }

    // The oldest pending job's age is what Laravel's own
    // creationTimeOfOldestPendingJob reads (the head's createdAt, which
    // Laravel 11 and later write in every payload); unknown for a payload
    // without it (Debian's Laravel 8), and 0 once nothing is pending.
    void oldestPendingAge()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        const gatehouse::test::PhpApp app = laravelApp(server.url());
        QCOMPARE(app.run({QStringLiteral("produce-stamped"), QStringLiteral("a")}), QString());
        QCOMPARE(app.run({QStringLiteral("produce")}), QString()); // Laravel 8's: no createdAt
        bool ok = false;
        const qint64 created = app.run({QStringLiteral("oldest-created")}).toLongLong(&ok);
        QVERIFY(ok);
        QTest::qWait(1200);

        QJsonObject snap = snapshot(server);
        QJsonObject q = queuesOf(snap, QStringLiteral("laravel-queue")).at(0).toObject();
        const qint64 want
            = snap[QStringLiteral("server")][QStringLiteral("timeMs")].toInteger() - created * 1000;
        const qint64 shown
            = q[QStringLiteral("latency")][QStringLiteral("oldestWaitingAgeMs")].toInteger(-2);
        QVERIFY2(want >= 1200 && std::abs(shown - want) <= 1000,
                 qPrintable(QStringLiteral("shown %1 ms, Laravel's creation time gives %2 ms")
                                .arg(shown)
                                .arg(want)));

        // The stamped job gone, the head is Laravel 8's, which says no time.
        call(*client, {"LPOP", QueueKey.toUtf8()});
        q = queuesOf(snapshot(server), QStringLiteral("laravel-queue")).at(0).toObject();
        QCOMPARE(q[QStringLiteral("counts")][QStringLiteral("pending")].toInt(), 1);
        QCOMPARE(q[QStringLiteral("latency")][QStringLiteral("oldestWaitingAgeMs")].toInteger(-2),
                 -1);

        // A delayed job keeps the queue there once the pending one ran.
        QCOMPARE(app.run({QStringLiteral("later"), QStringLiteral("3600"), QStringLiteral("b")}),
                 QString());
        auto worker = app.start({QStringLiteral("work"), QStringLiteral("60")});
        QVERIFY(waitFor([&] { return call(*client, {"LLEN", Prefix + "ran"}).toInteger() == 1; }));
        q = queuesOf(snapshot(server), QStringLiteral("laravel-queue")).at(0).toObject();
        QCOMPARE(q[QStringLiteral("counts")][QStringLiteral("pending")].toInt(-1), 0);
        QCOMPARE(q[QStringLiteral("latency")][QStringLiteral("oldestWaitingAgeMs")].toInteger(-2),
                 0);
        gatehouse::test::stopProcess(worker);
    }

    // Laravel's queue beside every other library's, BullMQ's under Laravel's
    // own "queues:" prefix (its wait list is a list named as a Laravel queue,
    // holding job ids, not payloads): only Laravel's queue is Laravel's, and
    // each other library's is shown as its own.
    void queueNotTakenForOtherLibraries()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        gatehouse::test::OtherLibraries libraries(server, *c);
        libraries.laravel(QString::fromLatin1(Prefix), QStringLiteral("emails"));
        libraries.bullmq(QStringLiteral("laravel_database_queues"), QStringLiteral("mail"));
        libraries.rest();
        QVERIFY2(libraries.failures().isEmpty(), qPrintable(libraries.failures().join(u'\n')));
        QCOMPARE(call(*c, {"TYPE", "laravel_database_queues:mail:wait"}).bytes(),
                 QByteArray("list"));

        const QJsonObject snap = snapshot(server);
        QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("laravel-queue")).join(u' '),
                 QueueKey);
        QCOMPARE(gatehouse::test::notShownAsTheirs(snap, libraries.planted()).join(u'\n'),
                 QString());
    }

    // The job browser's reads through the CLI: `queue search` finds a job by
    // a word of its payload (its pending list or delayed set, read a page at
    // a time), and `queue job` shows a job named by its payload's id, its
    // data.command decoded from PHP serialize().
    void jobsSearchedAndShown()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        const gatehouse::test::PhpApp app = laravelApp(server.url());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("alpha")}), QString());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("bravo")}), QString());
        QCOMPARE(app.run({QStringLiteral("later-command"), QStringLiteral("600"),
                          QStringLiteral("weekly-digest")}),
                 QString());
        const QString bravo = idOf(call(*c, {"LINDEX", QueueKey.toUtf8(), "1"}).bytes());
        const QString digest
            = idOf(call(*c, {"ZRANGE", QueueKey.toUtf8() + ":delayed", "0", "0"}).at(0).bytes());
        QVERIFY(!bravo.isEmpty() && !digest.isEmpty());
        auto hits = [&](const QString &query) {
            const CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("search"),
                                            QueueKey, query, QStringLiteral("--json")});
            QStringList ids;
            const QJsonObject o = QJsonDocument::fromJson(run.out.toUtf8()).object();
            for (const QJsonValue &h : o.value(QLatin1String("hits")).toArray())
                ids << h[QStringLiteral("state")].toString() + QLatin1Char(':')
                           + h[QStringLiteral("id")].toString();
            return run.exitCode == 0 ? ids : QStringList{run.err + run.out};
        };
        QCOMPARE(hits(QStringLiteral("bravo")), QStringList{QStringLiteral("pending:") + bravo});
        QCOMPARE(hits(QStringLiteral("weekly-digest")),
                 QStringList{QStringLiteral("delayed:") + digest});
        QCOMPARE(hits(QStringLiteral("name=App\\Jobs\\SendDigest")),
                 QStringList{QStringLiteral("delayed:") + digest});

        const CliRun job
            = cli(server, {QStringLiteral("queue"), QStringLiteral("job"), QueueKey, digest});
        QVERIFY2(job.exitCode == 0, qPrintable(job.err + job.out));
        QVERIFY2(job.out.contains(QLatin1String("== data.command (PHP serialize)")),
                 qPrintable(job.out));
        QVERIFY2(job.out.contains(QLatin1String("weekly-digest")), qPrintable(job.out));
        // The bytes as stored follow what was decoded of them (a PHP
        // serialize of an object begins "O:").
        const qsizetype raw = job.out.indexOf(QLatin1String("-- raw (hex, "),
                                              job.out.indexOf(QLatin1String("== data.command")));
        QVERIFY2(raw > 0, qPrintable(job.out));
        QVERIFY2(job.out.indexOf(QLatin1String("00000000  4f 3a "), raw) > raw,
                 qPrintable(job.out));
        const CliRun missing = cli(server, {QStringLiteral("queue"), QStringLiteral("job"),
                                            QueueKey, QStringLiteral("no-such-id")});
        QCOMPARE(missing.exitCode, 3);
        QVERIFY2(missing.err.contains(QLatin1String("There is no job no-such-id")),
                 qPrintable(missing.err + missing.out));
    }

    // Horizon 5 is not in Debian: its bookkeeping is written here as
    // laravel/horizon v5.29.1 writes it (src/Repositories/
    // RedisJobRepository.php pushed, completed, failed: ZADD of -microtime,
    // HMSET and EXPIREAT of the job hash; RedisSupervisorRepository::update
    // and RedisMasterSupervisorRepository::update: HMSET, ZADD of the time,
    // EXPIRE), beside a real Laravel queue. Both are shown, Horizon with its
    // counts and supervisors (one gone quiet), and nothing else: its job
    // hashes are not tokens, its sets not limiters.
    void horizonBesideItsQueue()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        const gatehouse::test::PhpApp app = laravelApp(server.url());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("a")}), QString());
        const qint64 now = serverSeconds(*c);
        const QByteArray h = "laravel_horizon:";
        auto job = [&](const QByteArray &id, const QByteArray &status,
                       const QList<QByteArray> &sets, qint64 at) {
            const QByteArray score = "-" + QByteArray::number(at) + ".25";
            for (const QByteArray &set : sets)
                call(*c, {"ZADD", h + set, score, id});
            call(*c,
                 {"HSET", h + id, "id", id, "connection", "redis", "queue", "emails", "name",
                  "App\\Jobs\\Run", "status", status, "payload",
                  "{\"uuid\":\"" + id + "\",\"id\":\"" + id
                      + "\",\"displayName\":\"App\\\\Jobs\\\\Run\",\"job\":\"App\\\\Jobs\\\\Run\","
                        "\"data\":{\"name\":\"retried\"},\"attempts\":1,\"pushedAt\":\""
                      + QByteArray::number(at) + ".25\"}",
                  "created_at", QByteArray::number(at) + ".25"});
            call(*c, {"EXPIREAT", h + id, QByteArray::number(now + 3600)});
        };
        job("0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c01", "pending", {"recent_jobs", "pending_jobs"},
            now - 5);
        job("0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c02", "completed", {"recent_jobs", "completed_jobs"},
            now - 50);
        job("0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c03", "failed",
            {"recent_jobs", "failed_jobs", "recent_failed_jobs"}, now - 80);
        auto supervisor = [&](const QByteArray &name, qint64 beat) {
            call(*c,
                 {"HSET", h + "supervisor:" + name, "name", name, "master", "host-1", "pid", "4242",
                  "status", "running", "processes", "{\"redis:emails\":3}", "options", "{}"});
            call(*c, {"ZADD", h + "supervisors", QByteArray::number(beat), name});
            call(*c, {"EXPIRE", h + "supervisor:" + name, "30"});
        };
        supervisor("host-1:supervisor-1", now);
        supervisor("host-1:supervisor-2", now - 120);
        call(*c, {"HSET", h + "master:host-1", "name", "host-1", "pid", "4241", "status", "running",
                  "supervisors", "[\"host-1:supervisor-1\"]", "environment", "production"});
        call(*c, {"ZADD", h + "masters", QByteArray::number(now), "host-1"});
        call(*c, {"EXPIRE", h + "master:host-1", "15"});

        const QJsonObject snap = snapshot(server);
        const QJsonArray horizon = queuesOf(snap, QStringLiteral("laravel-horizon"));
        QCOMPARE(horizon.size(), 1);
        const QJsonObject q = horizon.first().toObject();
        QCOMPARE(q[QStringLiteral("key")].toString(), QString::fromLatin1(h));
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        const QJsonObject counts = q[QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("recent")].toInt(), 3);
        QCOMPARE(counts[QStringLiteral("pending")].toInt(), 1);
        QCOMPARE(counts[QStringLiteral("completed")].toInt(), 1);
        QCOMPARE(counts[QStringLiteral("failed")].toInt(), 1);
        QCOMPARE(counts[QStringLiteral("recent_failed")].toInt(), 1);
        QCOMPARE(q[QStringLiteral("supervisors")].toInt(), 2);
        QCOMPARE(q[QStringLiteral("supervisorsWithHeartbeat")].toInt(), 1);
        const QJsonArray stuck = q[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.first()[QStringLiteral("job")].toString(),
                 QStringLiteral("host-1:supervisor-2"));
        QVERIFY(stuck.first()[QStringLiteral("reason")].toString().contains(
            QLatin1String("gone quiet")));

        // Every object shown (objectsBesides no queue).
        QStringList shown = gatehouse::test::objectsBesides(snap, QString());
        shown.sort();
        QCOMPARE(shown, (QStringList{QStringLiteral("queues ") + QueueKey,
                                     QStringLiteral("queues laravel_horizon:")}));

        // Its record through the CLI, as the job browser shows it.
        const CliRun record
            = cli(server, {QStringLiteral("queue"), QStringLiteral("job"), QString::fromLatin1(h),
                           QStringLiteral("0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c03")});
        QVERIFY2(record.exitCode == 0, qPrintable(record.err + record.out));
        QVERIFY2(record.out.contains(QLatin1String("\"status\": \"failed\"")),
                 qPrintable(record.out));

        // The failed job retried as RetryFailedJob does: a new job at the end
        // of its Laravel queue, recorded by Horizon, the retry on the failed
        // job's record; a real worker runs it. A job that did not fail is
        // refused.
        const QByteArray failed = "0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c03";
        CliRun run
            = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"), QString::fromLatin1(h),
                           QStringLiteral("--job"), QString::fromLatin1(failed),
                           QStringLiteral("--queue"), QueueKey});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(app.run({QStringLiteral("size")}), QStringLiteral("2"));
        const QJsonObject retried
            = QJsonDocument::fromJson(call(*c, {"LINDEX", QueueKey.toUtf8(), "-1"}).bytes())
                  .object();
        const QString fresh = retried[QStringLiteral("id")].toString();
        QCOMPARE(retried[QStringLiteral("uuid")].toString(), fresh);
        QCOMPARE(retried[QStringLiteral("retry_of")].toString(), QString::fromLatin1(failed));
        QCOMPARE(retried[QStringLiteral("attempts")].toInt(), 0);
        QCOMPARE(call(*c, {"ZCARD", h + "pending_jobs"}).toInteger(), qint64(2));
        QCOMPARE(call(*c, {"HGET", h + fresh.toUtf8(), "status"}).bytes(), QByteArray("pending"));
        const QJsonArray retries
            = QJsonDocument::fromJson(call(*c, {"HGET", h + failed, "retried_by"}).bytes()).array();
        QCOMPARE(retries.size(), 1);
        QCOMPARE(retries.first()[QStringLiteral("id")].toString(), fresh);
        run = cli(server,
                  {QStringLiteral("queue"), QStringLiteral("retry"), QString::fromLatin1(h),
                   QStringLiteral("--job"), QStringLiteral("0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c01"),
                   QStringLiteral("--queue"), QueueKey});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("not a failed")), qPrintable(run.err + run.out));
        auto worker = app.start({QStringLiteral("work"), QStringLiteral("60")});
        QVERIFY2(gatehouse::test::pollUntil(
                     [&] {
                         return call(*c, {"LLEN", Prefix + "ran"}).toInteger() == 2;
                     },
                     30000),
                 "the worker did not run the retried job");
        gatehouse::test::stopProcess(worker);
        QCOMPARE(call(*c, {"LINDEX", Prefix + "ran", "-1"}).bytes(), QByteArray("retried"));
    }

    // A layout that resembles Horizon's: its set names and negative scores,
    // but a job hash whose status no Horizon writes. It is shown read-only,
    // saying why, and a retry is refused with nothing written, though the
    // job it names looks retryable to the retry script.
    void horizonResemblingLayoutReadOnly()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        const QByteArray h = "tracker:";
        call(*c, {"ZADD", h + "recent_jobs", "-1700000100.5", "a", "-1700000090.5", "b"});
        call(*c, {"ZADD", h + "failed_jobs", "-1700000090.5", "b"});
        call(*c, {"HSET", h + "a", "status", "archived", "queue", "emails"});
        call(*c, {"HSET", h + "b", "status", "failed", "queue", "emails", "payload",
                  "{\"uuid\":\"b\",\"id\":\"b\",\"job\":\"App\\\\Jobs\\\\Run\","
                  "\"attempts\":1,\"data\":{}}"});

        const QJsonObject snap = snapshot(server);
        const QJsonArray horizon = queuesOf(snap, QStringLiteral("laravel-horizon"));
        QCOMPARE(horizon.size(), 1);
        const QJsonObject q = horizon.first().toObject();
        QCOMPARE(q[QStringLiteral("key")].toString(), QString::fromLatin1(h));
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        const QString message = q[QStringLiteral("message")].toString();
        QVERIFY2(message.contains(QLatin1String("status \"archived\""))
                     && message.contains(QLatin1String("read-only")),
                 qPrintable(message));

        const CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"),
                                        QString::fromLatin1(h), QStringLiteral("--job"),
                                        QStringLiteral("b"), QStringLiteral("--queue"), QueueKey});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("archived")), qPrintable(run.err + run.out));
        QCOMPARE(call(*c, {"EXISTS", QueueKey.toUtf8()}).toInteger(), qint64(0));
        QCOMPARE(call(*c, {"ZCARD", h + "recent_jobs"}).toInteger(), qint64(2));
        QCOMPARE(call(*c, {"HEXISTS", h + "b", "retried_by"}).toInteger(), qint64(0));
    }

    // Every other library's real state beside Horizon's bookkeeping and its
    // Laravel queue, among it two RQ queues named "recent_jobs" and
    // "failed_jobs": RQ's registries of them are sorted sets under one
    // prefix ("rq:finished:") with Horizon's set names, scored by expiry
    // time where Horizon scores by minus the time, and redis-semaphores
    // named "failed_jobs" and "recent_jobs" (sorted sets of Horizon's names
    // under "semaphore:", with the TTL every acquire sets). Horizon's prefix
    // alone is Horizon's; each other library's is shown as its own.
    void horizonNotTakenForOtherLibraries()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        gatehouse::test::OtherLibraries libraries(server, *c);
        libraries.laravel(QString::fromLatin1(Prefix), QStringLiteral("emails"));
        libraries.rq(QStringLiteral("recent_jobs"));
        libraries.rq(QStringLiteral("failed_jobs"));
        libraries.semaphore(QStringLiteral("failed_jobs"));
        libraries.semaphore(QStringLiteral("recent_jobs"));
        libraries.horizon("laravel_horizon:");
        libraries.rest();
        QVERIFY2(libraries.failures().isEmpty(), qPrintable(libraries.failures().join(u'\n')));
        for (const char *registry : {"rq:finished:recent_jobs", "rq:finished:failed_jobs"})
            QCOMPARE(call(*c, {"ZCARD", registry}).toInteger(), qint64(1));

        const QJsonObject snap = snapshot(server);
        QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("laravel-horizon")).join(u' '),
                 QStringLiteral("laravel_horizon:"));
        QCOMPARE(gatehouse::test::notShownAsTheirs(snap, libraries.planted()).join(u'\n'),
                 QString());
    }

    // Layouts that resemble Laravel's: a bare "queues:" list is not a
    // queue; one whose reserved set holds no Laravel payloads, or whose
    // reserved key is a hash, is shown read-only as unknown, and the release
    // script refuses it; other libraries' keys are not Laravel's.
    void resemblingLayouts()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        call(*c, {"RPUSH", "app:queues:bare", "x", "y"});
        call(*c, {"RPUSH", "queues:foreign", "not json"});
        call(*c, {"ZADD", "queues:foreign:reserved", "1", "member-1"});
        call(*c, {"RPUSH", "queues:typed:notify", "1"});
        call(*c, {"HSET", "queues:typed:reserved", "f", "v"});
        // Sidekiq's, RQ's and Bull's keys beside them.
        call(*c, {"SADD", "queues", "default"});
        call(*c, {"RPUSH", "queue:default", "{\"class\":\"W\",\"args\":[],\"jid\":\"j1\"}"});
        call(*c, {"SADD", "rq:queues", "rq:queue:default"});
        call(*c, {"RPUSH", "rq:queue:default", "job-1"});
        call(*c, {"RPUSH", "bull:mail:wait", "1"});
        call(*c, {"HSET", "bull:mail:1", "data", "{}", "opts", "{}", "name", "__default__"});
        call(*c, {"SET", "bull:mail:id", "1"});

        const QJsonObject snap = snapshot(server);
        QStringList laravel;
        QHash<QString, QJsonObject> byKey;
        for (const QJsonValue &q : queuesOf(snap, QStringLiteral("laravel-queue"))) {
            laravel << q[QStringLiteral("key")].toString();
            byKey.insert(q[QStringLiteral("key")].toString(), q.toObject());
        }
        laravel.sort();
        QCOMPARE(laravel, (QStringList{"queues:foreign", "queues:typed"}));
        for (const QJsonObject &q : std::as_const(byKey)) {
            QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
            QVERIFY(!q[QStringLiteral("keys")].toArray().isEmpty());
        }
        const CliRun run
            = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                           QStringLiteral("queues:foreign"), QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode != 0, qPrintable(run.out));
        QCOMPARE(call(*c, {"ZCARD", "queues:foreign:reserved"}).toInteger(), qint64(1));
        QCOMPARE(call(*c, {"LLEN", "queues:foreign"}).toInteger(), qint64(1));
    }
};

QTEST_GUILESS_MAIN(tst_LibLaravel)
#include "tst_lib_laravel.moc"
