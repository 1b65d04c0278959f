// SPDX-License-Identifier: MIT
// What a Redis user without TYPE, SCAN, key patterns or EVALSHA gets from
// gatehouse-cli: a note saying what is missing and what to grant, the
// machine-readable server.complete / server.permissions, and exit 1 rather
// than an empty success; EVALSHA refused falls back to EVAL.

#include <redis/redisclient.h>

#include "commandstats.h"
#include "redisserver.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

class tst_Permissions : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<RedisServer> m_server;
    std::unique_ptr<RedisClient> m_client;

    QString urlAs(const QString &user) const
    {
        QString url = m_server->url();
        return url.replace(QLatin1String("redis://"), QStringLiteral("redis://%1:pw@").arg(user));
    }

    CliRun cli(const QString &user, const QStringList &args)
    {
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                       QStringList{QStringLiteral("--url"), urlAs(user)} + args, {},
                                       60000);
    }

private slots:
    void initTestCase()
    {
        RedisServer::Options options;
        options.config << QStringLiteral("user default on nopass ~* &* +@all")
                       << QStringLiteral("user notype on nopass ~* &* +@all -type")
                       << QStringLiteral("user noscan on nopass ~* &* +@all -scan")
                       << QStringLiteral("user nokeys on nopass resetkeys &* +@all")
                       << QStringLiteral("user somekeys on nopass ~plain:* &* +@all")
                       << QStringLiteral("user noevalsha on nopass ~* &* +@all -evalsha")
                       << QStringLiteral("user noscripts on nopass ~* &* +@all -evalsha -eval")
                       << QStringLiteral("user norpush on nopass ~* &* +@all -rpush")
                       << QStringLiteral("user nowhoami on nopass ~* &* +@all -rpush "
                                         "-acl|whoami")
                       << QStringLiteral("user readqueue on nopass %R~* ~qa ~qa:claims &* +@all")
                       << QStringLiteral("user noevalro on nopass ~* &* +@all -eval_ro")
                       << QStringLiteral("user noevalronorpush on nopass ~* &* +@all -eval_ro "
                                         "-rpush")
                       << QStringLiteral("user noevalroscripts on nopass ~* &* +@all -eval_ro "
                                         "-evalsha -eval")
                       << QStringLiteral("user noevalroqueue on nopass %R~* ~qa:claims &* +@all "
                                         "-eval_ro")
                       << QStringLiteral("user nodelconsumer on nopass ~* &* +@all "
                                         "-xgroup|delconsumer")
                       << QStringLiteral("user notime on nopass ~* &* +@all -time")
                       << QStringLiteral("user nohmget on nopass ~* &* +@all -hmget");
        m_server = std::make_unique<RedisServer>(options);
        QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
        m_client = gatehouse::test::connectedClient(*m_server);
        QVERIFY(m_client);
    }

    void init()
    {
        call(*m_client, {"FLUSHALL"});
        call(*m_client, {"SET", "lock:orders", "a1b2c3d4e5f6", "PX", "60000"});
        for (int i = 0; i < 20; ++i)
            call(*m_client, {"SET", "plain:" + QByteArray::number(i), "x"});
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.reset();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void snapshot_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("note");
        QTest::addColumn<QString>("permission");
        QTest::addColumn<bool>("lockFound");

        QTest::newRow("all permissions") << "default" << 0 << QString() << QString() << true;
        QTest::newRow("no TYPE") << "notype" << 1
                                 << "This Redis user may not run TYPE (NOPERM): Gatehouse cannot "
                                    "tell what the 21 keys are; grant it with ACL SETUSER notype "
                                    "+type."
                                 << "type" << false;
        QTest::newRow("no SCAN") << "noscan" << 1
                                 << "This Redis user may not run SCAN (NOPERM): Gatehouse cannot "
                                    "list the 21 keys (DBSIZE); grant it with ACL SETUSER noscan "
                                    "+scan."
                                 << "scan" << false;
        QTest::newRow("no key patterns")
            << "nokeys" << 1
            << "This Redis user may read none of the 21 keys (NOPERM: its key patterns allow "
               "none of them); grant them with ACL SETUSER nokeys ~<pattern>"
            << "keys" << false;
        QTest::newRow("key patterns leave some out")
            << "somekeys" << 1
            << "This Redis user may not read 1 of the 21 keys (NOPERM: its key patterns leave "
               "them out), so they are not shown; grant them with ACL SETUSER somekeys ~<pattern>"
            << "keys" << false;
        QTest::newRow("no EVALSHA, EVAL allowed")
            << "noevalsha" << 0
            << "This Redis user may not run EVALSHA (NOPERM): actions send their scripts whole "
               "with EVAL instead; grant it with ACL SETUSER noevalsha +evalsha."
            << "evalsha" << true;
        QTest::newRow("neither EVALSHA nor EVAL")
            << "noscripts" << 0 << "This Redis user may run neither EVALSHA nor EVAL (NOPERM)"
            << "eval" << true;
    }

    // The snapshot says what it could not read and why, and a snapshot
    // that is missing keys is not a success; what could be read is printed.
    void snapshot()
    {
        QFETCH(QString, user);
        QFETCH(int, exitCode);
        QFETCH(QString, note);
        QFETCH(QString, permission);
        QFETCH(bool, lockFound);

        const CliRun run = cli(user, {QStringLiteral("snapshot"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == exitCode,
                 qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        const QJsonObject s = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QVERIFY2(!s.isEmpty(), qPrintable(run.out + run.err)); // printed even when incomplete
        const QJsonObject server = s.value(QLatin1String("server")).toObject();
        const QJsonArray permissions = server.value(QLatin1String("permissions")).toArray();
        const QString notes
            = QString::fromUtf8(QJsonDocument(server.value(QLatin1String("notes")).toArray())
                                    .toJson(QJsonDocument::Compact));
        QCOMPARE(server.value(QLatin1String("complete")).toBool(), exitCode == 0);
        if (permission.isEmpty()) {
            QVERIFY2(permissions.isEmpty(), qPrintable(notes));
            QVERIFY2(!notes.contains(QLatin1String("NOPERM")), qPrintable(notes));
        } else {
            QVERIFY2(permissions.contains(permission), qPrintable(notes));
            QVERIFY2(notes.contains(note), qPrintable(notes));
        }
        bool found = false;
        for (const QJsonValue &lock : s.value(QLatin1String("locks")).toArray())
            found |= lock.toObject().value(QLatin1String("key")).toString()
                     == QLatin1String("lock:orders");
        QCOMPARE(found, lockFound);
        if (exitCode != 0)
            QVERIFY2(run.err.contains(QLatin1String("NOPERM")), qPrintable(run.err));

        // The text form prints the same note.
        const CliRun text = cli(user, {QStringLiteral("snapshot")});
        QCOMPARE(text.exitCode, exitCode);
        if (!note.isEmpty())
            QVERIFY2(text.out.contains(note), qPrintable(text.out));
    }

    // profile suggest cannot suggest from keys it may not read: exit 1, the note.
    void suggestWithoutType()
    {
        const CliRun run
            = cli(QStringLiteral("notype"), {QStringLiteral("profile"), QStringLiteral("suggest")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QLatin1String("This Redis user may not run TYPE (NOPERM)")),
                 qPrintable(run.err));
    }

    // With a profile keys are found by name: the refused reads are the sign.
    void snapshotWithProfile()
    {
        const CliRun run
            = cli(QStringLiteral("nokeys"), {QStringLiteral("snapshot"), QStringLiteral("--json"),
                                             QStringLiteral("--profile"), QStringLiteral("seeds")});
        QVERIFY2(run.exitCode == 1,
                 qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        const QJsonObject server = QJsonDocument::fromJson(run.out.toUtf8())
                                       .object()
                                       .value(QLatin1String("server"))
                                       .toObject();
        QCOMPARE(server.value(QLatin1String("complete")).toBool(true), false);
        QVERIFY(
            server.value(QLatin1String("permissions")).toArray().contains(QLatin1String("keys")));
        const QString notes = QString::fromUtf8(
            QJsonDocument(server.value(QLatin1String("notes")).toArray()).toJson());
        QVERIFY2(notes.contains(QLatin1String("This Redis user may not read 1 of the 1 objects "
                                              "found (NOPERM")),
                 qPrintable(notes));
        QVERIFY2(run.err.contains(QLatin1String("ACL SETUSER nokeys")), qPrintable(run.err));
    }

    // EVALSHA refused, EVAL allowed: the action runs through EVAL.
    void actionFallsBackToEval()
    {
        const qint64 evalsBefore = test::commandStat(*m_client, "eval");
        const qint64 refusedBefore = test::commandStat(*m_client, "evalsha", "rejected_calls");
        const CliRun run
            = cli(QStringLiteral("noevalsha"),
                  {QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("lock:orders"),
                   QStringLiteral("--token"), QStringLiteral("a1b2c3d4e5f6")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:orders"}).toInteger(), 0);
        QVERIFY(test::commandStat(*m_client, "eval") > evalsBefore);
        QVERIFY(test::commandStat(*m_client, "evalsha", "rejected_calls") > refusedBefore);
    }

    // A job whose record this user may not read is not shown as an empty
    // job: the refusal is said, and the exit is not 0.
    void jobRecordRefused()
    {
        call(*m_client, {"HSET", "bull:orders:meta", "version", "bullmq:5.0.0"});
        call(*m_client, {"RPUSH", "bull:orders:wait", "23"});
        call(*m_client, {"HSET", "bull:orders:23", "name", "send", "data", "{\"n\":1}", "timestamp",
                         "1700000000000"});
        const CliRun run
            = cli(QStringLiteral("nohmget"), {QStringLiteral("queue"), QStringLiteral("job"),
                                              QStringLiteral("bull:orders"), QStringLiteral("23")});
        QVERIFY2(run.exitCode == 1, qPrintable(run.out + run.err));
        QVERIFY2(run.err.contains(QLatin1String("Cannot read job 23"))
                     && run.err.contains(QLatin1String("NOPERM")),
                 qPrintable(run.err));
        // A queue whose keys the user may not read at all: that is said
        // (exit 1), not "is not a queue".
        const CliRun search = cli(QStringLiteral("somekeys"),
                                  {QStringLiteral("queue"), QStringLiteral("search"),
                                   QStringLiteral("bull:orders"), QStringLiteral("send")});
        QCOMPARE(search.exitCode, 1);
        QVERIFY2(search.err.contains(QLatin1String("Cannot tell what \"bull:orders\" is: this "
                                                   "Redis user may not read its keys")),
                 qPrintable(search.err));
    }

    // A user without TIME: the snapshot's time is the local clock (as its
    // note says), not 1970, and a lock's TTL is what the server holds; an
    // action is refused before anything is sent, saying what to grant.
    void withoutTime()
    {
        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        const CliRun snap
            = cli(QStringLiteral("notime"), {QStringLiteral("snapshot"), QStringLiteral("--json")});
        QVERIFY2(snap.exitCode == 0, qPrintable(snap.err));
        const QJsonObject o = QJsonDocument::fromJson(snap.out.toUtf8()).object();
        const QJsonObject server = o.value(QLatin1String("server")).toObject();
        const qint64 timeMs = qint64(server.value(QLatin1String("timeMs")).toDouble());
        QVERIFY2(timeMs >= before - 1000 && timeMs <= QDateTime::currentMSecsSinceEpoch() + 1000,
                 qPrintable(QString::number(timeMs)));
        QVERIFY2(snap.out.contains(QLatin1String("TIME is not permitted")), qPrintable(snap.out));
        bool found = false;
        for (const QJsonValue &v : o.value(QLatin1String("locks")).toArray()) {
            const QJsonObject lock = v.toObject();
            if (lock.value(QLatin1String("key")).toString() != QLatin1String("lock:orders"))
                continue;
            found = true;
            const double pttl = lock.value(QLatin1String("pttlMs")).toDouble();
            const qint64 truth = call(*m_client, {"PTTL", "lock:orders"}).toInteger();
            QVERIFY2(pttl > 0 && std::abs(pttl - double(truth)) < 5000,
                     qPrintable(QStringLiteral("%1 vs %2").arg(pttl).arg(truth)));
        }
        QVERIFY(found);
        const CliRun run
            = cli(QStringLiteral("notime"),
                  {QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("lock:orders"),
                   QStringLiteral("--token"), QStringLiteral("a1b2c3d4e5f6")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QLatin1String("no permissions to run the 'time' command. "
                                                "Actions need TIME, EVAL and EVALSHA: ACL "
                                                "SETUSER notime +time +eval +evalsha")),
                 qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("Nothing was sent.")), qPrintable(run.err));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:orders"}).toInteger(), 1);
    }

    // Neither EVALSHA nor EVAL: the refusal names EVAL, not "write access".
    void actionWithoutScripts()
    {
        const CliRun run
            = cli(QStringLiteral("noscripts"),
                  {QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("lock:orders"),
                   QStringLiteral("--token"), QStringLiteral("a1b2c3d4e5f6")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QLatin1String("EVAL")), qPrintable(run.err));
        QVERIFY2(!run.err.contains(QLatin1String("write access")), qPrintable(run.err));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:orders"}).toInteger(), 1);
    }

    // A script the user may start but whose commands it may not all run
    // would stop half-way, keeping what it wrote before the refused one: the
    // requeue's LREM without its RPUSH loses the job. The rights are asked
    // first (redis.acl_check_cmd in a read-only script), and nothing is sent.
    // Where the server cannot check the commands inside a script (EVAL_RO
    // refused, as before Redis 7.0), the script call itself is still asked,
    // by probes the ACL checks and that then run nothing: a user refused the
    // call is refused the same way.
    void actionRefusedBeforeAnythingIsSent_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<bool>("withoutAclCheck");
        QTest::addColumn<QString>("says");
        QTest::newRow("a command the script calls")
            << "norpush" << false
            << "Refused: the Redis user \"norpush\" may not run RPUSH (which queue.requeue "
               "calls)";
        // ACL WHOAMI refused too: the user is the one the URL names.
        QTest::newRow("a command the script calls, WHOAMI refused")
            << "nowhoami" << false
            << "Refused: the Redis user \"nowhoami\" may not run RPUSH (which queue.requeue "
               "calls)";
        // EVAL_RO refused (an ACL that grants EVAL but not EVAL_RO, as an
        // operator's often does): asked with EVAL, and refused the same.
        QTest::newRow("EVAL_RO refused: a command the script calls")
            << "noevalronorpush" << false
            << "Refused: the Redis user \"noevalronorpush\" may not run RPUSH (which "
               "queue.requeue calls)";
        QTest::newRow("a key the script is given, read-only")
            << "readqueue" << false
            << "Refused: the Redis user \"readqueue\" may run neither EVALSHA nor EVAL with the "
               "keys of queue.requeue (\"qa\", \"qa:processing\", \"qa:claims\")";
        QTest::newRow("EVAL_RO refused: neither EVALSHA nor EVAL")
            << "noevalroscripts" << true
            << "Refused: the Redis user \"noevalroscripts\" may run neither EVALSHA nor EVAL, "
               "which every action script needs (queue.requeue)";
        QTest::newRow("EVAL_RO refused: a key the script is given, read-only")
            << "noevalroqueue" << true
            << "Refused: the Redis user \"noevalroqueue\" may run neither EVALSHA nor EVAL with "
               "the keys of queue.requeue (\"qa\", \"qa:processing\", \"qa:claims\")";
    }
    void actionRefusedBeforeAnythingIsSent()
    {
        QFETCH(QString, user);
        QFETCH(bool, withoutAclCheck);
        QFETCH(QString, says);
        call(*m_client, {"RPUSH", "qa:processing", "jobA"});
        // Scripts sent, and those that ran to their end: the probes without
        // the ACL check fail (NOSCRIPT, a script that does not compile) or
        // are refused (NOPERM).
        const auto scriptsSent = [this] {
            return test::commandStat(*m_client, "evalsha") + test::commandStat(*m_client, "eval");
        };
        const auto scriptsRun = [this, &scriptsSent] {
            return scriptsSent() - test::commandStat(*m_client, "evalsha", "failed_calls")
                   - test::commandStat(*m_client, "eval", "failed_calls");
        };
        const qint64 sentBefore = scriptsSent();
        const qint64 runBefore = scriptsRun();
        const qint64 refusedBefore = test::commandStat(*m_client, "eval_ro", "rejected_calls");
        const CliRun run
            = cli(user, {QStringLiteral("queue"), QStringLiteral("requeue"), QStringLiteral("qa"),
                         QStringLiteral("--job"), QStringLiteral("jobA")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(says), qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("Nothing was sent")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("ACL SETUSER ") + user), qPrintable(run.err));
        QCOMPARE(call(*m_client, {"LRANGE", "qa:processing", "0", "-1"}).size(), 1);
        QCOMPARE(call(*m_client, {"EXISTS", "qa"}).toInteger(), 0);
        if (withoutAclCheck) {
            // The full check was tried first and refused; no script ran,
            // and the EVAL probe's source (it does not compile) is not in
            // the server's script cache.
            QVERIFY(test::commandStat(*m_client, "eval_ro", "rejected_calls") > refusedBefore);
            QCOMPARE(scriptsRun(), runBefore);
            const QByteArray probeSha
                = QCryptographicHash::hash("gatehouse rights probe: not a script",
                                           QCryptographicHash::Sha1)
                      .toHex();
            QCOMPARE(call(*m_client, {"SCRIPT", "EXISTS", probeSha}).at(0).toInteger(), 0);
        } else if (user.startsWith(QLatin1String("noevalro"))) {
            // The check itself, and nothing else: one EVAL, of the check's
            // script, which calls no command.
            QCOMPARE(scriptsSent(), sentBefore + 1);
        } else {
            // No script was sent (the rights check is an EVAL_RO of its own).
            QCOMPARE(scriptsSent(), sentBefore);
        }
        // The same action's dry run says it would be refused.
        const CliRun dry = cli(user, {QStringLiteral("--dry-run"), QStringLiteral("queue"),
                                      QStringLiteral("requeue"), QStringLiteral("qa"),
                                      QStringLiteral("--job"), QStringLiteral("jobA")});
        QVERIFY2(QString(dry.err + dry.out).contains(QLatin1String("it would be refused")),
                 qPrintable(dry.out + dry.err));
        QCOMPARE(call(*m_client, {"LRANGE", "qa:processing", "0", "-1"}).size(), 1);
    }

    // With every right, the same requeue moves the job; where the server
    // cannot say (EVAL_RO refused), the action runs as before and the server's
    // own NOPERM is the answer.
    void actionAllowedOrUnknownRuns()
    {
        call(*m_client, {"RPUSH", "qa:processing", "jobA"});
        const CliRun run
            = cli(QStringLiteral("default"),
                  {QStringLiteral("queue"), QStringLiteral("requeue"), QStringLiteral("qa"),
                   QStringLiteral("--job"), QStringLiteral("jobA")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        QCOMPARE(call(*m_client, {"LRANGE", "qa", "0", "-1"}).size(), 1);
        QCOMPARE(call(*m_client, {"EXISTS", "qa:processing"}).toInteger(), 0);

        call(*m_client, {"FLUSHALL"});
        call(*m_client, {"SET", "lock:orders", "a1b2c3d4e5f6", "PX", "60000"});
        const CliRun unknown
            = cli(QStringLiteral("noevalro"),
                  {QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("lock:orders"),
                   QStringLiteral("--token"), QStringLiteral("a1b2c3d4e5f6")});
        QVERIFY2(unknown.exitCode == 0, qPrintable(unknown.out + unknown.err));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:orders"}).toInteger(), 0);
    }

    // A container command's subcommand is what the ACL allows or refuses
    // (XGROUP DELCONSUMER): checked as such, the consumer stays.
    void subcommandRefusedBeforeAnythingIsSent()
    {
        call(*m_client, {"XADD", "orders:stream", "*", "n", "1"});
        call(*m_client, {"XGROUP", "CREATE", "orders:stream", "workers", "$"});
        call(*m_client, {"XGROUP", "CREATECONSUMER", "orders:stream", "workers", "w1"});
        const CliRun run
            = cli(QStringLiteral("nodelconsumer"),
                  {QStringLiteral("queue"), QStringLiteral("delete-consumer"),
                   QStringLiteral("orders:stream"), QStringLiteral("--group"),
                   QStringLiteral("workers"), QStringLiteral("--consumer"), QStringLiteral("w1")});
        QCOMPARE(run.exitCode, 1);
        // Refused whatever the key: the grant is the subcommand alone.
        QVERIFY2(run.err.contains(QLatin1String("may not run XGROUP|DELCONSUMER (which")),
                 qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("ACL SETUSER nodelconsumer +xgroup|delconsumer)")),
                 qPrintable(run.err));
        QCOMPARE(call(*m_client, {"XINFO", "CONSUMERS", "orders:stream", "workers"}).size(), 1);
    }
};

QTEST_GUILESS_MAIN(tst_Permissions)
#include "tst_permissions.moc"
