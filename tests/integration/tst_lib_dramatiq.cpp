// SPDX-License-Identifier: MIT
// Dramatiq's Redis broker cannot be installed here, so its state is written
// by DramatiqState below, command for command as Dramatiq 1.17.1's
// dramatiq/brokers/redis/dispatch.lua writes it (read from its source, not
// run): every call ZADDs the caller's id to "<ns>:__heartbeats__" with the
// time in ms (lines 54-56); "enqueue" HSETs "<q>.msgs" and RPUSHes "<q>"
// (151-157); "fetch" LPOPs ids and SADDs them to
// "<ns>:__acks__.<worker>.<q>" (160-177); "ack" SREMs and HDELs (194-200);
// "nack" SREMs, ZADDs "<q>.XQ" and moves the message to "<q>.XQ.msgs"
// (203-215). The messages are Message.encode's JSON (dramatiq/message.py)
// with the broker's "redis_message_id" option (brokers/redis.py, enqueue,
// lines 154-188; a delayed message goes to "<q>.DQ" with an "eta"). A
// worker "killed mid-message" is one whose heartbeat stopped with messages
// in its ack set; dispatch.lua's maintenance (114-146) is the rule that
// makes them orphans.
#include <monitor/jobbrowser.h>
#include <patterns/dramatiq/dramatiqunit.h>
#include <redis/redisclient.h>

#include "librarytest.h"
#include "redisserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

struct DramatiqState
{
    RedisServer server;
    std::unique_ptr<RedisClient> client;
    qint64 nowMs = 0; // server time

    bool start()
    {
        if (!server.start())
            return false;
        client = gatehouse::test::connectedClient(server);
        if (!client)
            return false;
        const RedisValue t = call({"TIME"});
        nowMs = t.at(0).bytes().toLongLong() * 1000 + t.at(1).bytes().toLongLong() / 1000;
        return true;
    }
    RedisValue call(const QList<QByteArray> &command)
    {
        return gatehouse::test::call(*client, command);
    }
    void beat(const QByteArray &worker, qint64 atMs)
    {
        call({"ZADD", "dramatiq:__heartbeats__", QByteArray::number(atMs), worker});
    }
    static QByteArray message(const QByteArray &rid, const QByteArray &queue, qint64 eta = -1)
    {
        QJsonObject options{{QStringLiteral("redis_message_id"), QString::fromUtf8(rid)}};
        if (eta >= 0)
            options.insert(QStringLiteral("eta"), double(eta));
        QJsonObject m;
        m.insert(QStringLiteral("queue_name"), QString::fromUtf8(queue));
        m.insert(QStringLiteral("actor_name"), QStringLiteral("send_email"));
        m.insert(QStringLiteral("args"), QJsonArray{42});
        m.insert(QStringLiteral("kwargs"), QJsonObject());
        m.insert(QStringLiteral("options"), options);
        m.insert(QStringLiteral("message_id"),
                 QString(QStringLiteral("msg-") + QString::fromUtf8(rid)));
        m.insert(QStringLiteral("message_timestamp"), 1700000000000.0);
        return QJsonDocument(m).toJson(QJsonDocument::Compact);
    }
    void enqueue(const QByteArray &rid, bool delayed = false)
    {
        const QByteArray queue = delayed ? "default.DQ" : "default";
        beat("producer-1", nowMs);
        call({"HSET", "dramatiq:" + queue + ".msgs", rid,
              message(rid, queue, delayed ? nowMs + 3600000 : -1)});
        call({"RPUSH", "dramatiq:" + queue, rid});
    }
    QList<QByteArray> fetch(const QByteArray &worker, const QByteArray &queue, int n, qint64 atMs)
    {
        beat(worker, atMs);
        QList<QByteArray> ids;
        for (int i = 0; i < n; ++i) {
            const RedisValue id = call({"LPOP", "dramatiq:" + queue});
            if (id.isNil())
                break;
            ids << id.bytes();
            call({"SADD", "dramatiq:__acks__." + worker + "." + queue, id.bytes()});
        }
        return ids;
    }
    void nack(const QByteArray &worker, const QByteArray &id)
    {
        beat(worker, nowMs);
        if (call({"SREM", "dramatiq:__acks__." + worker + ".default", id}).toInteger() > 0) {
            const QByteArray m = call({"HGET", "dramatiq:default.msgs", id}).bytes();
            call({"ZADD", "dramatiq:default.XQ", QByteArray::number(nowMs), id});
            call({"HSET", "dramatiq:default.XQ.msgs", id, m});
            call({"HDEL", "dramatiq:default.msgs", id});
        }
    }
    QList<QByteArray> list(const QByteArray &key)
    {
        QList<QByteArray> out;
        const RedisValue range = call({"LRANGE", key, "0", "-1"});
        for (const RedisValue &v : range.elements())
            out << v.bytes();
        return out;
    }
    CliRun cli(const QStringList &args)
    {
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, args);
    }
    QJsonObject queue()
    {
        const QJsonObject snap = gatehouse::test::snapshotOf(cli({"snapshot", "--json"}));
        for (const QJsonValue &v : snap[QStringLiteral("queues")].toArray()) {
            if (v[QStringLiteral("key")].toString() == QLatin1String("dramatiq:default"))
                return v.toObject();
        }
        return {};
    }
    CliRun act(const QString &verb, const QStringList &more)
    {
        return cli(QStringList{QStringLiteral("queue"), verb, QStringLiteral("dramatiq:default")}
                   + more);
    }
    // m1..m7 on "default", d1 and d2 delayed; worker-a (alive) holds m1 and
    // dead-lettered m4 and m5; worker-b, whose heartbeat stopped 2 min ago,
    // holds m2, m3 and d1.
    void populate()
    {
        for (const char *id : {"m1", "m2", "m3", "m4", "m5", "m6", "m7"})
            enqueue(id);
        enqueue("d1", true);
        enqueue("d2", true);
        fetch("worker-a", "default", 1, nowMs);
        fetch("worker-b", "default", 2, nowMs - 120000);
        fetch("worker-b", "default.DQ", 1, nowMs - 120000);
        fetch("worker-a", "default", 2, nowMs);
        nack("worker-a", "m4");
        nack("worker-a", "m5");
    }
};

} // namespace

class tst_LibDramatiq : public QObject
{
    Q_OBJECT

private slots:
    void figuresAndOrphans()
    {
        DramatiqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        const QJsonObject snap = gatehouse::test::snapshotOf(s.cli({"snapshot", "--json"}));
        QCOMPARE(snap[QStringLiteral("queues")].toArray().size(), 1);
        QCOMPARE(gatehouse::test::objectsBesides(snap, QStringLiteral("dramatiq:default")),
                 QStringList());
        const QJsonObject q = s.queue();
        QCOMPARE(q[QStringLiteral("pattern")].toString(), QStringLiteral("dramatiq"));
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        const QJsonObject counts = q[QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("enqueued")].toInt(), 2);
        QCOMPARE(counts[QStringLiteral("delayed")].toInt(), 1);
        QCOMPARE(counts[QStringLiteral("unacked")].toInt(), 4);
        QCOMPARE(counts[QStringLiteral("dead")].toInt(), 2);
        QCOMPARE(counts[QStringLiteral("orphaned")].toInt(), 3);
        // The messages hash holds enqueued and unacked (Dramatiq HDELs on ack).
        QCOMPARE(s.call({"HLEN", "dramatiq:default.msgs"}).toInteger(), 2 + 3);
        QStringList stuck;
        for (const QJsonValue &v : q[QStringLiteral("stuck")].toArray()) {
            stuck << v[QStringLiteral("job")].toString();
            QVERIFY(v[QStringLiteral("reason")].toString().contains(QLatin1String("worker-b")));
        }
        stuck.sort();
        QCOMPARE(stuck, (QStringList{"d1", "m2", "m3"}));
        // The job browser's page of dead letters, newest first (ties by id).
        JobBrowser browser(s.client.get());
        QSignalSpy listed(&browser, &JobBrowser::listed);
        QVERIFY(browser.listJobs(DramatiqUnit::objectForName("default"), QStringLiteral("dead"), 0,
                                 10));
        QVERIFY(listed.wait(5000));
        const JobListing page = listed.first().first().value<JobListing>();
        QCOMPARE(page.total, 2);
        QCOMPARE(page.rows.size(), qsizetype(2));
        QMap<QString, int> perWorker;
        for (const QJsonValue &w : q[QStringLiteral("workers")].toArray())
            perWorker[w[QStringLiteral("worker")].toString()]
                = w[QStringLiteral("unacked")].toInt();
        QCOMPARE(perWorker.value(QStringLiteral("worker-a")), 1);
        QCOMPARE(perWorker.value(QStringLiteral("worker-b")), 3);
    }

    void requeueOrphansAndRetryDeadLetters()
    {
        DramatiqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        // A live worker's message is not an orphan.
        CliRun run
            = s.act(QStringLiteral("requeue"), {QStringLiteral("--job"), QStringLiteral("m1")});
        QCOMPARE(run.exitCode, 3);
        run = s.act(QStringLiteral("requeue"), {QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        // Behind what was queued, in the ack set's order (SMEMBERS, as Dramatiq's).
        QList<QByteArray> queued = s.list("dramatiq:default");
        QCOMPARE(queued.mid(0, 2), (QList<QByteArray>{"m6", "m7"}));
        std::sort(queued.begin() + 2, queued.end());
        QCOMPARE(queued, (QList<QByteArray>{"m6", "m7", "m2", "m3"}));
        QCOMPARE(s.list("dramatiq:default.DQ"), (QList<QByteArray>{"d2", "d1"}));
        QCOMPARE(s.call({"EXISTS", "dramatiq:__acks__.worker-b.default",
                         "dramatiq:__acks__.worker-b.default.DQ"})
                     .toInteger(),
                 0);
        QCOMPARE(s.call({"SMEMBERS", "dramatiq:__acks__.worker-a.default"}).size(), 1);
        QCOMPARE(s.queue()[QStringLiteral("counts")][QStringLiteral("orphaned")].toInt(), 0);

        run = s.act(QStringLiteral("retry"), {QStringLiteral("--all")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(s.call({"ZCARD", "dramatiq:default.XQ"}).toInteger(), 0);
        QCOMPARE(s.call({"HLEN", "dramatiq:default.XQ.msgs"}).toInteger(), 0);
        queued = s.list("dramatiq:default");
        QCOMPARE(queued.mid(4), (QList<QByteArray>{"m4", "m5"})); // the oldest dead letter first
        QCOMPARE(s.call({"HEXISTS", "dramatiq:default.msgs", "m4"}).toInteger(), 1);
    }

    // A resembling layout: a "dramatiq:" messages hash whose values are not
    // Dramatiq's messages is read-only and refused; a lone "dramatiq:" list
    // without messages or heartbeats is an application's.
    void resemblingLayoutReadOnly()
    {
        DramatiqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.enqueue("m1");
        s.call({"HSET", "dramatiq:default.XQ.msgs", "x1", R"({"job":"not dramatiq"})"});
        s.call({"ZADD", "dramatiq:default.XQ", QByteArray::number(s.nowMs), "x1"});
        s.call({"RPUSH", "dramatiq:plain", "a", "b"});
        const QJsonObject snap = gatehouse::test::snapshotOf(s.cli({"snapshot", "--json"}));
        int dramatiq = 0;
        for (const QJsonValue &v : snap[QStringLiteral("queues")].toArray())
            dramatiq += v[QStringLiteral("pattern")].toString() == QLatin1String("dramatiq");
        QCOMPARE(dramatiq, 1);
        const QJsonObject q = s.queue();
        QCOMPARE(q[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        const CliRun run = s.act(QStringLiteral("retry"), {QStringLiteral("--all")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(s.call({"ZCARD", "dramatiq:default.XQ"}).toInteger(), 1);
        QCOMPARE(s.list("dramatiq:default"), QList<QByteArray>{"m1"});
    }
};

QTEST_GUILESS_MAIN(tst_LibDramatiq)
#include "tst_lib_dramatiq.moc"
