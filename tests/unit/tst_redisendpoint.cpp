// SPDX-License-Identifier: MIT
#include <redis/endpointoptions.h>
#include <redis/redisendpoint.h>

#include <QCommandLineParser>
#include <QTest>

using namespace gatehouse;
using Transport = RedisEndpoint::Transport;

class tst_RedisEndpoint : public QObject
{
    Q_OBJECT

private slots:
    void validUrls_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<int>("transport");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<int>("db");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("password");
        QTest::addColumn<QString>("socket");

        const int tcp = int(Transport::Tcp);
        QTest::newRow("host only")
            << "redis://cache.example" << tcp << "cache.example" << 6379 << 0 << ""
            << ""
            << "";
        QTest::newRow("port and db")
            << "redis://10.1.2.3:6380/4" << tcp << "10.1.2.3" << 6380 << 4 << ""
            << ""
            << "";
        QTest::newRow("password only") << "redis://:s3cret@host" << tcp << "host" << 6379 << 0 << ""
                                       << "s3cret"
                                       << "";
        QTest::newRow("acl user, encoded password")
            << "redis://alice:p%40ss%3Aw%2Fd@host:7000/1" << tcp << "host" << 7000 << 1 << "alice"
            << "p@ss:w/d"
            << "";
        QTest::newRow("nopass user") << "redis://bob@host" << tcp << "host" << 6379 << 0 << "bob"
                                     << ""
                                     << "";
        QTest::newRow("ipv6") << "redis://[::1]:6390" << tcp << "::1" << 6390 << 0 << ""
                              << ""
                              << "";
        QTest::newRow("tls") << "rediss://secure.example:6390/2" << int(Transport::Tls)
                             << "secure.example" << 6390 << 2 << ""
                             << ""
                             << "";
        QTest::newRow("scheme case") << "REDIS://h" << tcp << "h" << 6379 << 0 << ""
                                     << ""
                                     << "";
        QTest::newRow("unix") << "unix:///run/redis/redis.sock" << int(Transport::Unix)
                              << "127.0.0.1" << 6379 << 0 << ""
                              << ""
                              << "/run/redis/redis.sock";
        QTest::newRow("unix with db")
            << "unix:///tmp/r.sock?db=3" << int(Transport::Unix) << "127.0.0.1" << 6379 << 3 << ""
            << ""
            << "/tmp/r.sock";
    }

    void validUrls()
    {
        QFETCH(QString, url);
        QString error;
        const auto ep = RedisEndpoint::fromUrl(url, &error);
        QVERIFY2(ep, qPrintable(error));
        QTEST(int(ep->transport), "transport");
        QTEST(ep->host, "host");
        QTEST(int(ep->port), "port");
        QTEST(ep->db, "db");
        QTEST(ep->user, "user");
        QTEST(ep->password, "password");
        QTEST(ep->socketPath, "socket");
        QVERIFY(!ep->displayUrl().contains(QLatin1String("s3cret")));
    }

    void malformedUrls_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("mentions");

        QTest::newRow("empty") << ""
                               << "empty";
        QTest::newRow("no scheme") << "localhost:6379"
                                   << "scheme";
        QTest::newRow("wrong scheme") << "http://localhost"
                                      << "unknown scheme \"http\"";
        QTest::newRow("bad port") << "redis://localhost:abc"
                                  << "port";
        QTest::newRow("port out of range") << "redis://localhost:70000"
                                           << "port";
        QTest::newRow("port zero") << "redis://localhost:0"
                                   << "port 0";
        QTest::newRow("db not a number") << "redis://localhost/abc"
                                         << "database \"abc\"";
        QTest::newRow("negative db") << "redis://localhost/-1"
                                     << "database \"-1\"";
        QTest::newRow("no host") << "redis:///0"
                                 << "host is missing";
        QTest::newRow("query") << "redis://h/0?x=1"
                               << "query";
        QTest::newRow("unix with host") << "unix://host/tmp/s"
                                        << "three slashes";
        QTest::newRow("unix no path") << "unix://"
                                      << "socket path";
        QTest::newRow("unix bad db") << "unix:///tmp/s?db=x"
                                     << "database \"x\"";
        QTest::newRow("unix unknown param") << "unix:///tmp/s?foo=1"
                                            << "unknown parameter";
        // Found by fuzz_endpoint: "unix:" + a relative path was taken as a socket
        // (the ":/" inside gets it past the scheme check).
        QTest::newRow("unix relative path") << "unix:run/redis:/x.sock"
                                            << "absolute";
    }

    // Found by fuzz_endpoint: the URL form of an endpoint parses again, also
    // for an IPv6 zone and a socket path with characters a URL escapes.
    void displayUrlParsesAgain_data()
    {
        QTest::addColumn<QString>("url");
        QTest::newRow("ipv6 zone") << "redis://[fe80::1%25eth0]:7000/3";
        QTest::newRow("socket path with spaces") << "unix:///tmp/my%20redis%3F.sock?db=2";
        QTest::newRow("user") << "rediss://al%40ice:pw@host:6380";
        // A noncharacter (U+FFFF) QUrl's decoding keeps escaped.
        QTest::newRow("socket path with a noncharacter") << QString::fromUtf8("unix:/\xef\xbf\xbf");
        QTest::newRow("socket path with it escaped") << "unix:///run/a%EF%BF%BF.sock";
    }

    void displayUrlParsesAgain()
    {
        QFETCH(QString, url);
        QString error;
        const auto ep = RedisEndpoint::fromUrl(url, &error);
        QVERIFY2(ep, qPrintable(error));
        const auto again = RedisEndpoint::fromUrl(ep->displayUrl(), &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->host, ep->host);
        QCOMPARE(again->socketPath, ep->socketPath);
        QCOMPARE(again->port, ep->port);
        QCOMPARE(again->db, ep->db);
        QCOMPARE(again->user, ep->user);
        QCOMPARE(again->displayUrl(), ep->displayUrl());
    }

    // A password in a URL that is refused is not echoed.
    void malformedUrlHidesPassword()
    {
        QString error;
        QVERIFY(!RedisEndpoint::fromUrl(QStringLiteral("redis://bob:s3cret@host:99999"), &error));
        QVERIFY2(!error.contains(QLatin1String("s3cret")), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("redis://bob:***@host:99999")), qPrintable(error));
    }

    void malformedUrls()
    {
        QFETCH(QString, url);
        QFETCH(QString, mentions);
        QString error;
        const auto ep = RedisEndpoint::fromUrl(url, &error);
        QVERIFY(!ep);
        QVERIFY2(error.contains(mentions, Qt::CaseInsensitive), qPrintable(error));
        // Every message names the URL and shows the expected form.
        QVERIFY2(error.contains(QLatin1String("expected redis://")), qPrintable(error));
    }

    void options_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error"); // empty: accepted

        QTest::newRow("plain") << QStringList{"--host", "h", "--port", "7001", "--db", "2"} << "";
        QTest::newRow("bad port") << QStringList{"--port", "x"} << "--port \"x\"";
        QTest::newRow("tls flag without tls") << QStringList{"--sni", "x"} << "need TLS";
        QTest::newRow("url and host")
            << QStringList{"--url", "redis://a", "--host", "b"} << "cannot be combined";
        QTest::newRow("cert without key")
            << QStringList{"--tls", "--cert", "/etc/hostname"} << "go together";
        QTest::newRow("unreadable ca")
            << QStringList{"--tls", "--cacert", "/nonexistent/ca.crt"} << "does not exist";
        QTest::newRow("bad url") << QStringList{"--url", "redis://h:99999"} << "Invalid Redis URL";
    }

    void options()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        QCommandLineParser parser;
        EndpointOptions options;
        options.addTo(parser);
        QVERIFY(parser.parse(QStringList{QStringLiteral("prog")} + args));
        QString message;
        const auto ep = options.endpoint(parser, &message);
        if (error.isEmpty()) {
            QVERIFY2(ep, qPrintable(message));
            QCOMPARE(ep->host, QStringLiteral("h"));
            QCOMPARE(ep->port, 7001);
            QCOMPARE(ep->db, 2);
        } else {
            QVERIFY(!ep);
            QVERIFY2(message.contains(error), qPrintable(message));
        }
    }

    void passwordFromEnvironment()
    {
        qputenv("REDISCLI_AUTH", "from-env");
        QCommandLineParser parser;
        EndpointOptions options;
        options.addTo(parser);
        QVERIFY(
            parser.parse({QStringLiteral("prog"), QStringLiteral("--user"), QStringLiteral("u")}));
        QString message;
        auto ep = options.endpoint(parser, &message);
        QVERIFY(ep);
        QCOMPARE(ep->password, QStringLiteral("from-env"));
        // An explicit --pass wins.
        QVERIFY(parser.parse(
            {QStringLiteral("prog"), QStringLiteral("--pass"), QStringLiteral("flag")}));
        ep = options.endpoint(parser, &message);
        QCOMPARE(ep->password, QStringLiteral("flag"));
        qunsetenv("REDISCLI_AUTH");
    }

    // redis-sentinel://: several sentinels, default port 26379, the master's
    // credentials and database, the master's name after #.
    void sentinelUrls()
    {
        QString error;
        auto ep = RedisEndpoint::fromUrl(
            QStringLiteral("redis-sentinel://alice:p%40ss@s1.example,10.0.0.2:26380,[::1]:26381/2"
                           "#orders%20main"),
            &error);
        QVERIFY2(ep, qPrintable(error));
        QVERIFY(ep->isSentinel());
        QCOMPARE(ep->sentinels, QStringList({"s1.example:26379", "10.0.0.2:26380", "[::1]:26381"}));
        QCOMPARE(ep->sentinelMaster, QStringLiteral("orders main"));
        QCOMPARE(ep->user, QStringLiteral("alice"));
        QCOMPARE(ep->password, QStringLiteral("p@ss"));
        QCOMPARE(ep->db, 2);
        QCOMPARE(ep->transport, Transport::Tcp);
        QVERIFY(!ep->displayUrl().contains(QLatin1String("p@ss")));
        const auto again = RedisEndpoint::fromUrl(ep->displayUrl(), &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->sentinels, ep->sentinels);
        QCOMPARE(again->sentinelMaster, ep->sentinelMaster);
        // A sentinel's endpoint: its own address and credentials, database 0.
        ep->sentinelPassword = QStringLiteral("sentinel-secret");
        const RedisEndpoint second = ep->sentinelEndpoint(1);
        QCOMPARE(second.address(), QStringLiteral("10.0.0.2:26380"));
        QCOMPARE(second.password, QStringLiteral("sentinel-secret"));
        QCOMPARE(second.db, 0);
        QVERIFY(!second.isSentinel());

        ep = RedisEndpoint::fromUrl(QStringLiteral("rediss-sentinel://h#m"), &error);
        QVERIFY2(ep, qPrintable(error));
        QCOMPARE(ep->transport, Transport::Tls);
        QCOMPARE(ep->sentinels, QStringList{"h:26379"});

        for (const auto &[url, mentions] :
             {std::pair{"redis-sentinel://#m", "no sentinel address"},
              std::pair{"redis-sentinel://h:0#m", "no valid port"},
              std::pair{"redis-sentinel://h:1,:2#m", "has no host"},
              std::pair{"redis-sentinel://h#", "name after # is empty"},
              std::pair{"redis-sentinel://h/x#m", "is not a number"},
              std::pair{"redis-sentinel://h?a=b#m", "query parameters"}}) {
            QVERIFY(!RedisEndpoint::fromUrl(QString::fromLatin1(url), &error));
            QVERIFY2(error.contains(QLatin1String(mentions)), qPrintable(error));
            QVERIFY2(error.contains(QLatin1String("expected redis-sentinel://")),
                     qPrintable(error));
        }
    }
};

QTEST_GUILESS_MAIN(tst_RedisEndpoint)
#include "tst_redisendpoint.moc"
