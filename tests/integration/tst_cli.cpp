// SPDX-License-Identifier: MIT
// gatehouse-cli snapshot, profile suggest and every action, as scripts use
// them: exit codes, JSON, effects in a real redis-server, the audit log.
#include <actions/actionengine.h>
#include <patterns/lock/lockunit.h>
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

class tst_Cli : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server{[] {
        RedisServer::Options o;
        o.config << QStringLiteral("user default on nopass ~* &* +@all")
                 << QStringLiteral("user reader on >readerpw ~* &* +@read +@connection +time "
                                   "-info -config");
        return o;
    }()};
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    QString auditPath() const { return m_dir.filePath(QStringLiteral("audit.jsonl")); }

    CliRun cli(QStringList args, const QString &url = {})
    {
        args.prepend(url.isEmpty() ? m_server.url() : url);
        args.prepend(QStringLiteral("--url"));
        QProcessEnvironment env;
        env.insert(QStringLiteral("GATEHOUSE_AUDIT_LOG"), auditPath());
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, env, 60000);
    }

    QJsonObject snapshotJson(const QStringList &extra = {})
    {
        const CliRun run
            = cli(QStringList{QStringLiteral("snapshot"), QStringLiteral("--json")} + extra);
        if (run.exitCode != 0)
            qWarning("snapshot failed: %s", qPrintable(run.err));
        return QJsonDocument::fromJson(run.out.toUtf8()).object();
    }

    QJsonObject lastAudit()
    {
        QFile f(auditPath());
        if (!f.open(QIODevice::ReadOnly))
            return {};
        const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        return QJsonDocument::fromJson(lines.last()).object();
    }

    static QJsonObject entry(const QJsonObject &snapshot, const char *section,
                             const QJsonValue &key)
    {
        for (const QJsonValue &v : snapshot.value(QLatin1String(section)).toArray()) {
            if (v.toObject().value(QLatin1String("key")) == key)
                return v.toObject();
        }
        return {};
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void init() { QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK")); }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // After simulate, snapshot --json shows every structure with its figures.
    void snapshotAfterSimulate()
    {
        QCOMPARE(cli({QStringLiteral("simulate"), QStringLiteral("--seconds"), QStringLiteral("3"),
                      QStringLiteral("--scale"), QStringLiteral("2")})
                     .exitCode,
                 0);
        for (const QStringList &extra :
             {QStringList{}, QStringList{QStringLiteral("--profile"), QStringLiteral("demo")}}) {
            const QJsonObject s = snapshotJson(extra);
            // docs/json-schema.md: raising it is a documented change.
            QCOMPARE(s.value(QLatin1String("schemaVersion")).toInteger(), 3);
            const QJsonObject server = s.value(QLatin1String("server")).toObject();
            QCOMPARE(server.value(QLatin1String("version")).toString(),
                     RedisServer::serverVersion());
            QVERIFY(server.value(QLatin1String("timeMs")).toDouble() > 1.7e12);
            QVERIFY(server.contains(QLatin1String("clockOffsetMs")));
            QCOMPARE(s.value(QLatin1String("limiters")).toArray().size(), 8 + 8 + 4 + 2);
            QCOMPARE(s.value(QLatin1String("tokens")).toArray().size(), 2);
            QCOMPARE(s.value(QLatin1String("queues")).toArray().size(), 3);
            QVERIFY(s.value(QLatin1String("locks")).toArray().size() >= 3); // crashed + 2 legacy

            const QJsonObject window = entry(s, "limiters", QStringLiteral("sim:rl:api:3"));
            QCOMPARE(window.value(QLatin1String("pattern")).toString(),
                     QStringLiteral("sliding-window"));
            const double inWindow = window.value(QLatin1String("inWindow")).toDouble();
            QVERIFY(inWindow > 0);
            if (!extra.isEmpty()) { // the profile knows the limit; autodetection does not
                QCOMPARE(window.value(QLatin1String("limit")).toDouble(), 20.0);
                QCOMPARE(window.value(QLatin1String("occupancy")).toDouble(), inWindow / 20.0);
            } else {
                QVERIFY(window.value(QLatin1String("limit")).isNull());
            }
            QVERIFY(window.contains(QLatin1String("retryHorizonMs")));

            const QJsonObject lock = entry(s, "locks", QStringLiteral("sim:lock:0"));
            QVERIFY(!lock.value(QLatin1String("token")).toString().isEmpty());
            QVERIFY(lock.value(QLatin1String("pttlMs")).toDouble() > 0);

            const QJsonObject family = entry(s, "tokens", QStringLiteral("sim:code:"));
            QVERIFY(family.value(QLatin1String("count")).toDouble() > 0);

            const QJsonObject queue = entry(s, "queues", QStringLiteral("sim:jobs:mail"));
            QVERIFY(queue.value(QLatin1String("inFlight")).toDouble() > 0);
            QVERIFY(queue.contains(QLatin1String("length")));
            QVERIFY(queue.value(QLatin1String("stuck")).isArray());
        }
    }

    void stuckItemsCarryAgeAndSource()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        call(*m_client, {"LPUSH", "sim:jobs:mail:processing", "job-a"});
        call(*m_client, {"ZADD", "sim:jobs:mail:claims", QByteArray::number(now - 90000), "job-a"});
        const QJsonObject q
            = entry(snapshotJson({QStringLiteral("--profile"), QStringLiteral("demo")}), "queues",
                    QStringLiteral("sim:jobs:mail"));
        const QJsonArray stuck = q.value(QLatin1String("stuck")).toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.at(0).toObject().value(QLatin1String("job")).toString(),
                 QStringLiteral("job-a"));
        QVERIFY(stuck.at(0).toObject().value(QLatin1String("ageMs")).toDouble() >= 90000);
        QCOMPARE(stuck.at(0).toObject().value(QLatin1String("ageSource")).toString(),
                 QStringLiteral("claims"));
    }

    // Binary key names come out losslessly as {"base64": ...}.
    void binaryKeyNames()
    {
        const QByteArray key("lock:\xff\x00\x01z", 9);
        call(*m_client, {"SET", key, "a1b2c3d4e5f6", "PX", "60000"});
        const QJsonObject s = snapshotJson();
        const QJsonObject lock
            = entry(s, "locks",
                    QJsonObject{{QStringLiteral("base64"), QString::fromLatin1(key.toBase64())}});
        QVERIFY2(!lock.isEmpty(), QJsonDocument(s).toJson().constData());
        QCOMPARE(lock.value(QLatin1String("token")).toString(), QStringLiteral("a1b2c3d4e5f6"));
    }

    void wrongTypeMatchingProfile()
    {
        call(*m_client, {"RPUSH", "sim:lock:5", "not", "a", "lock"});
        const QJsonObject lock
            = entry(snapshotJson({QStringLiteral("--profile"), QStringLiteral("demo")}), "locks",
                    QStringLiteral("sim:lock:5"));
        QCOMPARE(lock.value(QLatin1String("status")).toString(), QStringLiteral("wrong-type"));
        QVERIFY(
            lock.value(QLatin1String("message")).toString().contains(QLatin1String("sim:lock:5")));
    }

    void hugeProcessingList()
    {
        QList<QList<QByteArray>> batch;
        for (int b = 0; b < 1000; ++b) {
            QList<QByteArray> cmd{"RPUSH", "sim:jobs:big:processing"};
            for (int i = 0; i < 1000; ++i)
                cmd.append(QByteArray::number(b * 1000 + i));
            batch.append(cmd);
        }
        QObject ctx;
        bool done = false;
        m_client->pipeline(batch, &ctx, [&](const QList<RedisValue> &) { done = true; });
        QVERIFY(test::waitUntil([&] { return done; }, 60000));
        const QJsonObject q
            = entry(snapshotJson({QStringLiteral("--profile"), QStringLiteral("demo")}), "queues",
                    QStringLiteral("sim:jobs:big"));
        QCOMPARE(q.value(QLatin1String("inFlight")).toDouble(), 1000000.0);
        QVERIFY(q.value(QLatin1String("truncated")).toBool());
        QVERIFY(q.value(QLatin1String("message")).toString().contains(QLatin1String("1000000")));
    }

    void emptyDatabase()
    {
        const QJsonObject s = snapshotJson();
        for (const char *section : {"limiters", "locks", "tokens", "queues"}) {
            QVERIFY(s.value(QLatin1String(section)).isArray());
            QVERIFY(s.value(QLatin1String(section)).toArray().isEmpty());
        }
        QCOMPARE(cli({QStringLiteral("profile"), QStringLiteral("suggest")}).exitCode, 3);
    }

    // Autodetection's verdicts: what is too weakly evidenced to show is a
    // candidate; "profile accept" shows its family from then on, "profile
    // reject" turns a shown instance's family into ordinary keys.
    void profileAcceptAndReject()
    {
        call(*m_client, {"SET", "tries:1", "3", "PX", "60000"}); // counters that expire, no word
        call(*m_client, {"SET", "tries:2", "1", "PX", "60000"});
        call(*m_client, {"SET", "lock:order:1", "3f9a1c2e-77b1-4c1d-9e2a", "PX", "60000"});
        const QJsonObject before = snapshotJson();
        QCOMPARE(before.value(QLatin1String("limiters")).toArray().size(), 0);
        const QJsonArray candidates = before.value(QLatin1String("candidates")).toArray();
        QCOMPARE(candidates.size(), 1);
        const QJsonObject candidate = candidates.first().toObject();
        QCOMPARE(candidate.value(QLatin1String("family")).toString(),
                 QStringLiteral("tries:{int}"));
        QCOMPARE(candidate.value(QLatin1String("pattern")).toString(),
                 QStringLiteral("fixed-window"));
        QCOMPARE(candidate.value(QLatin1String("count")).toInt(), 2);
        QVERIFY(!candidate.value(QLatin1String("evidence")).toArray().isEmpty());
        const QJsonObject lock = entry(before, "locks", QStringLiteral("lock:order:1"));
        QVERIFY(!lock.value(QLatin1String("evidence")).toArray().isEmpty());
        QVERIFY(lock.value(QLatin1String("score")).toInt() >= 3);

        const QString path = m_dir.filePath(QStringLiteral("verdicts.json"));
        QFile::remove(path);
        const CliRun accepted
            = cli({QStringLiteral("profile"), QStringLiteral("accept"),
                   QStringLiteral("tries:{int}"), QStringLiteral("--profile"), path});
        QVERIFY2(accepted.exitCode == 0, qPrintable(accepted.err));
        const CliRun rejected
            = cli({QStringLiteral("profile"), QStringLiteral("reject"),
                   QStringLiteral("lock:order:1"), QStringLiteral("--profile"), path});
        QVERIFY2(rejected.exitCode == 0, qPrintable(rejected.err));
        const QJsonObject after = snapshotJson({QStringLiteral("--profile"), path});
        const QJsonArray limiters = after.value(QLatin1String("limiters")).toArray();
        QCOMPARE(limiters.size(), 2);
        bool byProfile = false;
        for (const QJsonValue &e :
             limiters.first().toObject().value(QLatin1String("evidence")).toArray())
            byProfile
                |= e.toObject().value(QLatin1String("kind")).toString() == QLatin1String("profile");
        QVERIFY(byProfile);
        QCOMPARE(after.value(QLatin1String("locks")).toArray().size(), 0);
        QCOMPARE(after.value(QLatin1String("candidates")).toArray().size(), 0);
        bool lockIsOrdinary = false;
        for (const QJsonValue &f : after.value(QLatin1String("other")).toArray())
            lockIsOrdinary |= f.toObject().value(QLatin1String("family")).toString()
                              == QLatin1String("lock:order:{int}");
        QVERIFY(lockIsOrdinary);

        // Nothing by that name: a sentence and exit 3; no file named: usage.
        const CliRun unknown
            = cli({QStringLiteral("profile"), QStringLiteral("accept"),
                   QStringLiteral("nothing:here"), QStringLiteral("--profile"), path});
        QCOMPARE(unknown.exitCode, 3);
        QVERIFY2(unknown.err.contains(QLatin1String("nothing:here")), qPrintable(unknown.err));
        const CliRun noFile
            = cli({QStringLiteral("profile"), QStringLiteral("reject"), QStringLiteral("tries:1")});
        QCOMPARE(noFile.exitCode, 2);
        QVERIFY2(noFile.err.contains(QLatin1String("--profile FILE")), qPrintable(noFile.err));
    }

    void malformedProfile()
    {
        const QString path = m_dir.filePath(QStringLiteral("bad.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"rules\": [{\"pattern\": \"lock\", \"match\": \"l*\", \"limit\": -3}]}");
        f.close();
        const CliRun run = cli({QStringLiteral("--profile"), path, QStringLiteral("snapshot")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(path) && run.err.contains(QLatin1String("rules[0].limit")),
                 qPrintable(run.err));
        const CliRun missing = cli(
            {QStringLiteral("--profile"), QStringLiteral("nope"), QStringLiteral("snapshot")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains(QLatin1String("demo")), qPrintable(missing.err));
    }

    // No CONFIG, no INFO, no writes: a full snapshot with notes; actions NOPERM.
    void readOnlyAclUser()
    {
        call(*m_client, {"SET", "lock:orders", "a1b2c3d4e5f6", "PX", "60000"});
        QString url = m_server.url();
        url.replace(QLatin1String("redis://"), QLatin1String("redis://reader:readerpw@"));
        const CliRun run = cli({QStringLiteral("snapshot"), QStringLiteral("--json")}, url);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject s = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const QString notes = QJsonDocument(s.value(QLatin1String("server"))
                                                .toObject()
                                                .value(QLatin1String("notes"))
                                                .toArray())
                                  .toJson();
        QVERIFY2(notes.contains(QLatin1String("INFO is not permitted")), qPrintable(notes));
        QVERIFY2(notes.contains(QLatin1String("CONFIG is not permitted")), qPrintable(notes));
        QCOMPARE(entry(s, "locks", QStringLiteral("lock:orders"))
                     .value(QLatin1String("token"))
                     .toString(),
                 QStringLiteral("a1b2c3d4e5f6"));

        const CliRun release
            = cli({QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("lock:orders"),
                   QStringLiteral("--token"), QStringLiteral("a1b2c3d4e5f6")},
                  url);
        QCOMPARE(release.exitCode, 1);
        // Refused before anything is sent: the user may not run scripts.
        QVERIFY2(release.err.contains(QLatin1String("Refused: "))
                     && release.err.contains(QLatin1String("may run neither EVALSHA nor EVAL"))
                     && release.err.contains(QLatin1String("Nothing was sent")),
                 qPrintable(release.err));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:orders"}).toInteger(), 1);
    }

    // Every action: its effect, its audit entry, refused when read-only,
    // nothing changed on --dry-run.
    void actions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("action");
        QTest::newRow("lock release")
            << QStringList{"lock", "release", "lock:a", "--token", "t0k3n1"}
            << "lock.force-release";
        QTest::newRow("lock extend")
            << QStringList{"lock", "extend", "lock:a", "--token", "t0k3n1", "--ttl", "90000"}
            << "lock.extend";
        QTest::newRow("queue requeue job")
            << QStringList{"queue", "requeue", "q", "--job", "j1"} << "queue.requeue";
        QTest::newRow("queue requeue stuck")
            << QStringList{"queue", "requeue", "q", "--stuck", "--older-than", "1000"}
            << "queue.requeue-stuck";
        QTest::newRow("queue dead-letter")
            << QStringList{"queue", "dead-letter", "q", "--job", "j1"} << "queue.dead-letter";
        QTest::newRow("token revoke")
            << QStringList{"token", "revoke", "code:x1y2z3w4"} << "token.revoke";
        QTest::newRow("limiter reset")
            << QStringList{"limiter", "reset", "rl:a"} << "limiter.reset";
        QTest::newRow("token issue")
            << QStringList{"token", "issue", "code:", "--ttl", "60", "--value", "{\"u\":1}"}
            << "token.issue";
        QTest::newRow("events enable") << QStringList{"events", "enable"} << "events.enable";
    }

    void actions()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, action);
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        auto setUp = [&] {
            call(*m_client, {"FLUSHALL"});
            call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""});
            call(*m_client, {"SET", "lock:a", "t0k3n1", "PX", "30000"});
            call(*m_client, {"LPUSH", "q:processing", "j1"});
            call(*m_client, {"ZADD", "q:claims", QByteArray::number(now - 5000), "j1"});
            call(*m_client, {"SET", "code:x1y2z3w4", "{}", "EX", "60"});
            call(*m_client, {"ZADD", "rl:a", QByteArray::number(now), "m"});
            call(*m_client, {"ZADD", "rl:a:retry", QByteArray::number(now + 1000), "s"});
        };
        auto state = [&] {
            QList<QList<QByteArray>> cmds;
            for (const char *k : {"lock:a", "q", "q:processing", "q:dead", "q:claims",
                                  "code:x1y2z3w4", "rl:a", "rl:a:retry"}) {
                const QByteArray key(k);
                cmds.append(QList<QByteArray>{"TYPE", key});
                cmds.append(QList<QByteArray>{"PTTL", key});
                cmds.append(QList<QByteArray>{"DUMP", key});
            }
            cmds.append({"DBSIZE"});
            cmds.append({"CONFIG", "GET", "notify-keyspace-events"});
            QObject ctx;
            QString out;
            bool done = false;
            m_client->pipeline(cmds, &ctx, [&](const QList<RedisValue> &replies) {
                for (qsizetype i = 0; i < replies.size(); ++i) {
                    // PTTL counts down: keep only whether it is long or short.
                    const RedisValue &r = replies.at(i);
                    if (i < 24 && i % 3 == 1)
                        out += r.toInteger() > 60000 ? QStringLiteral("long;")
                                                     : QStringLiteral("short;");
                    else
                        out += r.toDebugString() + QLatin1Char(';');
                }
                done = true;
            });
            (void)test::waitUntil([&] { return done; }, 10000);
            return out;
        };

        // Read-only: refused, exit 3, audited, nothing changed.
        setUp();
        const QString before = state();
        CliRun run = cli(args + QStringList{QStringLiteral("--read-only")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("Read-only")), qPrintable(run.err));
        QCOMPARE(state(), before);
        QCOMPARE(lastAudit().value(QLatin1String("outcome")).toString(), QStringLiteral("refused"));
        QCOMPARE(lastAudit().value(QLatin1String("action")).toString(), action);

        // Dry run: prints what would run, exit 0, nothing changed.
        run = cli(args + QStringList{QStringLiteral("--dry-run")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("script: lua/"))
                     || run.out.contains(QLatin1String("command:")),
                 qPrintable(run.out));
        QCOMPARE(state(), before);

        // For real: done, exit 0, audited, and the effect is there.
        run = cli(args);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(state() != before);
        const QJsonObject audit = lastAudit();
        QCOMPARE(audit.value(QLatin1String("outcome")).toString(), QStringLiteral("done"));
        QCOMPARE(audit.value(QLatin1String("action")).toString(), action);
        QVERIFY(!audit.value(QLatin1String("user")).toString().isEmpty());
        QVERIFY(audit.value(QLatin1String("connection"))
                    .toString()
                    .contains(QString::number(m_server.port())));

        if (action == QLatin1String("lock.force-release"))
            QCOMPARE(call(*m_client, {"EXISTS", "lock:a"}).toInteger(), 0);
        if (action == QLatin1String("lock.extend"))
            QVERIFY(call(*m_client, {"PTTL", "lock:a"}).toInteger() > 60000);
        if (action == QLatin1String("queue.requeue")
            || action == QLatin1String("queue.requeue-stuck"))
            QCOMPARE(call(*m_client, {"LINDEX", "q", "-1"}).bytes(), QByteArray("j1"));
        if (action == QLatin1String("queue.dead-letter"))
            QCOMPARE(call(*m_client, {"LINDEX", "q:dead", "0"}).bytes(), QByteArray("j1"));
        if (action == QLatin1String("token.revoke")) // the code is the token's secret
            QVERIFY2(!QJsonDocument(audit).toJson().contains("x1y2z3w4"),
                     QJsonDocument(audit).toJson().constData());
        if (action == QLatin1String("token.issue")) {
            const QByteArray token = run.out.trimmed().toUtf8();
            QCOMPARE(token.size(), 32);
            QCOMPARE(call(*m_client, {"GET", "code:" + token}).bytes(), QByteArray("{\"u\":1}"));
            QVERIFY(call(*m_client, {"TTL", "code:" + token}).toInteger() > 50);
            // The token is shown once; the audit log keeps only a stub.
            QVERIFY(!QJsonDocument(audit).toJson().contains(token));
        }

        // Again: nothing left to do (token changed, job gone...) is exit 3.
        if (action != QLatin1String("token.issue") && action != QLatin1String("events.enable")
            && action != QLatin1String("lock.extend")) {
            run = cli(args);
            QCOMPARE(run.exitCode, 3);
            QVERIFY(!run.err.isEmpty());
            QCOMPARE(lastAudit().value(QLatin1String("outcome")).toString(),
                     QStringLiteral("nothing-done"));
        }
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""});
    }

    // An action whose attempt cannot be audited is not sent: a folder, or a
    // file under a path whose folder cannot be made (a file is in the way).
    void auditLogUnwritableSendsNothing()
    {
        call(*m_client, {"SET", "lock:a", "t0k3n1", "PX", "30000"});
        QFile blocker(m_dir.filePath(QStringLiteral("no")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const QString missing = m_dir.filePath(QStringLiteral("no/such/dir/audit.jsonl"));
        for (const QString &log : {m_dir.path(), missing}) {
            const CliRun run
                = cli({"--audit-log", log, "lock", "release", "lock:a", "--token", "t0k3n1"});
            QCOMPARE(run.exitCode, 1);
            QVERIFY2(run.err.contains(QLatin1String("was not sent")), qPrintable(run.err));
            QCOMPARE(call(*m_client, {"GET", "lock:a"}).bytes(), QByteArray("t0k3n1"));
        }
        QVERIFY(QFileInfo(m_dir.filePath(QStringLiteral("no"))).isFile());
    }

    // The audit trail can also go to a capped stream in the watched Redis.
    void auditStream()
    {
        call(*m_client, {"SET", "lock:a", "t0k3n1abcd", "PX", "30000"});
        RedisClient client(m_server.endpoint());
        client.open();
        QVERIFY(gatehouse::test::waitReady(client));
        ActionEngine engine(&client);
        engine.setAuditLogPath(auditPath());
        engine.setAuditStream("gatehouse:audit", 100);
        PatternObject lock;
        lock.kind = PatternKind("lock");
        lock.key = "lock:a";
        bool done = false;
        engine.run(LockUnit::forceRelease(lock, "t0k3n1abcd"), false, this,
                   [&](const ActionOutcome &o) {
                       QCOMPARE(int(o.result), int(ActionOutcome::Result::Done));
                       done = true;
                   });
        QVERIFY(test::waitUntil([&] { return done; }, 5000));
        QTRY_COMPARE(call(*m_client, {"XLEN", "gatehouse:audit"}).toInteger(), 1);
        const RedisValue entry
            = call(*m_client, {"XRANGE", "gatehouse:audit", "-", "+"}).at(0).at(1);
        QStringList fields;
        for (qsizetype i = 0; i + 1 < entry.size(); i += 2)
            fields << QString::fromUtf8(entry.at(i).bytes() + '=' + entry.at(i + 1).bytes());
        QVERIFY2(fields.contains(QStringLiteral("action=lock.force-release")),
                 qPrintable(fields.join(' ')));
        QVERIFY2(fields.contains(QStringLiteral("outcome=done")), qPrintable(fields.join(' ')));
    }

    void actionUsageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("release without token")
            << QStringList{"lock", "release", "lock:a"} << "--token";
        QTest::newRow("requeue without job") << QStringList{"queue", "requeue", "q"} << "--job";
        QTest::newRow("issue without ttl") << QStringList{"token", "issue", "code:"} << "--ttl";
        QTest::newRow("issue bad json")
            << QStringList{"token", "issue", "code:", "--ttl", "5", "--value", "{oops"}
            << "not valid JSON";
        QTest::newRow("unknown verb") << QStringList{"lock", "steal", "lock:a"}
                                      << "lock has no verb \"steal\"; its verbs: extend, release.";
        QTest::newRow("no verb") << QStringList{"lock"} << "lock needs a verb: extend, release.";
        QTest::newRow("unknown section")
            << QStringList{"mutex", "release", "m"} << "Unknown command \"mutex\".";
        QTest::newRow("dry run of simulate")
            << QStringList{"--dry-run", "simulate", "--seconds", "1"}
            << "\"simulate\" is not an action and has no dry run";
        // An option the command does not read is refused, not ignored.
        QTest::newRow("csv of snapshot")
            << QStringList{"snapshot", "--csv"}
            << "--csv applies to history only: \"snapshot\" would run as if it were not given";
        QTest::newRow("since of snapshot") << QStringList{"snapshot", "--json", "--since", "1h"}
                                           << "--since applies to history and timeline only";
        QTest::newRow("interval of snapshot") << QStringList{"snapshot", "--interval", "500"}
                                              << "--interval applies to watch and serve only";
        QTest::newRow("history of ping")
            << QStringList{"ping", "--history"} << "--history applies to watch and serve only";
        QTest::newRow("budget of ping") << QStringList{"ping", "--refresh-budget", "5"}
                                        << "--refresh-budget applies to watch and serve only";
        QTest::newRow("token of watch")
            << QStringList{"watch", "--count", "1", "--token", "abc"}
            << "--token applies to actions (lock release, queue requeue, ...) only";
        QTest::newRow("force of watch")
            << QStringList{"watch", "--count", "1", "--force"} << "--force applies to actions";
        QTest::newRow("watch without end")
            << QStringList{"watch", "--count", "0"} << "--count must be a whole number from 1";
        QTest::newRow("seconds of a lock release")
            << QStringList{"lock", "release", "lock:a", "--token", "t", "--seconds", "5"}
            << "--seconds applies to simulate and serve only";
        QTest::newRow("negative ttl")
            << QStringList{"lock", "extend", "lock:a", "--token", "t", "--ttl", "-5"}
            << "--ttl takes a whole number from 0 to 9007199254740992, not \"-5\".";
        QTest::newRow("zero ttl")
            << QStringList{"lock", "extend", "lock:a", "--token", "t", "--ttl", "0"}
            << "lock extend --ttl is the new time to live in ms, more than 0 and at most "
               "604800000 (7 days); got 0.";
        // Another library's option is said, not dropped.
        QTest::newRow("another library's option")
            << QStringList{"queue", "retry", "q", "--from", "dead", "--all"} << "takes no --from";
    }

    // --json: an action's outcome as one object on stdout, whatever it is;
    // the exit code as in text.
    void actionOutcomeAsJson()
    {
        call(*m_client, {"SET", "lock:json", "tok-j", "PX", "600000"});
        CliRun run
            = cli({"--dry-run", "lock", "release", "lock:json", "--token", "tok-j", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QJsonObject o = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(o.value(QLatin1String("outcome")).toString(), QStringLiteral("dry-run"));
        QCOMPARE(o.value(QLatin1String("wouldBe")).toString(), QStringLiteral("done"));
        QVERIFY2(o.value(QLatin1String("said"))
                     .toArray()
                     .first()
                     .toString()
                     .contains(QLatin1String("KEYS: [\"lock:json\"]")),
                 qPrintable(run.out));
        QCOMPARE(call(*m_client, {"GET", "lock:json"}).bytes(), QByteArray("tok-j"));
        run = cli({"lock", "release", "lock:json", "--token", "tok-j", "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        o = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(o.value(QLatin1String("command")).toString(), QStringLiteral("lock release"));
        QCOMPARE(o.value(QLatin1String("target")).toString(), QStringLiteral("lock:json"));
        QCOMPARE(o.value(QLatin1String("outcome")).toString(), QStringLiteral("done"));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:json"}).toInteger(), 0);
        run = cli({"lock", "release", "lock:json", "--token", "tok-j", "--json"});
        QCOMPARE(run.exitCode, 3);
        o = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QVERIFY2(QStringList({QStringLiteral("nothing-done"), QStringLiteral("refused")})
                     .contains(o.value(QLatin1String("outcome")).toString()),
                 qPrintable(run.out));
        QVERIFY(!o.value(QLatin1String("message")).toString().isEmpty());
    }

    // A queue that is not there at all is said to be (or idle), not a job
    // no longer in flight; the attempt is audited, and nothing is written.
    void requeueOnNoSuchQueue()
    {
        const QString audit = m_dir.filePath(QStringLiteral("nosuch-audit.jsonl"));
        const QList<std::pair<QString, QString>> said{
            {QStringLiteral("requeue"),
             QStringLiteral("Neither \"nosuchq\" nor its processing list \"nosuchq:processing\" "
                            "exists")},
            {QStringLiteral("dead-letter"),
             QStringLiteral("Nothing is in flight on \"nosuchq\" (its processing list "
                            "\"nosuchq:processing\" does not exist)")}};
        for (const auto &[verb, sentence] : said) {
            const CliRun run = cli({"--audit-log", audit, "queue", verb, "nosuchq", "--job", "j3"});
            QCOMPARE(run.exitCode, 3);
            QVERIFY2(run.err.contains(sentence), qPrintable(run.err));
        }
        QCOMPARE(call(*m_client, {"EXISTS", "nosuchq", "nosuchq:processing", "nosuchq:dead"})
                     .toInteger(),
                 0);
        QFile f(audit);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().count('\n'), 2);
    }

    // A reliable queue whose every job is in flight has no main list: it is
    // still a queue (no other pattern offering requeue takes it), and its
    // job is requeued.
    void requeueWithEveryJobInFlight()
    {
        QCOMPARE(call(*m_client, {"RPUSH", "allbusy:processing", "j3"}).toInteger(), 1);
        const CliRun requeued = cli({"queue", "requeue", "allbusy", "--job", "j3"});
        QVERIFY2(requeued.exitCode == 0, qPrintable(requeued.err + requeued.out));
        QCOMPARE(call(*m_client, {"LRANGE", "allbusy", "0", "-1"}).elements().size(), 1);
        QCOMPARE(call(*m_client, {"LLEN", "allbusy:processing"}).toInteger(), 0);
    }

    void actionUsageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const CliRun run = cli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(mentions), qPrintable(run.err));
    }

    // The server's clock an hour ahead of the client's (libfaketime on the
    // CLI: a redis-server cannot run under it). The offset is measured and
    // printed, and window maths use the server's clock: entries written with
    // the server's TIME are in the window, their age is not an hour off.
    void clockOffsetOfASkewedClient()
    {
        const QProcessEnvironment skew
            = gatehouse::test::skewedClockEnvironment(QStringLiteral("-1h"));
        if (skew.isEmpty())
            QSKIP("libfaketime is not installed (Debian package faketime)");
        const RedisValue time = call(*m_client, {"TIME"});
        const qint64 now = time.at(0).toInteger() * 1000 + time.at(1).toInteger() / 1000;
        for (int i = 1; i <= 5; ++i)
            call(*m_client,
                 {"ZADD", "rl:a", QByteArray::number(now - i * 1000), "m" + QByteArray::number(i)});
        QProcessEnvironment env = skew;
        env.insert(QStringLiteral("GATEHOUSE_AUDIT_LOG"), auditPath());
        const CliRun run
            = gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                      {QStringLiteral("--url"), m_server.url(),
                                       QStringLiteral("snapshot"), QStringLiteral("--json")},
                                      env, 60000);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject s = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const QJsonObject server = s.value(QLatin1String("server")).toObject();
        const qint64 offset = server.value(QLatin1String("clockOffsetMs")).toInteger();
        QVERIFY2(std::abs(offset - 3600000) <= 2000, qPrintable(QString::number(offset)));
        QVERIFY(std::abs(server.value(QLatin1String("timeMs")).toInteger() - now) < 10000);
        const QJsonObject window = entry(s, "limiters", QStringLiteral("rl:a"));
        QCOMPARE(window.value(QLatin1String("inWindow")).toInt(), 5);
        QVERIFY(window.value(QLatin1String("oldestAgeMs")).toInteger() >= 5000);
        QVERIFY(window.value(QLatin1String("oldestAgeMs")).toInteger() < 15000);
    }

    void watchPrintsALinePerTick()
    {
        call(*m_client, {"SET", "lock:a", "t0k3n1abcd", "PX", "30000"});
        // A Redisson semaphore's free permits (as trySetPermits writes them)
        // are not tokens: the line's liveTokens sums token families only.
        call(*m_client, {"SET", "mySemaphore", "10"});
        const CliRun run
            = cli({QStringLiteral("watch"), QStringLiteral("--interval"), QStringLiteral("200"),
                   QStringLiteral("--count"), QStringLiteral("3")});
        QCOMPARE(run.exitCode, 0);
        const QStringList lines = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines.first().contains(QLatin1String("locks=1")), qPrintable(lines.first()));
        QVERIFY2(lines.first().contains(QLatin1String("semaphores=1")), qPrintable(lines.first()));
        QVERIFY2(lines.first().contains(QLatin1String(" liveTokens=0 ")),
                 qPrintable(lines.first()));

        // --json: every line a whole snapshot document, with its schema version.
        const CliRun json
            = cli({QStringLiteral("watch"), QStringLiteral("--interval"), QStringLiteral("200"),
                   QStringLiteral("--count"), QStringLiteral("2"), QStringLiteral("--json")});
        QCOMPARE(json.exitCode, 0);
        int snapshots = 0;
        for (const QString &line : json.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const QJsonObject s = QJsonDocument::fromJson(line.toUtf8()).object();
            if (s.contains(QLatin1String("event")))
                continue; // a world event (docs/failover.md), not a snapshot
            QCOMPARE(s.value(QLatin1String("schemaVersion")).toInteger(), 3);
            QCOMPARE(s.value(QLatin1String("locks")).toArray().size(), 1);
            ++snapshots;
        }
        QCOMPARE(snapshots, 2);
    }

    // Was: a line's STALE marker written ahead of the line itself (two
    // streams on stdout), so the old server's figures read as current and
    // each notice stuck to the line before. Every line starts with its
    // time, and those after the server died carry the marker.
    void watchMarksStaleLinesThemselves()
    {
        RedisServer gone;
        QVERIFY2(gone.start(), qPrintable(gone.errorString()));
        {
            const auto client = gatehouse::test::connectedClient(gone);
            QVERIFY(client);
            call(*client, {"SET", "lock:w", "t0k3n1abcd", "PX", "600000"});
        }
        QProcess watch;
        watch.start(QStringLiteral(GATEHOUSE_CLI),
                    {QStringLiteral("--url"), gone.url(), QStringLiteral("watch"),
                     QStringLiteral("--interval"), QStringLiteral("200")});
        QVERIFY(watch.waitForStarted(10000));
        QByteArray out;
        const auto waitFor = [&](const QByteArray &what) {
            QElapsedTimer waited;
            waited.start();
            while (!out.contains(what) && waited.elapsed() < 20000
                   && watch.state() == QProcess::Running) {
                watch.waitForReadyRead(200);
                out += watch.readAllStandardOutput();
            }
            return out.contains(what);
        };
        QVERIFY2(waitFor("locks=1"), QByteArray(out + watch.readAllStandardError()).constData());
        gone.kill();
        QVERIFY2(waitFor(" STALE "), QByteArray(out + watch.readAllStandardError()).constData());
        QTest::qWait(1000);
        out += watch.readAllStandardOutput();
        watch.terminate();
        QVERIFY(watch.waitForFinished(10000));
        out += watch.readAllStandardOutput();
        static const QRegularExpression timed(
            QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z "));
        int staleLines = 0;
        for (const QByteArray &line : out.split('\n')) {
            if (line.isEmpty())
                continue;
            QVERIFY2(timed.match(QString::fromUtf8(line)).hasMatch(), line.constData());
            if (line.contains(" STALE objects=1 "))
                ++staleLines;
            // A line of figures after the loss says they are stale.
            if (line.contains(" locks=") && !line.contains(" STALE "))
                QVERIFY2(staleLines == 0, line.constData());
        }
        QVERIFY2(staleLines > 0, out.constData());
    }
};

QTEST_GUILESS_MAIN(tst_Cli)
#include "tst_cli.moc"
