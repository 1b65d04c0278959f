// SPDX-License-Identifier: MIT
// The reproductions of "actions that never lose data", as a new user met
// them with gatehouse-cli against a real redis-server: each one now keeps
// every job, token and lock, exits with the documented code and says which
// key is what.
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

class tst_CliSafety : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    QString auditPath() const { return m_dir.filePath(QStringLiteral("audit.jsonl")); }

    CliRun cli(QStringList args, const QString &environment = {})
    {
        args.prepend(m_server.url());
        args.prepend(QStringLiteral("--url"));
        QProcessEnvironment env;
        env.insert(QStringLiteral("GATEHOUSE_AUDIT_LOG"), auditPath());
        if (!environment.isEmpty())
            env.insert(QStringLiteral("GATEHOUSE_ENVIRONMENT"), environment);
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, env, 60000);
    }

    QString profile(const QByteArray &rules)
    {
        const QString path = m_dir.filePath(QStringLiteral("profile.json"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return {};
        f.write("{\"name\": \"ops\", \"rules\": [" + rules + "]}");
        return path;
    }

    QList<QByteArray> list(const QByteArray &key)
    {
        QList<QByteArray> out;
        const RedisValue range = call(*m_client, {"LRANGE", key, "0", "-1"});
        for (const RedisValue &v : range.elements())
            out << v.bytes();
        return out;
    }

    QJsonObject lastAudit()
    {
        QFile f(auditPath());
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QJsonDocument::fromJson(f.readAll().trimmed().split('\n').last()).object();
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

    // Was: exit 1 with WRONGTYPE and jobA gone from every key.
    void deadLetterOntoAStringLosesNothing()
    {
        call(*m_client, {"RPUSH", "qa:processing", "jobA"});
        call(*m_client, {"SET", "qa:dead", "notalist"});
        const CliRun run = cli({"queue", "dead-letter", "qa", "--job", "jobA"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("\"qa:dead\" (the dead-letter list) is a string, "
                                                "not a list")),
                 qPrintable(run.err));
        QCOMPARE(list("qa:processing"), QList<QByteArray>{"jobA"});
        QCOMPARE(call(*m_client, {"GET", "qa:dead"}).bytes(), QByteArray("notalist"));
        QCOMPARE(lastAudit().value(QLatin1String("outcome")).toString(), QStringLiteral("refused"));
    }

    void requeueOntoWrongTypesLosesNothing_data()
    {
        QTest::addColumn<QByteArray>("wrongKey");
        QTest::addColumn<QList<QByteArray>>("setup");
        QTest::addColumn<QString>("says");
        QTest::newRow("queue is a string")
            << QByteArray("qa") << QList<QByteArray>{"SET", "qa", "x"}
            << "\"qa\" (the queue) is a string, not a list";
        QTest::newRow("claims is a list")
            << QByteArray("qa:claims") << QList<QByteArray>{"RPUSH", "qa:claims", "x"}
            << "\"qa:claims\" (the claims set) is a list, not a sorted set";
    }

    // Was: the job lost (queue a string), or moved while the CLI said it failed
    // (claims of the wrong type).
    void requeueOntoWrongTypesLosesNothing()
    {
        QFETCH(QByteArray, wrongKey);
        QFETCH(QList<QByteArray>, setup);
        QFETCH(QString, says);
        call(*m_client, {"RPUSH", "qa:processing", "jobA"});
        call(*m_client, setup);
        const CliRun run = cli({"queue", "requeue", "qa", "--job", "jobA"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(says), qPrintable(run.err));
        QCOMPARE(list("qa:processing"), QList<QByteArray>{"jobA"});
        QCOMPARE(call(*m_client, {"TYPE", wrongKey}).bytes(),
                 setup.first() == "SET" ? QByteArray("string") : QByteArray("list"));
    }

    // Was: the job lost and its claim left behind when the queue is a hash.
    void requeueStuckOntoAHashLosesNothing()
    {
        const QString p = profile(R"({"pattern": "reliable-queue", "match": "qa",
                                      "claimsKey": "{key}:claims", "stuckAfter": 1000})");
        call(*m_client, {"RPUSH", "qa:processing", "jobA"});
        call(*m_client, {"ZADD", "qa:claims", "1", "jobA"});
        call(*m_client, {"HSET", "qa", "f", "v"});
        const CliRun run = cli({"--profile", p, "queue", "requeue", "qa", "--stuck"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("is a hash, not a list")), qPrintable(run.err));
        QCOMPARE(list("qa:processing"), QList<QByteArray>{"jobA"});
        QCOMPARE(call(*m_client, {"ZSCORE", "qa:claims", "jobA"}).bytes(), QByteArray("1"));
    }

    // Was: reset deleted a list, exit 0, also under --dry-run.
    void limiterResetRefusesWhatIsNotALimiter()
    {
        call(*m_client, {"RPUSH", "queue:keep", "j1", "j2"});
        CliRun run = cli({"limiter", "reset", "queue:keep"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("is a list, not a sorted set")),
                 qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("--force")), qPrintable(run.err));

        const QString p = profile(R"({"pattern": "reliable-queue", "match": "queue:*"})");
        run = cli({"--profile", p, "limiter", "reset", "queue:keep"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("profile \"ops\" says \"queue:keep\" is a "
                                                "reliable-queue, not a limiter")),
                 qPrintable(run.err));

        run = cli({"--dry-run", "limiter", "reset", "queue:keep"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.out.contains(QLatin1String("would not act")), qPrintable(run.out));
        QCOMPARE(list("queue:keep"), (QList<QByteArray>{"j1", "j2"}));

        // The operator insists: deleted, and the audit log says it was forced.
        run = cli({"--force", "limiter", "reset", "queue:keep"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(call(*m_client, {"EXISTS", "queue:keep"}).toInteger(), 0);
        QCOMPARE(lastAudit().value(QLatin1String("force")).toBool(), true);
    }

    // A real limiter still resets, by its kind, with and without a profile.
    void limiterResetResetsLimiters()
    {
        call(*m_client, {"SET", "rl:fixed:1", "9", "PX", "60000"});
        CliRun run = cli({"--dry-run", "limiter", "reset", "rl:fixed:1"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("checks pass")), qPrintable(run.out));
        QCOMPARE(call(*m_client, {"EXISTS", "rl:fixed:1"}).toInteger(), 1);
        run = cli({"limiter", "reset", "rl:fixed:1"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(call(*m_client, {"EXISTS", "rl:fixed:1"}).toInteger(), 0);

        const QByteArray now = call(*m_client, {"TIME"}).at(0).bytes() + "000";
        call(*m_client, {"ZADD", "rl:api", now, now + "-1"});
        call(*m_client, {"ZADD", "rl:api:retry", now, now});
        run = cli({"limiter", "reset", "rl:api"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("Deleted 2 key(s)")), qPrintable(run.out));
    }

    // Was: revoke deleted a list.
    void tokenRevokeRefusesWhatIsNotAToken()
    {
        call(*m_client, {"RPUSH", "important:list", "a"});
        CliRun run = cli({"token", "revoke", "important:list"});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(call(*m_client, {"LLEN", "important:list"}).toInteger(), 1);

        call(*m_client, {"SET", "important:setting", "on"});
        run = cli({"token", "revoke", "important:setting"});
        QCOMPARE(run.exitCode, 3); // a string, but in no token family
        QVERIFY2(run.err.contains(QLatin1String("not a token")), qPrintable(run.err));
        QCOMPARE(call(*m_client, {"EXISTS", "important:setting"}).toInteger(), 1);

        call(*m_client, {"SET", "code:3fa9c1d2e8", "{}", "EX", "60"});
        run = cli({"token", "revoke", "code:3fa9c1d2e8"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(call(*m_client, {"EXISTS", "code:3fa9c1d2e8"}).toInteger(), 0);

        const QString p = profile(R"({"pattern": "token-family", "prefix": "otp."})");
        call(*m_client, {"SET", "otp.1", "x", "EX", "60"});
        run = cli({"--profile", p, "token", "revoke", "otp.1"});
        QCOMPARE(run.exitCode, 0);
    }

    // Was: 234 MB resident, the whole value echoed. Named a lock by a
    // profile rule, the release script answers; without one, what the key
    // looks like refuses it first. Either way a bounded sentence.
    void lockReleaseOnAHugeValueAnswersBounded()
    {
        call(*m_client, {"SET", "lock:big", QByteArray(20 * 1024 * 1024, 'v')});
        const QString p = profile(R"({"pattern": "lock", "match": "lock:*"})");
        CliRun run = cli({"--profile", p, "lock", "release", "lock:big", "--token", "wrong"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.size() < 1024, qPrintable(run.err.left(300)));
        QVERIFY2(run.err.contains(QLatin1String("20971520 bytes")), qPrintable(run.err));
        run = cli({"lock", "release", "lock:big", "--token", "wrong"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.size() < 1024, qPrintable(run.err.left(300)));
        QVERIFY2(run.err.contains(QLatin1String("with no TTL")), qPrintable(run.err));
        QCOMPARE(call(*m_client, {"STRLEN", "lock:big"}).toInteger(), 20 * 1024 * 1024);
    }

    // Was: a counter with no TTL reset, a user record released and given a
    // TTL, a cached value and a settings hash deleted as locks: without a
    // profile rule a key is acted on as what discovery would show it as,
    // each refusal audited; --force and a rule stay the operator's ways.
    void actionsActOnlyOnWhatDiscoveryShows()
    {
        call(*m_client, {"SET", "pageviews:1", "42"});
        call(*m_client, {"SET", "user:1", "alice"});
        call(*m_client, {"SET", "cache:user:6", R"({"id":6,"name":"x"})", "EX", "300"});
        call(*m_client, {"HSET", "lock_settings", "timeout_ms", "30000", "retry", "3"});
        call(*m_client, {"SET", "lock:x", "5", "PX", "60000"});
        const struct
        {
            QStringList args;
            QString says;
        } refused[] = {
            {{"limiter", "reset", "pageviews:1"}, "with no TTL holding \"42\""},
            {{"lock", "release", "user:1", "--token", "alice"}, "not a lock"},
            {{"lock", "extend", "user:1", "--token", "alice", "--ttl", "1000"}, "not a lock"},
            {{"lock", "release", "cache:user:6", "--token", R"({"id":6,"name":"x"})"},
             "would show it as no structure"},
            {{"lock", "release", "lock_settings", "--token", "x"}, "is not a Redisson lock"},
            {{"limiter", "reset", "lock:x"}, "would show it as a lock"},
        };
        for (const auto &r : refused) {
            const CliRun run = cli(r.args);
            QVERIFY2(run.exitCode == 3, qPrintable(r.args.join(u' ') + u": " + run.err));
            QVERIFY2(run.err.contains(r.says), qPrintable(r.args.join(u' ') + u": " + run.err));
            QCOMPARE(lastAudit().value(QLatin1String("outcome")).toString(),
                     QStringLiteral("refused"));
        }
        QCOMPARE(call(*m_client, {"GET", "pageviews:1"}).bytes(), QByteArray("42"));
        QCOMPARE(call(*m_client, {"PTTL", "user:1"}).toInteger(), -1);
        QCOMPARE(call(*m_client, {"EXISTS", "cache:user:6", "lock_settings", "lock:x"}).toInteger(),
                 3);
        // A dry run says it would be refused.
        CliRun run = cli({"--dry-run", "limiter", "reset", "pageviews:1"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.out.contains(QLatin1String("would be refused")), qPrintable(run.out));

        // What discovery shows as a lock or a window is acted on: a holder's
        // process identity under a lock's name, a counter that expires.
        call(*m_client, {"SET", "lock:job:7", "worker-3:4242", "PX", "60000"});
        run = cli({"lock", "release", "lock:job:7", "--token", "worker-3:4242"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        call(*m_client, {"SET", "rl:fixed:2", "3", "PX", "60000"});
        run = cli({"limiter", "reset", "rl:fixed:2"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:job:7", "rl:fixed:2"}).toInteger(), 0);
        // The operator's ways past it: a rule naming the key, or --force.
        const QString p = profile(R"({"pattern": "fixed-window", "match": "pageviews:*"})");
        run = cli({"--profile", p, "limiter", "reset", "pageviews:1"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        run = cli({"--force", "lock", "release", "user:1", "--token", "alice"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(call(*m_client, {"EXISTS", "pageviews:1", "user:1"}).toInteger(), 0);
    }

    // Was: a BullMQ job's lock released while its worker held it (the job
    // then looked stalled). The job's keys are its queue's.
    void jobLockBelongsToItsQueue()
    {
        call(*m_client, {"HSET", "bull:reports:meta", "opts.maxLenEvents", "10000"});
        call(*m_client, {"XADD", "bull:reports:events", "*", "event", "added", "jobId", "rep-1"});
        call(*m_client, {"HSET", "bull:reports:rep-1", "name", "r", "data", "{}", "timestamp",
                         "1795970000000"});
        call(*m_client, {"LPUSH", "bull:reports:active", "rep-1"});
        const QByteArray token = "3f2a9c1e-8b7d-4e21-9a0f-6c5d4b3a2e1f";
        call(*m_client, {"SET", "bull:reports:rep-1:lock", token, "PX", "30000"});
        const CliRun run = cli({"lock", "release", "bull:reports:rep-1:lock", "--token", token});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("is a key of BullMQ queue \"bull:reports\"")),
                 qPrintable(run.err));
        QCOMPARE(call(*m_client, {"GET", "bull:reports:rep-1:lock"}).bytes(), token);
        QCOMPARE(lastAudit().value(QLatin1String("outcome")).toString(), QStringLiteral("refused"));

        // --force does not reach it either, nor the queue's own meta hash (a
        // forced release deleted it, with a token that is nothing in it).
        for (const QByteArray &key :
             {QByteArray("bull:reports:rep-1:lock"), QByteArray("bull:reports:meta")}) {
            const CliRun forced = cli({"--force", "lock", "release", key, "--token", "x"});
            QCOMPARE(forced.exitCode, 3);
            QVERIFY2(forced.err.contains(QLatin1String("--force does not reach a key another "
                                                       "object owns"))
                         && !forced.err.contains(QLatin1String("Only a forced")),
                     qPrintable(forced.err));
            QCOMPARE(call(*m_client, {"EXISTS", key}).toInteger(), 1);
            QCOMPARE(lastAudit().value(QLatin1String("outcome")).toString(),
                     QStringLiteral("refused"));
        }
        // Nor does token revoke, which reads no object first: a job whose id
        // looks generated is its queue's, not a token; forced or not.
        const QByteArray uuidJob = "bull:reports:9b1c7e2a-4f3d-4a8b-b6e5-1d2c3b4a5f60";
        call(*m_client, {"HSET", uuidJob, "name", "r", "data", "{}", "timestamp", "1795970000000"});
        for (const QStringList &args :
             {QStringList{"token", "revoke", QString::fromLatin1(uuidJob)},
              QStringList{"--force", "token", "revoke", QString::fromLatin1(uuidJob)},
              QStringList{"--force", "token", "revoke", "bull:reports:meta"}}) {
            const CliRun revoked = cli(args);
            QCOMPARE(revoked.exitCode, 3);
            QVERIFY2(revoked.err.contains(QLatin1String("is a key of BullMQ queue")),
                     qPrintable(revoked.err));
        }
        QCOMPARE(call(*m_client, {"EXISTS", uuidJob, "bull:reports:meta"}).toInteger(), 2);
    }

    // Was: another library's verb on a recognised queue ran that library's
    // script and said "There is no job 17 (rq:job:17)" of a job waiting
    // there. The CLI says which library's queue it is and its verbs.
    void anotherLibrarysVerbNamesTheQueue()
    {
        call(*m_client, {"SET", "bq:thumbs:id", "17"});
        call(*m_client, {"HSET", "bq:thumbs:jobs", "17", R"({"data":{},"options":{}})"});
        call(*m_client, {"LPUSH", "bq:thumbs:waiting", "17"});
        call(*m_client, {"SET", "bq:thumbs:stallBlock", "1"});
        for (const char *verb : {"delete", "cancel"}) {
            const CliRun run = cli({"queue", verb, "bq:thumbs", "--job", "17"});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(QLatin1String("\"bq:thumbs\" is a bee-queue queue, which "
                                                    "has no \"%1\"")
                                          .arg(QLatin1String(verb))),
                     qPrintable(run.err));
            QVERIFY2(run.err.contains(QLatin1String("remove")), qPrintable(run.err));
        }
        QCOMPARE(call(*m_client, {"HLEN", "bq:thumbs:jobs"}).toInteger(), 1);
        QCOMPARE(call(*m_client, {"LLEN", "bq:thumbs:waiting"}).toInteger(), 1);
    }

    // Was: a Resque deployment and a Sidekiq one the console showed
    // read-only (a queue's next job another library's) had jobs removed
    // and retried by the CLI: the CLI reads the queues the deployment lists,
    // as the console does, before judging its layout.
    void unknownLayoutsAreNotActedOn()
    {
        call(*m_client, {"SADD", "legacy:queues", "a"});
        call(*m_client, {"RPUSH", "legacy:queue:a",
                         R"({"class":"HardWorker","args":[1],"jid":"0123456789abcdef01234567"})"});
        call(
            *m_client,
            {"RPUSH", "legacy:failed",
             R"({"failed_at":"2026/11/29 16:00:00 UTC","payload":{"class":"X","args":[1]},"exception":"E","error":"boom","queue":"a","worker":"w"})"});
        call(*m_client, {"SADD", "queues", "default"});
        call(*m_client, {"RPUSH", "queue:default", R"({"class":"Mailer","args":[1]})"});
        call(
            *m_client,
            {"ZADD", "retry", "1795990000.5",
             R"({"class":"Mailer","args":[2],"jid":"aaaaaaaaaaaaaaaaaaaaaaaa","queue":"default","retry_count":1,"error_message":"x"})"});
        const QStringList attempts[] = {
            {"queue", "remove", "legacy:queues", "--job", "0"},
            {"queue", "retry", "legacy:queues", "--job", "0"},
            {"queue", "retry", "queues", "--job", "aaaaaaaaaaaaaaaaaaaaaaaa"},
            {"queue", "kill", "queues", "--job", "aaaaaaaaaaaaaaaaaaaaaaaa"},
        };
        for (const QStringList &args : attempts) {
            const CliRun run = cli(args);
            QVERIFY2(run.exitCode == 3, qPrintable(args.join(u' ') + u": " + run.err));
            QVERIFY2(run.err.contains(QLatin1String("layout Gatehouse knows")),
                     qPrintable(run.err));
            QCOMPARE(lastAudit().value(QLatin1String("outcome")).toString(),
                     QStringLiteral("refused"));
        }
        QCOMPARE(call(*m_client, {"LLEN", "legacy:failed"}).toInteger(), 1);
        QCOMPARE(call(*m_client, {"LLEN", "legacy:queue:a"}).toInteger(), 1);
        QCOMPARE(call(*m_client, {"ZCARD", "retry"}).toInteger(), 1);
        QCOMPARE(call(*m_client, {"EXISTS", "dead"}).toInteger(), 0);
    }

    void tokenIssueInputs_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("says");
        auto issue = [](QStringList extra) {
            return QStringList{"token", "issue"} + extra;
        };
        QTest::newRow("JSON string")
            << issue({"code:", "--ttl", "60", "--value", "\"str\""}) << 0 << "";
        QTest::newRow("JSON number") << issue({"code:", "--ttl", "60", "--value", "42"}) << 0 << "";
        QTest::newRow("not JSON") << issue({"code:", "--ttl", "60", "--value", "{x"}) << 2
                                  << "not valid JSON";
        QTest::newRow("two values")
            << issue({"code:", "--ttl", "60", "--value", "1, 2"}) << 2 << "one JSON value";
        QTest::newRow("no separator")
            << issue({"lock:a", "--ttl", "60"}) << 2 << "must end with a separator";
        QTest::newRow("spaces") << issue({"family with spaces:", "--ttl", "60"}) << 2
                                << "contains a space";
        QTest::newRow("glob") << issue({"code*:", "--ttl", "60"}) << 2 << "glob character";
        QTest::newRow("34,800 years")
            << issue({"code:", "--ttl", "1099511627776"}) << 2 << "at most 31622400 s";
        QTest::newRow("lock extend 8 days")
            << QStringList{"lock", "extend", "lock:x", "--token", "t", "--ttl", "691200000"} << 2
            << "at most 604800000 ms";
    }

    // Was: '"str"' refused as invalid JSON; families without a separator and a
    // TTL of 34,800 years accepted.
    void tokenIssueInputs()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, says);
        const CliRun run = cli(args);
        QCOMPARE(run.exitCode, exitCode);
        QVERIFY2(run.err.contains(says), qPrintable(run.err));
        if (exitCode == 0) {
            const QByteArray token = run.out.trimmed().toUtf8();
            QCOMPARE(call(*m_client, {"GET", "code:" + token}).bytes(),
                     args.last().toUtf8()); // stored exactly as given
        } else {
            QCOMPARE(call(*m_client, {"DBSIZE"}).toInteger(), 0);
        }
    }

    // Was: pttlMs -2 for a lock key of another type, though the key exists.
    // Connections the server has taken so far (INFO stats).
    qint64 connectionsReceived()
    {
        const QByteArray info = call(*m_client, {"INFO", "stats"}).bytes();
        const QByteArray field = "total_connections_received:";
        const qsizetype at = info.indexOf(field);
        return at < 0 ? -1 : info.mid(at + field.size()).split('\r').first().toLongLong();
    }

    // A connection marked production (--environment, or GATEHOUSE_ENVIRONMENT
    // set once on a production host): an action runs only with its name
    // typed back; refused, the CLI never connects. Other environments, dry
    // runs and reads need nothing typed.
    void productionAsksForItsName()
    {
        call(*m_client, {"SET", "lock:pay", "tok-1", "PX", "600000"});
        const qint64 before = connectionsReceived();
        QVERIFY(before > 0);
        CliRun run = cli(
            {"--environment", "production", "lock", "release", "lock:pay", "--token", "tok-1"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("is marked PRODUCTION"))
                     && run.err.contains(QLatin1String("\"lock release lock:pay --token tok-1\""))
                     && run.err.contains(QLatin1String("--confirm-environment production"))
                     && run.err.contains(QLatin1String("Nothing was sent")),
                 qPrintable(run.err));
        // From the host's environment variable, and a name typed wrong.
        run = cli({"lock", "release", "lock:pay", "--token", "tok-1"}, QStringLiteral("Prod-EU"));
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("PROD-EU")), qPrintable(run.err));
        run = cli({"--confirm-environment", "production", "lock", "release", "lock:pay", "--token",
                   "tok-1"},
                  QStringLiteral("prod-eu"));
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("is not this connection's environment")),
                 qPrintable(run.err));
        // simulate writes too.
        run = cli({"--environment", "production", "simulate", "--seconds", "1"});
        QCOMPARE(run.exitCode, 3);
        // None of them connected; the lock is where it was; the actions'
        // refusals are audited (simulate is no action).
        QCOMPARE(connectionsReceived(), before);
        QCOMPARE(lastAudit().value(QStringLiteral("outcome")).toString(),
                 QStringLiteral("refused"));
        QCOMPARE(lastAudit().value(QStringLiteral("action")).toString(),
                 QStringLiteral("lock.force-release")); // as the engine names it
        // The entry says on which environment it was refused (as named).
        QCOMPARE(lastAudit().value(QStringLiteral("environment")).toString(),
                 QStringLiteral("prod-eu"));
        QVERIFY(lastAudit()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QLatin1String("is not this connection's environment")));
        // A token's code is its secret: masked in that entry too.
        run = cli({"--environment", "production", "token", "revoke", "code:q7w8e9r0t1y2"});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(lastAudit().value(QStringLiteral("action")).toString(),
                 QStringLiteral("token.revoke"));
        QVERIFY2(!QJsonDocument(lastAudit()).toJson().contains("q7w8e9r0t1y2"),
                 QJsonDocument(lastAudit()).toJson().constData());
        QCOMPARE(call(*m_client, {"GET", "lock:pay"}).bytes(), QByteArray("tok-1"));
        QCOMPARE(call(*m_client, {"DBSIZE"}).toInteger(), 1);

        // A dry run writes nothing and needs nothing typed, but says what
        // the run will need; a name typed wrong is refused as the run is.
        run = cli({"--environment", "production", "--dry-run", "lock", "release", "lock:pay",
                   "--token", "tok-1"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(QLatin1String("--confirm-environment production")),
                 qPrintable(run.out));
        run = cli({"--environment", "staging", "--confirm-environment", "production", "--dry-run",
                   "lock", "release", "lock:pay", "--token", "tok-1"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.out.contains(QLatin1String("it would be refused"))
                     && run.out.contains(QLatin1String("is not this connection's environment")),
                 qPrintable(run.out));
        QCOMPARE(call(*m_client, {"GET", "lock:pay"}).bytes(), QByteArray("tok-1"));
        // Typed back, in any case: it runs, and is audited.
        run = cli({"--environment", "production", "--confirm-environment", "PRODUCTION", "lock",
                   "release", "lock:pay", "--token", "tok-1"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:pay"}).toInteger(), 0);
        QCOMPARE(lastAudit().value(QStringLiteral("outcome")).toString(), QStringLiteral("done"));
        QCOMPARE(lastAudit().value(QStringLiteral("environment")).toString(),
                 QStringLiteral("production"));
        // Staging asks for nothing; its entries say staging.
        call(*m_client, {"SET", "lock:stage", "tok-2", "PX", "600000"});
        run = cli({"lock", "release", "lock:stage", "--token", "tok-2"}, QStringLiteral("staging"));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:stage"}).toInteger(), 0);
        QCOMPARE(lastAudit().value(QStringLiteral("environment")).toString(),
                 QStringLiteral("staging"));
    }

    void wrongTypeLockShowsItsTtl()
    {
        const QString p = profile(R"({"pattern": "lock", "match": "lock:*"})");
        call(*m_client, {"RPUSH", "lock:w", "x"});
        call(*m_client, {"PEXPIRE", "lock:w", "50000"});
        const CliRun run = cli({"--profile", p, "snapshot", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray locks = QJsonDocument::fromJson(run.out.toUtf8())
                                     .object()
                                     .value(QLatin1String("locks"))
                                     .toArray();
        QCOMPARE(locks.size(), 1);
        const QJsonObject lock = locks.first().toObject();
        QCOMPARE(lock.value(QLatin1String("status")).toString(), QStringLiteral("wrong-type"));
        const double pttl = lock.value(QLatin1String("pttlMs")).toDouble();
        QVERIFY2(pttl > 40000 && pttl <= 50000, qPrintable(QString::number(pttl)));
    }
};

QTEST_GUILESS_MAIN(tst_CliSafety)
#include "tst_clisafety.moc"
