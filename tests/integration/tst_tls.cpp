// SPDX-License-Identifier: MIT
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::waitReady;
using State = ConnectionState;

class tst_Tls : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<RedisServer> m_server;       // TLS, no client certificate required
    std::unique_ptr<RedisServer> m_mutualServer; // TLS, client certificate required

    static QString connectError(RedisEndpoint ep)
    {
        RedisClient client(ep);
        client.setAutoReconnect(false);
        client.open();
        if (waitReady(client))
            return QString();
        return client.errorString();
    }

private slots:
    void initTestCase()
    {
        RedisServer::Options options;
        options.tls = true;
        m_server = std::make_unique<RedisServer>(options);
        QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
        options.tlsAuthClients = true;
        m_mutualServer = std::make_unique<RedisServer>(options);
        QVERIFY2(m_mutualServer->start(), qPrintable(m_mutualServer->errorString()));
    }

    void cleanupTestCase()
    {
        m_server.reset();
        m_mutualServer.reset();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void rightCa()
    {
        RedisClient client(m_server->endpoint());
        client.open();
        QVERIFY2(waitReady(client), qPrintable(client.errorString()));
        QCOMPARE(call(client, {"PING"}), RedisValue::status("PONG"));
        const QByteArray big(4 * 1024 * 1024, 'x');
        QCOMPARE(call(client, {"SET", "big", big}), RedisValue::status("OK"));
        QCOMPARE(call(client, {"GET", "big"}).bytes(), big);
    }

    void byNameInCertificate()
    {
        RedisEndpoint ep = m_server->endpoint();
        ep.host = QStringLiteral("localhost");
        QCOMPARE(connectError(ep), QString());
    }

    void wrongCa()
    {
        RedisEndpoint ep = m_server->endpoint();
        ep.caFile = m_server->otherCaFile();
        const QString error = connectError(ep);
        QVERIFY2(error.contains(QLatin1String("TLS verification of 127.0.0.1:")),
                 qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("not signed by a trusted CA")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("--cacert")), qPrintable(error));
    }

    void wrongHostName()
    {
        RedisEndpoint ep = m_server->endpoint();
        ep.sniName = QStringLiteral("wrong.example");
        const QString error = connectError(ep);
        QVERIFY2(error.contains(QLatin1String("not valid for the name 'wrong.example'")),
                 qPrintable(error));
    }

    void insecureSkipsVerification()
    {
        RedisEndpoint ep = m_server->endpoint();
        ep.caFile = m_server->otherCaFile();
        ep.verifyPeer = false;
        QCOMPARE(connectError(ep), QString());
    }

    void plainClientOnTlsPort()
    {
        RedisEndpoint ep = m_server->endpoint();
        ep.transport = RedisEndpoint::Transport::Tcp;
        const QString error = connectError(ep);
        QVERIFY2(!error.isEmpty(), "a plain connection to a TLS port must not become ready");
        QVERIFY2(error.contains(QLatin1String("127.0.0.1")), qPrintable(error));
    }

    void clientCertificate()
    {
        RedisEndpoint ep = m_mutualServer->endpoint();
        const QString without = connectError(ep);
        QVERIFY2(!without.isEmpty(), "the server requires a client certificate");
        QVERIFY2(without.contains(QLatin1String("client certificate")), qPrintable(without));

        ep.certFile = m_mutualServer->clientCertFile();
        ep.keyFile = m_mutualServer->clientKeyFile();
        QCOMPARE(connectError(ep), QString());
    }
};

QTEST_GUILESS_MAIN(tst_Tls)
#include "tst_tls.moc"
