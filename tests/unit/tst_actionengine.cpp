// SPDX-License-Identifier: MIT
// The actions engine without a server: what the operator is shown before an
// action runs (describe), what each reply of Gatehouse's scripts means
// (interpret, interpretDryRun), keyspace events turned on without losing the
// flags already set, and the guards that keep anything from being sent
// (read-only mode, no connection), each written to the audit log. Every call
// is built by the pattern's own action, as the console and the CLI build it.
#include <actions/actionengine.h>
#include <patterns/countedsentence.h>
#include <patterns/patternaction.h>
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>
#include <redis/redisendpoint.h>
#include <redis/redisscript.h>
#include <redis/serveridentity.h>
#include <redis/serverinfo.h>

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace gatehouse;
using R = ActionOutcome::Result;
using Inputs = QHash<QString, QByteArray>;

namespace {

const QByteArray s_lockKey = "lock:orders";
const QByteArray s_semaphoreKey = "sim:sem:gpu";
const QByteArray s_tokenKey = "code:7f3a9b2c1d";

// The call a pattern's action builds for a request; an invalid call whose
// refusal says what went wrong when the pattern has no such action or the
// request does not pass the action's own check.
ScriptCall build(const QString &actionId, const ActionRequest &request)
{
    ScriptCall problem;
    const PatternUnit *unit = PatternRegistry::instance().find(request.object->kind);
    if (!unit) {
        problem.refusal = QStringLiteral("no pattern %1").arg(request.object->kind.id());
        return problem;
    }
    for (const PatternAction &a : unit->actions()) {
        if (a.id != actionId)
            continue;
        if (a.check) {
            if (const QString why = a.check(request); !why.isEmpty()) {
                problem.refusal = why;
                return problem;
            }
        }
        return a.build(request);
    }
    problem.refusal = QStringLiteral("%1 has no action %2").arg(unit->kind().id(), actionId);
    return problem;
}

ActionRequest requestFor(const char *kind, const QByteArray &key,
                         QHash<QString, QByteArray> inputs = {})
{
    ActionRequest r;
    r.object.edit().kind = PatternKind(kind);
    r.object.edit().key = key;
    r.target = key;
    r.inputs = std::move(inputs);
    return r;
}

ActionRequest queueRequest(QHash<QString, QByteArray> inputs)
{
    ActionRequest r = requestFor("reliable-queue", "q", std::move(inputs));
    r.object.edit().related = {"q:processing", "q:claims", "q:dead"};
    return r;
}

// Every call the tests interpret, by name: the pattern actions with fixed
// keys and inputs, a forced one, and the engine's own keyspace-events call.
ScriptCall callFor(const QString &name)
{
    const QHash<QString, QByteArray> token{{QStringLiteral("token"), "tok-5f2a9c"}};
    if (name == QLatin1String("lock.force-release"))
        return build(name, requestFor("lock", s_lockKey, token));
    if (name == QLatin1String("lock.force-release forced"))
        return build(QStringLiteral("lock.force-release"), requestFor("lock", s_lockKey, token))
            .forced();
    if (name == QLatin1String("lock.extend"))
        return build(name, requestFor("lock", s_lockKey,
                                      {{QStringLiteral("token"), "tok-5f2a9c"},
                                       {QStringLiteral("ttl"), "90000"}}));
    if (name == QLatin1String("semaphore.release"))
        return build(name, requestFor("sorted-set-semaphore", s_semaphoreKey,
                                      {{QStringLiteral("holder"), "worker-7"},
                                       {QStringLiteral("score"), "1700000000123"}}));
    if (name == QLatin1String("queue.requeue") || name == QLatin1String("queue.dead-letter"))
        return build(name, queueRequest({{QStringLiteral("job"), "jobA"}}));
    if (name == QLatin1String("queue.requeue-stuck"))
        return build(QStringLiteral("queue.requeue"),
                     queueRequest({{QStringLiteral("stuck"), QByteArray()},
                                   {QStringLiteral("older-than"), "60000"}}));
    if (name == QLatin1String("token.revoke")) {
        ActionRequest r = requestFor("token-family", "code:");
        r.target = s_tokenKey;
        r.families = {"code:"};
        return build(name, r);
    }
    if (name == QLatin1String("token.issue"))
        return build(name, requestFor("token-family", "code:", {{QStringLiteral("ttl"), "600"}}));
    if (name == QLatin1String("limiter.reset")) {
        ActionRequest r = requestFor("sliding-window", "rl:api");
        r.object.edit().related = {"rl:api:retry"};
        return build(name, r);
    }
    if (name == QLatin1String("events.enable"))
        return ActionEngine::enableKeyspaceEvents("Ex");
    ScriptCall none;
    none.refusal = QStringLiteral("no call named ") + name;
    return none;
}

QString scriptSha1(const QString &script)
{
    return QString::fromLatin1(QCryptographicHash::hash(RedisScript::fromResource(script).source(),
                                                        QCryptographicHash::Sha1)
                                   .toHex());
}

// A loopback port nobody listens on.
quint16 closedPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 1;
    return probe.serverPort(); // closed again when probe goes
}

} // namespace

class tst_ActionEngine : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // What an action did, in English: one job, two jobs (never "1 jobs").
    void countedSentenceSaysOneInTheSingular_data()
    {
        QTest::addColumn<QString>("sentence");
        QTest::addColumn<qint64>("n");
        QTest::addColumn<QString>("said");
        QTest::newRow("one") << "Requeued %1 stuck jobs." << qint64(1) << "Requeued 1 stuck job.";
        QTest::newRow("two") << "Requeued %1 stuck jobs." << qint64(2) << "Requeued 2 stuck jobs.";
        QTest::newRow("zero") << "Removed %1 jobs." << qint64(0) << "Removed 0 jobs.";
        QTest::newRow("hyphen") << "Requeued %1 lease-expired tasks." << qint64(1)
                                << "Requeued 1 lease-expired task.";
        QTest::newRow("a word after")
            << "Moved %1 due items to the queue." << qint64(1) << "Moved 1 due item to the queue.";
        QTest::newRow("a second argument")
            << "%1 %2 jobs would be removed." << qint64(1) << "1 %2 job would be removed.";
        QTest::newRow("ies") << "Gave %1 entries of group \"%2\"." << qint64(1)
                             << "Gave 1 entry of group \"%2\".";
        QTest::newRow("ies, two") << "Deleted %1 entries." << qint64(2) << "Deleted 2 entries.";
        QTest::newRow("a word before the count")
            << "Stale: %1 objects, nothing read since %2." << qint64(1)
            << "Stale: 1 object, nothing read since %2.";
    }

    void countedSentenceSaysOneInTheSingular()
    {
        QFETCH(QString, sentence);
        QFETCH(qint64, n);
        QFETCH(QString, said);
        QCOMPARE(countedSentence(sentence, n), said);
    }

    // The confirmation shows the script by file and SHA1 (what EVALSHA runs)
    // and every KEY and ARGV byte for byte: binary bytes escaped, nothing cut
    // at a NUL.
    void describeShowsScriptKeysAndArgs_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<Inputs>("inputs");
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("keysLine");
        QTest::addColumn<QString>("argsLine");

        QTest::newRow("lock release, NUL and invalid UTF-8")
            << "lock.force-release" << QByteArray("lock:\0ab\xff\xfe:tail", 15)
            << Inputs{{QStringLiteral("token"), QByteArray("tok\0en\n", 7)}}
            << "lua/lock/lock_release.lua"
            << "KEYS: [\"lock:\\x00ab\\xff\\xfe:tail\"]"
            << "ARGV: [\"tok\\x00en\\n\", \"256\", \"\"]";
        QTest::newRow("lock extend, quotes and backslash")
            << "lock.extend" << QByteArray("lock:\"a\\b\"")
            << Inputs{{QStringLiteral("token"), "t\"1"}, {QStringLiteral("ttl"), "90000"}}
            << "lua/lock/lock_extend.lua"
            << "KEYS: [\"lock:\\\"a\\\\b\\\"\"]"
            << "ARGV: [\"t\\\"1\", \"90000\", \"256\"]";
        QTest::newRow("semaphore release, invalid UTF-8 holder")
            << "semaphore.release" << QByteArray("sim:sem:gpu")
            << Inputs{{QStringLiteral("holder"), "w\xc3(7"},
                      {QStringLiteral("score"), "1700000000123"}}
            << "lua/sorted-set-semaphore/semaphore_release.lua"
            << "KEYS: [\"sim:sem:gpu\"]"
            << "ARGV: [\"w\\xc3(7\", \"1700000000123\"]";
        // A long key whole: its tail is what tells two keys of one queue apart.
        const QByteArray longKey = "lock:" + QByteArray(300, 'e') + ":tail";
        QTest::newRow("lock release, a 310-byte key whole")
            << "lock.force-release" << longKey << Inputs{{QStringLiteral("token"), "t1"}}
            << "lua/lock/lock_release.lua"
            << QStringLiteral("KEYS: [\"%1\"]").arg(QString::fromLatin1(longKey))
            << "ARGV: [\"t1\", \"256\", \"\"]";
        // Past 1,024 bytes: the head and the tail, and how much is between them.
        const QByteArray hugeKey = "lock:" + QByteArray(2000, 'h') + ":end";
        QTest::newRow("lock release, a 2,009-byte key by its ends")
            << "lock.force-release" << hugeKey << Inputs{{QStringLiteral("token"), "t1"}}
            << "lua/lock/lock_release.lua"
            << QStringLiteral("KEYS: [\"%1\u2026 (2009 bytes in all; 1049 not shown) \u2026%2\"]")
                   .arg(QString::fromLatin1(hugeKey.left(480)),
                        QString::fromLatin1(hugeKey.right(480)))
            << "ARGV: [\"t1\", \"256\", \"\"]";
        QTest::newRow("semaphore release, UTF-8 key")
            << "semaphore.release" << QByteArray("sem:caf\xc3\xa9")
            << Inputs{{QStringLiteral("holder"), "h1"}, {QStringLiteral("score"), "-5"}}
            << "lua/sorted-set-semaphore/semaphore_release.lua"
            << "KEYS: [\"sem:caf\\xc3\\xa9\"]"
            << "ARGV: [\"h1\", \"-5\"]";
    }

    void describeShowsScriptKeysAndArgs()
    {
        QFETCH(QString, action);
        QFETCH(QByteArray, key);
        QFETCH(Inputs, inputs);
        QFETCH(QString, script);
        QFETCH(QString, keysLine);
        QFETCH(QString, argsLine);
        const char *kind
            = action.startsWith(QLatin1String("lock")) ? "lock" : "sorted-set-semaphore";
        const ScriptCall call = build(action, requestFor(kind, key, inputs));
        QVERIFY2(call.isValid(), qPrintable(call.refusal));
        const QStringList lines = ActionEngine::describe(call).split(QLatin1Char('\n'));
        // What each key is, on its own line, when the call names them all.
        const bool roles = !call.keyRoles.isEmpty();
        QCOMPARE(lines.size(), roles ? 5 : 4);
        QCOMPARE(lines.at(0), call.summary);
        QCOMPARE(lines.at(1).trimmed(),
                 QStringLiteral("script: %1 (EVALSHA %2)").arg(script, scriptSha1(call.script)));
        QCOMPARE(lines.at(2).trimmed(), keysLine);
        if (roles)
            QCOMPARE(lines.at(3).trimmed(),
                     QStringLiteral("KEYS are: ") + call.keyRoles.join(QStringLiteral("; ")));
        QCOMPARE(lines.last().trimmed(), argsLine);
    }

    // Every pattern action's call shows each of its keys and arguments.
    void describeListsEveryKeyOfEveryAction_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *name : {"lock.force-release", "lock.extend", "semaphore.release",
                                 "queue.requeue", "queue.dead-letter", "queue.requeue-stuck",
                                 "token.revoke", "token.issue", "limiter.reset"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void describeListsEveryKeyOfEveryAction()
    {
        QFETCH(QString, name);
        const ScriptCall call = callFor(name);
        QVERIFY2(call.isValid(), qPrintable(call.refusal));
        const QString text = ActionEngine::describe(call);
        QVERIFY2(text.contains(scriptSha1(call.script)), qPrintable(text));
        // A token being issued is a secret until it is created: its first
        // four bytes stand for it, and the whole of it is nowhere.
        const auto shown = [&](QByteArray v) -> QString {
            if (!call.issued.isEmpty())
                v.replace(call.issued, QByteArray(call.issued.left(4) + "..."));
            return QLatin1Char('"') + QString::fromLatin1(v) + QLatin1Char('"');
        };
        if (!call.issued.isEmpty()) {
            QVERIFY(!text.contains(QString::fromLatin1(call.issued)));
            QVERIFY(!call.summary.contains(QString::fromLatin1(call.issued)));
        }
        QStringList keys, args;
        for (const QByteArray &k : call.keys)
            keys << shown(k);
        for (const QByteArray &a : call.args)
            args << shown(a);
        QVERIFY2(text.contains(QStringLiteral("KEYS: [%1]").arg(keys.join(QLatin1String(", ")))),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("ARGV: [%1]").arg(args.join(QLatin1String(", ")))),
                 qPrintable(text));
    }

    // A plain command (CONFIG SET) is shown as the command itself.
    void describeShowsACommand()
    {
        const QString text = ActionEngine::describe(ActionEngine::enableKeyspaceEvents("Ex"));
        QVERIFY2(text.endsWith(QLatin1String(
                     "\n  command: \"CONFIG\", \"SET\", \"notify-keyspace-events\", \"ExKA\"")),
                 qPrintable(text));
        QVERIFY(!text.contains(QLatin1String("EVALSHA")));
    }

    // Every reply shape of the scripts, and the server's errors, give the
    // right outcome, whether it can be forced, and a sentence naming what it
    // acted on ("%key" is the call's first key).
    void interpret_data()
    {
        QTest::addColumn<QString>("call");
        QTest::addColumn<RedisValue>("reply");
        QTest::addColumn<int>("result");
        QTest::addColumn<bool>("forceable");
        QTest::addColumn<QStringList>("mentions");
        using V = RedisValue;
        const QString lock = QStringLiteral("lock.force-release");
        const QString sem = QStringLiteral("semaphore.release");

        QTest::newRow("lock released") << lock << V::integer(1) << int(R::Done) << false
                                       << QStringList{"Released lock \"lock:orders\"."};
        QTest::newRow("lock gone") << lock << V::nil() << int(R::NothingDone) << false
                                   << QStringList{"\"lock:orders\"", "gone", "nothing changed"};
        QTest::newRow("lock held by another token")
            << lock << V::array({V::bulk("tok-other"), V::integer(9)}) << int(R::NothingDone)
            << false << QStringList{"\"lock:orders\"", "\"tok-other\"", "not the one shown"};
        QTest::newRow("lock held by a long value, cut")
            << lock << V::array({V::bulk(QByteArray(256, 'x')), V::integer(104857600)})
            << int(R::NothingDone) << false << QStringList{"\"lock:orders\"", "(104857600 bytes)"};
        QTest::newRow("lock wrong type")
            << lock << V::error("GHTYPE 1 list string") << int(R::Refused) << true
            << QStringList{"\"lock:orders\" (the lock) is a list, not a string",
                           "nothing was written", "--force"};
        QTest::newRow("lock wrong type, already forced")
            << "lock.force-release forced" << V::error("GHTYPE 1 hash string") << int(R::Refused)
            << false << QStringList{"\"lock:orders\" (the lock) is a hash, not a string"};
        QTest::newRow("lock extended") << "lock.extend" << V::integer(1) << int(R::Done) << false
                                       << QStringList{"Extended lock \"lock:orders\" to 90000 ms."};
        QTest::newRow("lock extend, gone") << "lock.extend" << V::nil() << int(R::NothingDone)
                                           << false << QStringList{"\"lock:orders\"", "gone"};

        QTest::newRow("semaphore released")
            << sem << V::array({V::integer(1), V::bulk("released")}) << int(R::Done) << false
            << QStringList{"Released holder \"worker-7\" of semaphore \"sim:sem:gpu\"."};
        QTest::newRow("semaphore holder gone")
            << sem << V::array({V::integer(0), V::bulk("gone")}) << int(R::NothingDone) << false
            << QStringList{"\"worker-7\"", "\"sim:sem:gpu\"", "no longer holds", "nothing changed"};
        QTest::newRow("semaphore holder re-acquired")
            << sem << V::array({V::integer(0), V::bulk("changed"), V::bulk("1700000009999")})
            << int(R::NothingDone) << false
            << QStringList{"\"worker-7\"", "\"sim:sem:gpu\"", "1700000009999", "not the one shown"};
        // Not forceable: the release cannot skip its checks, so --force is not offered.
        QTest::newRow("semaphore wrong type")
            << sem << V::error("GHTYPE 1 string zset") << int(R::Refused) << false
            << QStringList{"\"sim:sem:gpu\" (the semaphore) is a string, not a sorted set",
                           "nothing was written"};
        QTest::newRow("semaphore bad score")
            << sem
            << V::error("ERR semaphore_release: the shown score must be a whole number of ms")
            << int(R::Failed) << false
            << QStringList{"semaphore.release", "\"sim:sem:gpu\"", "whole number of ms"};

        QTest::newRow("requeued") << "queue.requeue" << V::integer(1) << int(R::Done) << false
                                  << QStringList{"Moved job \"jobA\" back to the queue."};
        QTest::newRow("requeue, job gone")
            << "queue.requeue" << V::integer(0) << int(R::NothingDone) << false
            << QStringList{"\"jobA\"", "no longer in flight"};
        QTest::newRow("requeue, processing list wrong type")
            << "queue.requeue" << V::error("GHTYPE 2 string list") << int(R::Refused) << false
            << QStringList{"\"q:processing\" (the processing list) is a string, not a list"};
        QTest::newRow("dead-lettered")
            << "queue.dead-letter" << V::integer(1) << int(R::Done) << false
            << QStringList{"Moved job \"jobA\" to the dead-letter list."};
        QTest::newRow("dead-letter list wrong type")
            << "queue.dead-letter" << V::error("GHTYPE 2 hash list") << int(R::Refused) << false
            << QStringList{"\"q:dead\" (the dead-letter list) is a hash, not a list"};
        QTest::newRow("requeued stuck")
            << "queue.requeue-stuck"
            << V::array({V::integer(3), V::integer(2), V::array({V::bulk("j1"), V::bulk("j2")})})
            << int(R::Done) << false << QStringList{"Requeued 2 stuck jobs.", "Dropped 1 claim(s)"};
        QTest::newRow("nothing stuck")
            << "queue.requeue-stuck" << V::array({V::integer(0), V::integer(0), V::array({})})
            << int(R::NothingDone) << false << QStringList{"No job was stuck; nothing changed."};

        QTest::newRow("token revoked")
            << "token.revoke" << V::bulk("string") << int(R::Done) << false
            << QStringList{"Revoked token \"code:7f3a9b2c1d\"."};
        QTest::newRow("token already gone")
            << "token.revoke" << V::nil() << int(R::NothingDone) << false
            << QStringList{"\"code:7f3a9b2c1d\"", "does not exist", "nothing changed"};
        QTest::newRow("token wrong type")
            << "token.revoke" << V::error("GHTYPE 1 zset string|hash") << int(R::Refused) << true
            << QStringList{"\"code:7f3a9b2c1d\" (the token) is a sorted set, not a string or hash",
                           "--force"};
        QTest::newRow("token issued") << "token.issue" << V::integer(1) << int(R::Done) << false
                                      << QStringList{"Issued token \"%key\"."};
        QTest::newRow("token collision")
            << "token.issue" << V::integer(0) << int(R::NothingDone) << false
            << QStringList{"\"%key\"", "nothing was overwritten"};

        QTest::newRow("limiter reset") << "limiter.reset" << V::integer(2) << int(R::Done) << false
                                       << QStringList{"Deleted 2 key(s) of limiter \"rl:api\"."};
        QTest::newRow("limiter had no keys")
            << "limiter.reset" << V::integer(0) << int(R::NothingDone) << false
            << QStringList{"\"rl:api\"", "had no keys", "nothing changed"};
        QTest::newRow("limiter retry set is a leaderboard")
            << "limiter.reset" << V::error("GHSHAPE 2 scores are not times (3)") << int(R::Refused)
            << true
            << QStringList{"\"rl:api:retry\" (the retry set) does not look like one",
                           "scores are not times (3)", "nothing was written", "--force"};

        QTest::newRow("events on") << "events.enable" << V::status("OK") << int(R::Done) << false
                                   << QStringList{"Keyspace notifications are on (ExKA)."};

        // Errors from the server: failed, never forceable, the server's words kept.
        QTest::newRow("WRONGTYPE inside the script")
            << lock << V::error("WRONGTYPE Operation against a key holding the wrong kind of value")
            << int(R::Failed) << false
            << QStringList{"lock.force-release", "\"lock:orders\"", "WRONGTYPE"};
        QTest::newRow("NOSCRIPT") << sem
                                  << V::error("NOSCRIPT No matching script. Please use EVAL.")
                                  << int(R::Failed) << false
                                  << QStringList{"semaphore.release", "\"sim:sem:gpu\"",
                                                 "NOSCRIPT"};
        QTest::newRow("NOPERM for the script command")
            << lock << V::error("NOPERM this user has no permissions to run the 'evalsha' command")
            << int(R::Failed) << false
            << QStringList{"lock.force-release", "may not run EVALSHA",
                           "ACL SETUSER <user> +evalsha"};
        QTest::newRow("NOPERM for the keys")
            << sem
            << V::error("NOPERM this user has no permissions to access one of the keys used as "
                        "arguments")
            << int(R::Failed) << false
            << QStringList{"semaphore.release", "may not access the keys it names",
                           "\"sim:sem:gpu\""};
        QTest::newRow("reply lost after sending")
            << lock
            << V::failed("Connection to 127.0.0.1:6379 lost: remote host closed. The command may "
                         "or may not have run; it was not retried.")
            << int(R::Unknown) << false
            << QStringList{"may or may not have run", "remote host closed",
                           "check \"lock:orders\""};
        QTest::newRow("not sent")
            << sem
            << V::failed("Not connected to 127.0.0.1:6379: Connection refused. Next attempt in 87 "
                         "ms.")
            << int(R::Failed) << false
            << QStringList{"semaphore.release was not sent, so nothing ran", "Connection refused"};
    }

    void interpret()
    {
        QFETCH(QString, call);
        QFETCH(RedisValue, reply);
        QFETCH(int, result);
        QFETCH(bool, forceable);
        QFETCH(QStringList, mentions);
        const ScriptCall sc = callFor(call);
        QVERIFY2(sc.isValid(), qPrintable(sc.refusal));
        const ActionOutcome out = ActionEngine::interpret(sc, reply);
        QVERIFY2(out.result == R(result),
                 qPrintable(resultId(out.result) + QLatin1String(": ") + out.message));
        QCOMPARE(out.forceable, forceable);
        QCOMPARE(out.reply, reply);
        const QString key = sc.keys.isEmpty() ? QString() : QString::fromLatin1(sc.keys.first());
        for (QString m : mentions) {
            m.replace(QLatin1String("%key"), key);
            QVERIFY2(out.message.contains(m), qPrintable(out.message + QLatin1String(" / ") + m));
        }
        // One line for the operator, ending as a sentence, without retry noise.
        QVERIFY2(!out.message.contains(QLatin1Char('\n')), qPrintable(out.message));
        QVERIFY2(out.message.endsWith(QLatin1Char('.')), qPrintable(out.message));
        QVERIFY2(!out.message.contains(QLatin1String("Next attempt")), qPrintable(out.message));
        QVERIFY2(out.message.size() < 400, qPrintable(out.message));
        // --force is offered exactly when it would act.
        QCOMPARE(out.message.contains(QLatin1String("--force")), forceable);
    }

    // A dry run (EVAL_RO): the checks pass when the script reached its first
    // write; otherwise it says what running it would do, and never that
    // anything was written.
    void interpretDryRun_data()
    {
        QTest::addColumn<QString>("call");
        QTest::addColumn<RedisValue>("reply");
        QTest::addColumn<int>("wouldBe");
        QTest::addColumn<bool>("forceable");
        QTest::addColumn<QStringList>("mentions");
        using V = RedisValue;
        const RedisValue readOnly
            = V::error("ERR Write commands are not allowed from read-only scripts. script: "
                       "8d1b0a..., on @user_script:27.");
        QTest::newRow("lock: checks pass")
            << "lock.force-release" << readOnly << int(R::Done) << false
            << QStringList{"the checks pass, so it would run as described"};
        QTest::newRow("semaphore: checks pass")
            << "semaphore.release" << readOnly << int(R::Done) << false
            << QStringList{"the checks pass, so it would run as described"};
        QTest::newRow("semaphore: holder re-acquired")
            << "semaphore.release"
            << V::array({V::integer(0), V::bulk("changed"), V::bulk("1700000009999")})
            << int(R::NothingDone) << false
            << QStringList{"it would not act:", "\"sim:sem:gpu\"", "not the one shown"};
        QTest::newRow("semaphore: gone")
            << "semaphore.release" << V::array({V::integer(0), V::bulk("gone")})
            << int(R::NothingDone) << false
            << QStringList{"it would not act:", "\"sim:sem:gpu\"", "no longer holds"};
        QTest::newRow("semaphore: wrong type")
            << "semaphore.release" << V::error("GHTYPE 1 list zset") << int(R::Refused) << false
            << QStringList{"it would not act:", "\"sim:sem:gpu\" (the semaphore) is a list"};
        QTest::newRow("lock: wrong type, forceable")
            << "lock.force-release" << V::error("GHTYPE 1 set string") << int(R::Refused) << true
            << QStringList{"it would not act:", "\"lock:orders\" (the lock) is a set", "--force"};
        QTest::newRow("lock: gone") << "lock.force-release" << V::nil() << int(R::NothingDone)
                                    << false << QStringList{"it would not act:", "gone"};
        QTest::newRow("queue: nothing stuck")
            << "queue.requeue-stuck" << V::array({V::integer(0), V::integer(0), V::array({})})
            << int(R::NothingDone) << false << QStringList{"it would not act:", "No job was stuck"};
        QTest::newRow("EVAL_RO not allowed")
            << "lock.force-release"
            << V::error("NOPERM this user has no permissions to run the 'eval_ro' command")
            << int(R::Done) << false
            << QStringList{"could not run the checks read-only", "eval_ro",
                           "only the description above is known"};
    }

    void interpretDryRun()
    {
        QFETCH(QString, call);
        QFETCH(RedisValue, reply);
        QFETCH(int, wouldBe);
        QFETCH(bool, forceable);
        QFETCH(QStringList, mentions);
        const ScriptCall sc = callFor(call);
        QVERIFY2(sc.isValid(), qPrintable(sc.refusal));
        const ActionOutcome out = ActionEngine::interpretDryRun(sc, reply);
        QCOMPARE(out.result, R::DryRun);
        QVERIFY2(out.wouldBe == R(wouldBe), qPrintable(resultId(out.wouldBe)));
        QCOMPARE(out.forceable, forceable);
        QVERIFY2(out.message.startsWith(QLatin1String("Dry run: nothing was written; ")),
                 qPrintable(out.message));
        for (const QString &m : mentions)
            QVERIFY2(out.message.contains(m), qPrintable(out.message + QLatin1String(" / ") + m));
        QVERIFY2(!out.message.contains(QLatin1Char('\n')), qPrintable(out.message));
    }

    // CONFIG SET keeps every flag the server had and adds K and A once each.
    void enableKeyspaceEvents_data()
    {
        QTest::addColumn<QByteArray>("current");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("off") << QByteArray() << QByteArray("KA");
        QTest::newRow("expired events only") << QByteArray("Ex") << QByteArray("ExKA");
        QTest::newRow("already on") << QByteArray("KEA") << QByteArray("KEA");
        QTest::newRow("A first") << QByteArray("AK") << QByteArray("AK");
        QTest::newRow("keyspace without A") << QByteArray("Kgx") << QByteArray("KgxA");
        QTest::newRow("A without K") << QByteArray("EA") << QByteArray("EAK");
        QTest::newRow("every class spelled out")
            << QByteArray("Eg$lshzxetd") << QByteArray("Eg$lshzxetdKA");
    }

    void enableKeyspaceEvents()
    {
        QFETCH(QByteArray, current);
        QFETCH(QByteArray, expected);
        const ScriptCall call = ActionEngine::enableKeyspaceEvents(current);
        QVERIFY(call.isValid());
        QVERIFY(call.script.isEmpty());
        QCOMPARE(call.action, QStringLiteral("events.enable"));
        QCOMPARE(call.command,
                 (QList<QByteArray>{"CONFIG", "SET", "notify-keyspace-events", expected}));
        QCOMPARE(call.command.at(3).count('K'), 1);
        QCOMPARE(call.command.at(3).count('A'), 1);
        QVERIFY2(call.summary.contains(QLatin1Char('"') + QString::fromLatin1(expected)
                                       + QLatin1Char('"')),
                 qPrintable(call.summary));
    }

    // The audit log's outcome names, which scripts reading it match on.
    void resultIds()
    {
        QCOMPARE(resultId(R::Done), QStringLiteral("done"));
        QCOMPARE(resultId(R::NothingDone), QStringLiteral("nothing-done"));
        QCOMPARE(resultId(R::Refused), QStringLiteral("refused"));
        QCOMPARE(resultId(R::Failed), QStringLiteral("failed"));
        QCOMPARE(resultId(R::DryRun), QStringLiteral("dry-run"));
        QCOMPARE(resultId(R::Unknown), QStringLiteral("unknown"));
    }

    // Read-only mode refuses at once, before anything reaches the client (so
    // even a dry run or a forced call sends nothing), and audits the refusal.
    void readOnlyRefusesAndAudits_data()
    {
        QTest::addColumn<bool>("dryRun");
        QTest::addColumn<bool>("forced");
        QTest::newRow("run") << false << false;
        QTest::newRow("dry run") << true << false;
        QTest::newRow("forced") << false << true;
    }

    void readOnlyRefusesAndAudits()
    {
        QFETCH(bool, dryRun);
        QFETCH(bool, forced);
        RedisEndpoint endpoint;
        endpoint.port = closedPort();
        RedisClient client(endpoint); // never opened: anything sent would fail, not be refused
        ActionEngine engine(&client);
        engine.setReadOnly(true);
        QVERIFY(engine.isReadOnly());
        const QString path = m_dir.filePath(
            QStringLiteral("%1.jsonl").arg(QString::fromLatin1(QTest::currentDataTag())));
        engine.setAuditLogPath(path);
        QSignalSpy audited(&engine, &ActionEngine::audited);

        const QByteArray key("lock:\0\xff", 7);
        ScriptCall call = build(QStringLiteral("lock.force-release"),
                                requestFor("lock", key, {{QStringLiteral("token"), "tok-1"}}));
        QVERIFY2(call.isValid(), qPrintable(call.refusal));
        if (forced)
            call = call.forced();
        std::optional<ActionOutcome> outcome;
        engine.run(call, dryRun, this, [&](const ActionOutcome &o) { outcome = o; });
        QVERIFY(outcome); // answered within run(): no round trip to any server
        QCOMPARE(outcome->result, R::Refused);
        QVERIFY2(outcome->message.contains(QLatin1String("Read-only mode")),
                 qPrintable(outcome->message));
        // In the console's words (the action's label), with its key: not the
        // action's id.
        QVERIFY2(outcome->message.contains(QLatin1String("Force release of lock:"))
                     && outcome->message.contains(QLatin1String(" was not run; nothing was sent")),
                 qPrintable(outcome->message));
        QVERIFY2(!outcome->message.contains(QLatin1String("lock.force")),
                 qPrintable(outcome->message));
        QVERIFY(!outcome->forceable);
        QCOMPARE(client.state(), ConnectionState::Disconnected);

        QCOMPARE(audited.size(), 1);
        const QList<QJsonObject> entries = ActionEngine::readAudit(path);
        QCOMPARE(entries.size(), 1);
        const QJsonObject &e = entries.first();
        QCOMPARE(e, audited.first().first().toJsonObject());
        QCOMPARE(e.value(QLatin1String("action")).toString(), QStringLiteral("lock.force-release"));
        QCOMPARE(e.value(QLatin1String("outcome")).toString(), QStringLiteral("refused"));
        QCOMPARE(e.value(QLatin1String("message")).toString(), outcome->message);
        QCOMPARE(e.value(QLatin1String("force")).toBool(), forced);
        QCOMPARE(e.value(QLatin1String("script")).toString(), QStringLiteral("lock_release"));
        // A binary key is kept whole in the audit log (base64), not cut at the NUL.
        const QJsonArray keys = e.value(QLatin1String("keys")).toArray();
        QCOMPARE(keys.size(), 1);
        QCOMPARE(QByteArray::fromBase64(
                     keys.at(0).toObject().value(QLatin1String("base64")).toString().toLatin1()),
                 key);
        QCOMPARE(e.value(QLatin1String("connection")).toString(), endpoint.displayUrl());
        QVERIFY(e.value(QLatin1String("timeMs")).toDouble() > 1.7e12);
    }

    // A token (or token field) that an action issues is shown to the operator
    // once and written nowhere: its audit entry, keys, arguments and message,
    // holds only its first four bytes. A token field was audited whole.
    void issuedSecretIsNeverAudited_data()
    {
        QTest::addColumn<QString>("action");
        QTest::newRow("token.issue") << QStringLiteral("token.issue");
        QTest::newRow("token.issue-field") << QStringLiteral("token.issue-field");
    }

    void issuedSecretIsNeverAudited()
    {
        QFETCH(QString, action);
        ScriptCall call;
        if (action == QLatin1String("token.issue")) {
            call = callFor(action);
        } else {
            ActionRequest r = requestFor(
                "token-hash", "otp:pending",
                {{QStringLiteral("ttl"), "120"}, {QStringLiteral("value"), "user:42"}});
            r.server = ServerIdentity::fromInfo(parseInfo("redis_version:7.4.1\r\n"));
            call = build(action, r);
        }
        QVERIFY2(call.isValid(), qPrintable(call.refusal));
        QVERIFY(call.issued.size() > 8);
        RedisEndpoint endpoint;
        endpoint.port = closedPort();
        RedisClient client(endpoint); // never opened: refused before anything is sent
        ActionEngine engine(&client);
        engine.setReadOnly(true);
        const QString path = m_dir.filePath(action + QStringLiteral(".jsonl"));
        engine.setAuditLogPath(path);
        std::optional<ActionOutcome> outcome;
        engine.run(call, false, this, [&](const ActionOutcome &o) { outcome = o; });
        QVERIFY(outcome);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray written = file.readAll();
        QVERIFY(!written.isEmpty());
        QVERIFY2(!written.contains(call.issued), written.constData());
        QVERIFY2(written.contains(QByteArray(call.issued.left(4) + "...")), written.constData());
    }

    // With no connection, a run fails saying it was not sent and why, and
    // the attempt is audited.
    void disconnectedRunFailsAndIsAudited()
    {
        RedisEndpoint endpoint;
        endpoint.port = closedPort();
        RedisClient client(endpoint);
        ActionEngine engine(&client);
        const QString path = m_dir.filePath(QStringLiteral("disconnected.jsonl"));
        engine.setAuditLogPath(path);
        const ScriptCall call = callFor(QStringLiteral("semaphore.release"));
        QVERIFY2(call.isValid(), qPrintable(call.refusal));
        std::optional<ActionOutcome> outcome;
        engine.run(call, false, this, [&](const ActionOutcome &o) { outcome = o; });
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 5000);
        QCOMPARE(outcome->result, R::Failed);
        QVERIFY2(outcome->message.startsWith(
                     QLatin1String("semaphore.release was not sent, so nothing ran: ")),
                 qPrintable(outcome->message));
        QVERIFY2(outcome->message.contains(endpoint.address()), qPrintable(outcome->message));
        QVERIFY2(outcome->message.contains(QLatin1String("Try again once the connection is back")),
                 qPrintable(outcome->message));

        const QList<QJsonObject> entries = ActionEngine::readAudit(path);
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries.first().value(QLatin1String("outcome")).toString(),
                 QStringLiteral("failed"));
        QCOMPARE(entries.first().value(QLatin1String("keys")).toArray(),
                 QJsonArray{QStringLiteral("sim:sem:gpu")});
        QCOMPARE(entries.first().value(QLatin1String("args")).toArray(),
                 (QJsonArray{QStringLiteral("worker-7"), QStringLiteral("1700000000123")}));
    }

    // A call its pattern could not build (a queue without a claims set asked
    // to requeue stuck jobs) is not sent, says why, and is audited.
    void invalidCallSaysWhy()
    {
        RedisEndpoint endpoint;
        endpoint.port = closedPort();
        RedisClient client(endpoint);
        ActionEngine engine(&client);
        const QString path = m_dir.filePath(QStringLiteral("invalid.jsonl"));
        engine.setAuditLogPath(path);
        ActionRequest request
            = requestFor("reliable-queue", "q:noclaims", {{QStringLiteral("stuck"), QByteArray()}});
        request.object.edit().related = {"q:noclaims:processing"};
        const ScriptCall call = build(QStringLiteral("queue.requeue"), request);
        QVERIFY(!call.isValid());
        QVERIFY(!call.refusal.isEmpty());
        std::optional<ActionOutcome> outcome;
        engine.run(call, false, this, [&](const ActionOutcome &o) { outcome = o; });
        QVERIFY(outcome);
        // A refusal (the layout does not allow it: nothing sent), exit 3 in
        // the CLI; without a reason it could not be made at all.
        QCOMPARE(outcome->result, R::Refused);
        QVERIFY2(outcome->message.contains(call.refusal), qPrintable(outcome->message));
        QCOMPARE(ActionEngine::readAudit(path).size(), 1);
        QCOMPARE(ActionEngine::readAudit(path).first().value(QLatin1String("outcome")).toString(),
                 QStringLiteral("refused"));
        ScriptCall nothing;
        engine.run(nothing, false, this, [&](const ActionOutcome &o) { outcome = o; });
        QCOMPARE(outcome->result, R::Failed);
    }
};

QTEST_GUILESS_MAIN(tst_ActionEngine)
#include "tst_actionengine.moc"
