// SPDX-License-Identifier: MIT
// asynq (Go, github.com/hibiken/asynq) cannot be installed here, so its
// state is written by AsynqState below, command for command as asynq
// v0.25.1 writes it (read from its source, not run):
//   internal/base/base.go   key names (QueueKeyPrefix .. FailedKey, lines 105-186)
//   internal/rdb/rdb.go     Enqueue: SADD asynq:queues + enqueueCmd (98-140),
//                           Dequeue: dequeueCmd (227-242), Done: doneCmd (285-316),
//                           MarkAsComplete: markAsCompleteCmd (382-417),
//                           Schedule: scheduleCmd (647-656), Retry: retryCmd (772-802),
//                           Archive: archiveCmd (861-904), WriteServerState (1379-1414)
//   internal/proto/asynq.proto  TaskMessage's field numbers (the "msg" field)
// A worker "killed mid-task" is a task Dequeue moved to active whose lease
// nobody extends (the server's heartbeater stops with its process). The
// counts are compared with what asynq's Inspector.GetQueueInfo reads
// (currentStatsCmd in internal/rdb/inspect.go, lines 80-137: LLEN/ZCARD of
// each state, GET of the day's and the total counters), read here with the
// same commands.
#include <monitor/jobbrowser.h>
#include <patterns/asynq/asynqunit.h>
#include <redis/redisclient.h>

#include "librarytest.h"
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

// protobuf wire format: a varint, and a field of either kind.
QByteArray varint(quint64 v)
{
    QByteArray out;
    do {
        quint8 b = v & 0x7f;
        v >>= 7;
        if (v)
            b |= 0x80;
        out.append(char(b));
    } while (v);
    return out;
}
QByteArray field(int number, const QByteArray &bytes)
{
    return varint(quint64(number) << 3 | 2) + varint(quint64(bytes.size())) + bytes;
}
QByteArray field(int number, qint64 v)
{
    return varint(quint64(number) << 3) + varint(quint64(v));
}

// asynq's TaskMessage (asynq.proto: type 1, payload 2, id 3, queue 4,
// retry 5, retried 6, timeout 8).
QByteArray taskMessage(const QByteArray &id, const QByteArray &queue, const QByteArray &type)
{
    return field(1, type) + field(2, QByteArray(R"({"user":42})")) + field(3, id) + field(4, queue)
           + field(5, qint64(25)) + field(8, qint64(1800));
}

struct AsynqState
{
    RedisServer server;
    std::unique_ptr<RedisClient> client;
    qint64 now = 0; // server time, s

    bool start()
    {
        if (!server.start())
            return false;
        client = gatehouse::test::connectedClient(server);
        if (!client)
            return false;
        now = call({"TIME"}).at(0).bytes().toLongLong();
        return true;
    }
    RedisValue call(const QList<QByteArray> &command)
    {
        return gatehouse::test::call(*client, command);
    }
    static QByteArray q(const QByteArray &queue) { return "asynq:{" + queue + "}:"; }
    QByteArray day() const
    {
        return QDateTime::fromSecsSinceEpoch(now, Qt::UTC)
            .toString(QStringLiteral("yyyy-MM-dd"))
            .toLatin1();
    }
    // RDB.Enqueue
    void enqueue(const QByteArray &queue, const QByteArray &id)
    {
        call({"SADD", "asynq:queues", queue});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "email:send"), "state",
              "pending", "pending_since", QByteArray::number(now * 1000000000LL)});
        call({"LPUSH", q(queue) + "pending", id});
    }
    // RDB.Dequeue: the lease runs 30 s from the dequeue (rdb.LeaseDuration).
    QByteArray dequeue(const QByteArray &queue, qint64 leaseExpiry)
    {
        const QByteArray id
            = call({"RPOPLPUSH", q(queue) + "pending", q(queue) + "active"}).bytes();
        call({"HSET", q(queue) + "t:" + id, "state", "active"});
        call({"HDEL", q(queue) + "t:" + id, "pending_since"});
        call({"ZADD", q(queue) + "lease", QByteArray::number(leaseExpiry), id});
        return id;
    }
    void stats(const QByteArray &queue, bool failed)
    {
        const QByteArray expireAt = QByteArray::number(now + 90 * 24 * 3600);
        for (const QByteArray &k :
             failed ? QList<QByteArray>{"processed", "failed"} : QList<QByteArray>{"processed"}) {
            if (call({"INCR", q(queue) + k + ":" + day()}).toInteger() == 1)
                call({"EXPIREAT", q(queue) + k + ":" + day(), expireAt});
            call({"INCR", q(queue) + k});
        }
    }
    void leave(const QByteArray &queue, const QByteArray &id)
    {
        call({"LREM", q(queue) + "active", "0", id});
        call({"ZREM", q(queue) + "lease", id});
    }
    // RDB.Done (no retention: the task hash is deleted)
    void done(const QByteArray &queue, const QByteArray &id)
    {
        leave(queue, id);
        call({"DEL", q(queue) + "t:" + id});
        stats(queue, false);
    }
    // RDB.MarkAsComplete (with retention)
    void complete(const QByteArray &queue, const QByteArray &id)
    {
        leave(queue, id);
        call({"ZADD", q(queue) + "completed", QByteArray::number(now + 3600), id});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "email:send"), "state",
              "completed"});
        stats(queue, false);
    }
    // RDB.Retry (a failure)
    void retry(const QByteArray &queue, const QByteArray &id)
    {
        leave(queue, id);
        call({"ZADD", q(queue) + "retry", QByteArray::number(now + 60), id});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "email:send"), "state",
              "retry"});
        stats(queue, true);
    }
    // RDB.Archive
    void archive(const QByteArray &queue, const QByteArray &id)
    {
        leave(queue, id);
        call({"ZADD", q(queue) + "archived", QByteArray::number(now), id});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "email:send"), "state",
              "archived"});
        stats(queue, true);
    }
    // RDB.Schedule
    void schedule(const QByteArray &queue, const QByteArray &id)
    {
        call({"SADD", "asynq:queues", queue});
        call({"HSET", q(queue) + "t:" + id, "msg", taskMessage(id, queue, "report:daily"), "state",
              "scheduled"});
        call({"ZADD", q(queue) + "scheduled", QByteArray::number(now + 3600), id});
    }
    // RDB.WriteServerState: info and workers expire with the TTL (s).
    void writeServerState(const QByteArray &name, qint64 ttl)
    {
        const QByteArray skey = "asynq:servers:{" + name + "}";
        const QByteArray wkey = "asynq:workers:{" + name + "}";
        call({"ZADD", "asynq:servers", QByteArray::number(now + ttl), skey});
        call({"ZADD", "asynq:workers", QByteArray::number(now + ttl), wkey});
        call({"SETEX", skey, QByteArray::number(ttl), field(1, QByteArray("host"))});
        call({"HSET", wkey, "w1", field(1, QByteArray("host"))});
        call({"EXPIRE", wkey, QByteArray::number(ttl)});
    }
    // What Inspector.GetQueueInfo reads (currentStatsCmd), by its field names.
    QJsonObject queueInfo(const QByteArray &queue)
    {
        auto n = [this](const QList<QByteArray> &c) {
            return double(call(c).toInteger());
        };
        auto g = [this](const QByteArray &k) {
            const RedisValue v = call({"GET", k});
            return v.isNil() ? 0.0 : v.bytes().toDouble();
        };
        return {{QStringLiteral("pending"), n({"LLEN", q(queue) + "pending"})},
                {QStringLiteral("active"), n({"LLEN", q(queue) + "active"})},
                {QStringLiteral("scheduled"), n({"ZCARD", q(queue) + "scheduled"})},
                {QStringLiteral("retry"), n({"ZCARD", q(queue) + "retry"})},
                {QStringLiteral("archived"), n({"ZCARD", q(queue) + "archived"})},
                {QStringLiteral("completed"), n({"ZCARD", q(queue) + "completed"})},
                {QStringLiteral("processed"), g(q(queue) + "processed:" + day())},
                {QStringLiteral("failed"), g(q(queue) + "failed:" + day())},
                {QStringLiteral("processedTotal"), g(q(queue) + "processed")},
                {QStringLiteral("failedTotal"), g(q(queue) + "failed")}};
    }
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
    // The default queue: 2 done, 1 completed, 1 retried, 1 archived, 1
    // scheduled, 3 pending, and 2 active: "live" (lease ahead) and
    // "killed-1" (its worker was killed: lease expired 90 s ago).
    void populate()
    {
        for (const char *id : {"done-1", "done-2", "completed-1", "retry-1", "archived-1",
                               "killed-1", "live-1", "pending-1", "pending-2", "pending-3"})
            enqueue("default", id);
        done("default", dequeue("default", now + 30));
        done("default", dequeue("default", now + 30));
        complete("default", dequeue("default", now + 30));
        retry("default", dequeue("default", now + 30));
        archive("default", dequeue("default", now + 30));
        QCOMPARE(dequeue("default", now - 90), QByteArray("killed-1"));
        QCOMPARE(dequeue("default", now + 25), QByteArray("live-1"));
        schedule("default", "scheduled-1");
        enqueue("critical", "crit-1");
        writeServerState("host:4242:srv-a", 16);
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
