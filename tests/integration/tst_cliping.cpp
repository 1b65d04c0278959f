// SPDX-License-Identifier: MIT
// gatehouse-cli ping against real plain, TLS, ACL and unix-socket servers.
#include "redisserver.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using gatehouse::test::RedisServer;

class tst_CliPing : public QObject
{
    Q_OBJECT

private:
    using Run = gatehouse::test::CliRun;

    static Run cli(const QStringList &args, const QProcessEnvironment &env = {})
    {
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, env, 30000);
    }

    static void verifyPong(const Run &r)
    {
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(lines.size() >= 3, qPrintable(r.out));
        QCOMPARE(lines.at(0), QStringLiteral("PONG"));
        QVERIFY2(lines.at(1).startsWith(QLatin1String("server: ")), qPrintable(lines.at(1)));
        QVERIFY2(lines.at(2).startsWith(QLatin1String("time: 20")), qPrintable(lines.at(2)));
        QVERIFY(r.err.isEmpty());
    }

    // One sentence on stderr, naming the address, and the given exit code.
    static void verifyFailure(const Run &r, int exitCode, const QString &mentions)
    {
        QVERIFY2(r.exitCode == exitCode,
                 qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.startsWith(QLatin1String("gatehouse-cli: ")), qPrintable(r.err));
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    }

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void plain()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const Run r = cli({QStringLiteral("--url"), server.url(), QStringLiteral("ping")});
        verifyPong(r);
        // The server named by what it is (Valkey keeps redis_version 7.2.4).
        const QString named = QStringLiteral("server: %1 %2")
                                  .arg(RedisServer::serverProduct(), RedisServer::serverVersion());
        QVERIFY2(!RedisServer::serverProduct().isEmpty() && r.out.contains(named),
                 qPrintable(named + QLatin1String(" in: ") + r.out));
        // And in JSON: the product, its own version, the Redis version it
        // keeps for compatibility, and the mode.
        const Run json = cli({QStringLiteral("--url"), server.url(), QStringLiteral("ping"),
                              QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject pong = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(pong.value(QLatin1String("serverName")).toString(), RedisServer::serverProduct());
        QCOMPARE(pong.value(QLatin1String("serverVersion")).toString(),
                 RedisServer::serverVersion());
        QVERIFY(!pong.value(QLatin1String("compatibilityVersion")).toString().isEmpty());
        QCOMPARE(pong.value(QLatin1String("serverMode")).toString(), QStringLiteral("standalone"));
        // The same with --host/--port.
        verifyPong(cli(
            {QStringLiteral("--port"), QString::number(server.port()), QStringLiteral("ping")}));
    }

    void refused()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QString url = server.url();
        server.stop();
        verifyFailure(cli({QStringLiteral("--url"), url, QStringLiteral("ping")}), 1,
                      QStringLiteral("connection refused"));
    }

    // A database the server does not have: what to give instead, not
    // Redis's "DB index is out of range".
    void databaseOutOfRange()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const Run r = cli({QStringLiteral("--url"), server.url() + QStringLiteral("/99"),
                           QStringLiteral("ping")});
        verifyFailure(r, 1, QStringLiteral("Cannot select database 99"));
        QVERIFY2(r.err.contains(QLatin1String("fewer databases")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("redis://host:port/0")), qPrintable(r.err));
    }

    void tls()
    {
        RedisServer::Options options;
        options.tls = true;
        RedisServer server(options);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        verifyPong(cli({QStringLiteral("--url"), server.url(), QStringLiteral("--cacert"),
                        server.caFile(), QStringLiteral("ping")}));
        verifyFailure(cli({QStringLiteral("--url"), server.url(), QStringLiteral("--cacert"),
                           server.otherCaFile(), QStringLiteral("ping")}),
                      1, QStringLiteral("not signed by a trusted CA"));
        verifyFailure(
            cli({QStringLiteral("--url"), server.url(), QStringLiteral("--cacert"), server.caFile(),
                 QStringLiteral("--sni"), QStringLiteral("wrong.example"), QStringLiteral("ping")}),
            1, QStringLiteral("not valid for the name 'wrong.example'"));
    }

    void acl()
    {
        RedisServer::Options options;
        options.config << QStringLiteral("user alice on >alicepw ~* +@all")
                       << QStringLiteral("user probe on >probepw ~* +ping +time");
        RedisServer server(options);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QString url = server.url();
        verifyPong(
            cli({QStringLiteral("--url"), url, QStringLiteral("--user"), QStringLiteral("alice"),
                 QStringLiteral("--pass"), QStringLiteral("alicepw"), QStringLiteral("ping")}));
        // The password from REDISCLI_AUTH, as with redis-cli.
        QProcessEnvironment env;
        env.insert(QStringLiteral("REDISCLI_AUTH"), QStringLiteral("alicepw"));
        verifyPong(cli({QStringLiteral("--url"), url, QStringLiteral("--user"),
                        QStringLiteral("alice"), QStringLiteral("ping")},
                       env));
        verifyFailure(
            cli({QStringLiteral("--url"), url, QStringLiteral("--user"), QStringLiteral("alice"),
                 QStringLiteral("--pass"), QStringLiteral("wrong"), QStringLiteral("ping")}),
            1, QStringLiteral("wrong user name or password"));
        // A user without INFO still gets PONG and the time; the version line says why it is
        // missing.
        const Run limited
            = cli({QStringLiteral("--url"),
                   QStringLiteral("redis://probe:probepw@127.0.0.1:%1").arg(server.port()),
                   QStringLiteral("ping")});
        verifyPong(limited);
        QVERIFY2(limited.out.contains(QLatin1String("NOPERM")), qPrintable(limited.out));
    }

    void unixSocket()
    {
        RedisServer::Options options;
        options.unixSocket = true;
        RedisServer server(options);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        verifyPong(cli({QStringLiteral("--url"), QStringLiteral("unix://") + server.socketPath(),
                        QStringLiteral("ping")}));
        verifyPong(cli({QStringLiteral("--socket"), server.socketPath(), QStringLiteral("ping")}));
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("malformed url")
            << QStringList{"--url", "redis://host:port", "ping"} << "Invalid Redis URL";
        QTest::newRow("no command") << QStringList{} << "No command given";
        QTest::newRow("unknown command") << QStringList{"pong"} << "Unknown command \"pong\"";
        QTest::newRow("unknown flag") << QStringList{"--frobnicate", "ping"} << "frobnicate";
        QTest::newRow("tls flag without tls") << QStringList{"--sni", "x", "ping"} << "need TLS";
    }

    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Run r = cli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QVERIFY2(r.err.contains(QLatin1String("--help")), qPrintable(r.err));
    }

    void help()
    {
        const Run r = cli({QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        for (const char *flag :
             {"--url", "--user", "--pass", "--cacert", "--cert", "--key", "--sni", "ping"})
            QVERIFY2(r.out.contains(QLatin1String(flag)), flag);
        // An option several verbs take says what it is for each: a lock's
        // --ttl is in ms, a token's in s (it read "(s)" for both).
        const QString text = r.out.simplified();
        QVERIFY2(text.contains(QLatin1String("lock extend: Time to live (ms)")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("token issue")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String(": Time to live (s)")), qPrintable(text));
    }
};

QTEST_GUILESS_MAIN(tst_CliPing)
#include "tst_cliping.moc"
