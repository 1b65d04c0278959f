// SPDX-License-Identifier: MIT
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::waitReady;
using State = RedisConnection::State;

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
                       << QStringLiteral("user reader on >readerpw ~* +@read +ping +time -info");
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
};

QTEST_GUILESS_MAIN(tst_Acl)
#include "tst_acl.moc"
