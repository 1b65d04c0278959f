// SPDX-License-Identifier: MIT
#include <actions/actionengine.h>
#include <patterns/lock/lockunit.h>
#include <redis/redisclient.h>
#include <redis/redisscript.h>

#include "redisserver.h"

#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::waitReady;
using State = ConnectionState;

Q_DECLARE_METATYPE(gatehouse::ActionOutcome::Result)

class tst_Acl : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<RedisServer> m_server;

    RedisEndpoint as(const QString &user, const QString &password) const
    {
        RedisEndpoint ep = m_server->endpoint();
        ep.user = user;
        ep.password = password;
        return ep;
    }

private slots:
    void initTestCase()
    {
        RedisServer::Options options;
        options.config << QStringLiteral("user default on >defaultpw ~* &* +@all")
                       << QStringLiteral("user alice on >alicepw ~* &* +@all")
                       // Read-only operator: no CONFIG, no INFO, no CLIENT, no writes.
                       << QStringLiteral("user reader on >readerpw ~* +@read +ping +time -info")
                       << QStringLiteral("user noevalsha on >pw ~* +@all -evalsha")
                       << QStringLiteral("user noscripts on >pw ~* +@all -evalsha -eval")
                       << QStringLiteral("user nodel on >pw ~* +@all -del")
                       << QStringLiteral("user nokeys on >pw resetkeys +@all");
        m_server = std::make_unique<RedisServer>(options);
        QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
    }

    void cleanupTestCase()
    {
        m_server.reset();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void aclUserLogin()
    {
        RedisClient client(as(QStringLiteral("alice"), QStringLiteral("alicepw")));
        client.open();
        QVERIFY2(waitReady(client), qPrintable(client.errorString()));
        QCOMPARE(call(client, {"ACL", "WHOAMI"}), RedisValue::bulk("alice"));
    }

    void defaultUserPassword()
    {
        RedisClient client(as(QString(), QStringLiteral("defaultpw")));
        client.open();
        QVERIFY2(waitReady(client), qPrintable(client.errorString()));
        QCOMPARE(call(client, {"ACL", "WHOAMI"}), RedisValue::bulk("default"));
    }

    void wrongPasswordIsFinal()
    {
        RedisClient client(as(QStringLiteral("alice"), QStringLiteral("nope")));
        client.open(); // auto-reconnect on: a wrong password must still be final
        QVERIFY(!waitReady(client));
        QCOMPARE(client.state(), State::Failed);
        QVERIFY2(client.errorString().contains(QLatin1String("user 'alice'")),
                 qPrintable(client.errorString()));
        QVERIFY2(client.errorString().contains(QLatin1String("wrong user name or password")),
                 qPrintable(client.errorString()));
    }

    void missingPasswordSaysSo()
    {
        RedisClient client(m_server->endpoint());
        client.setAutoReconnect(false);
        client.open();
        QVERIFY(!waitReady(client));
        QVERIFY2(client.errorString().contains(QLatin1String("requires a password")),
                 qPrintable(client.errorString()));
    }

    // A user without CLIENT still connects (the name is best effort) and gets
    // NOPERM for what it may not do.
    void restrictedUser()
    {
        RedisClient client(as(QStringLiteral("reader"), QStringLiteral("readerpw")));
        client.open();
        QVERIFY2(waitReady(client), qPrintable(client.errorString()));
        QCOMPARE(call(client, {"PING"}), RedisValue::status("PONG"));
        QVERIFY(call(client, {"GET", "x"}).isNil());
        const RedisValue denied = call(client, {"SET", "x", "1"});
        QCOMPARE(denied.errorCode(), QByteArray("NOPERM"));
        QCOMPARE(call(client, {"INFO", "server"}).errorCode(), QByteArray("NOPERM"));
        QCOMPARE(call(client, {"CONFIG", "GET", "maxmemory"}).errorCode(), QByteArray("NOPERM"));
    }

    // EVALSHA refused by ACL, EVAL allowed: the script runs through EVAL, and
    // the connection sends later scripts straight as EVAL (one refusal only).
    void evalshaRefusedFallsBackToEval()
    {
        RedisClient admin(as(QString(), QStringLiteral("defaultpw")));
        admin.open();
        QVERIFY(waitReady(admin));
        const auto refusals = [&admin] {
            const QByteArray info = call(admin, {"INFO", "commandstats"}).bytes();
            const qsizetype at = info.indexOf("cmdstat_evalsha:");
            const qsizetype field = info.indexOf("rejected_calls=", at);
            return at < 0
                       ? 0
                       : info.mid(field + 15, info.indexOf(',', field) - field - 15).toLongLong();
        };
        const qint64 before = refusals();
        RedisClient client(as(QStringLiteral("noevalsha"), QStringLiteral("pw")));
        client.open();
        QVERIFY2(waitReady(client), qPrintable(client.errorString()));
        const RedisScript echo(QStringLiteral("echo"), "return ARGV[1]");
        const RedisScript sum(QStringLiteral("sum"), "return tonumber(ARGV[1]) + 1");
        for (int i = 0; i < 3; ++i) {
            gatehouse::test::ReplyWait wait;
            RedisValue first, second;
            client.script(echo, {}, {"hello"}, &client, [&](const RedisValue &v) { first = v; });
            client.script(sum, {}, {"41"}, &client, [&](const RedisValue &v) {
                second = v;
                wait.finish();
            });
            QVERIFY(wait.wait(10000));
            QCOMPARE(first, RedisValue::bulk("hello"));
            QCOMPARE(second, RedisValue::integer(42));
        }
        // The first two went out pipelined as EVALSHA before the first refusal came back.
        QVERIFY2(refusals() - before <= 2, qPrintable(QString::number(refusals() - before)));
        QVERIFY(refusals() - before >= 1);
    }

    // What a NOPERM names: EVAL (neither script command allowed), a command
    // inside the script, or the keys; never "write access".
    void refusalsNameWhatWasRefused_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("mentions");
        QTest::addColumn<ActionOutcome::Result>("result");
        QTest::newRow("no scripts") << "noscripts"
                                    << "may not run EVAL" << ActionOutcome::Result::Failed;
        // A script stopped part-way keeps what it wrote before: not known
        // to have done nothing, and said so.
        QTest::newRow("no DEL inside")
            << "nodel"
            << "What the script wrote before that command stays" << ActionOutcome::Result::Unknown;
        QTest::newRow("no keys") << "nokeys"
                                 << "may not access the keys" << ActionOutcome::Result::Failed;
    }

    void refusalsNameWhatWasRefused()
    {
        QFETCH(QString, user);
        QFETCH(QString, mentions);
        QFETCH(ActionOutcome::Result, result);
        RedisClient admin(as(QString(), QStringLiteral("defaultpw")));
        admin.open();
        QVERIFY(waitReady(admin));
        QCOMPARE(call(admin, {"SET", "lock:acl", "t1", "PX", "60000"}), RedisValue::status("OK"));
        RedisClient client(as(user, QStringLiteral("pw")));
        client.open();
        QVERIFY2(waitReady(client), qPrintable(client.errorString()));
        PatternObject lock;
        lock.kind = PatternKind("lock");
        lock.key = "lock:acl";
        const ScriptCall release = LockUnit::forceRelease(lock, "t1");
        gatehouse::test::ReplyWait wait;
        RedisValue reply;
        client.script(RedisScript::fromResource(release.script), release.keys, release.args,
                      &client, [&](const RedisValue &v) {
                          reply = v;
                          wait.finish();
                      });
        QVERIFY(wait.wait(10000));
        QVERIFY2(reply.isError(), qPrintable(reply.toDebugString()));
        const ActionOutcome outcome = ActionEngine::interpret(release, reply);
        QCOMPARE(outcome.result, result);
        QVERIFY2(outcome.message.contains(mentions), qPrintable(outcome.message));
        QVERIFY2(!outcome.message.contains(QLatin1String("write access")),
                 qPrintable(outcome.message));
        QCOMPARE(call(admin, {"GET", "lock:acl"}), RedisValue::bulk("t1"));
    }
};

QTEST_GUILESS_MAIN(tst_Acl)
#include "tst_acl.moc"
