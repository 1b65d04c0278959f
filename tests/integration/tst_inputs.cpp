// SPDX-License-Identifier: MIT
// What a user hands gatehouse-cli by name or by value, at its worst: profiles
// that are devices, FIFOs, directories, huge, missing or unreadable; TLS files
// likewise; a 100 KB URL; TLS spoken to a plain port and the reverse. Each
// must end promptly with one short sentence and the documented exit code.
#include <redis/userinput.h>

#include "redisserver.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using gatehouse::EchoCutChars;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

class tst_Inputs : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisServer> m_tlsServer;
    QTemporaryDir m_dir;

    // A run that must not hang: 15 s is far beyond any of these cases.
    static CliRun cli(const QStringList &args, qint64 *elapsedMs = nullptr)
    {
        QElapsedTimer timer;
        timer.start();
        const CliRun run = gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, {}, 15000);
        if (elapsedMs)
            *elapsedMs = timer.elapsed();
        return run;
    }

    QString path(const char *name) const { return m_dir.filePath(QLatin1String(name)); }

    static bool writeFile(const QString &file, const QByteArray &data)
    {
        QFile f(file);
        return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
    }

    // One sentence on stderr, short, naming what is wrong, and the exit code.
    static void verifySentence(const CliRun &run, int exitCode, const QString &mentions)
    {
        QVERIFY2(run.exitCode == exitCode,
                 qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        QVERIFY2(run.err.startsWith(QLatin1String("gatehouse-cli: ")), qPrintable(run.err));
        QVERIFY2(run.err.contains(mentions), qPrintable(run.err));
        QCOMPARE(run.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(run.err.size() < 1024, qPrintable(run.err.left(2000)));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        RedisServer::Options tls;
        tls.tls = true;
        m_tlsServer = std::make_unique<RedisServer>(tls);
        QVERIFY2(m_tlsServer->start(), qPrintable(m_tlsServer->errorString()));

        QVERIFY(QDir(m_dir.path()).mkdir(QStringLiteral("dir")));
        QVERIFY(::mkfifo(QFile::encodeName(path("fifo")).constData(), 0600) == 0);
        QVERIFY(writeFile(path("big.json"), QByteArray(2 * 1024 * 1024, ' ')));
        QVERIFY(writeFile(path("empty.pem"), QByteArray()));
        QVERIFY(writeFile(path("garbage.pem"), "this is not a certificate\n"));
        QVERIFY(writeFile(path("locked.json"), "{\"rules\": []}"));
        QVERIFY(QFile::setPermissions(path("locked.json"), QFileDevice::Permissions()));
    }

    void cleanupTestCase()
    {
        m_server.stop();
        m_tlsServer.reset();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void profiles_data()
    {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("/dev/zero")
            << "/dev/zero"
            << "Profile /dev/zero is not a regular file (it is a character device)";
        QTest::newRow("fifo") << path("fifo") << "is not a regular file (it is a FIFO";
        QTest::newRow("directory") << path("dir") << "is not a regular file (it is a directory)";
        QTest::newRow("2 MiB") << path("big.json") << "is 2 MiB; the limit is 1 MiB";
        QTest::newRow("missing") << path("missing.json") << "missing.json does not exist";
        QTest::newRow("unreadable") << path("locked.json") << "permission denied";
    }

    // Refused before connecting or reading a byte it should not: exit 2 and
    // the sentence, within seconds (a FIFO without a writer must not block).
    void profiles()
    {
        QFETCH(QString, profile);
        QFETCH(QString, mentions);
        if (profile.endsWith(QLatin1String("locked.json")) && ::geteuid() == 0)
            QSKIP("Running as root, which reads a file of mode 000 anyway: the unreadable "
                  "profile case needs an ordinary user.");
        qint64 ms = 0;
        const CliRun run = cli({QStringLiteral("--url"), m_server.url(),
                                QStringLiteral("--profile"), profile, QStringLiteral("snapshot")},
                               &ms);
        verifySentence(run, 2, mentions);
        QVERIFY2(ms < 5000, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
        QVERIFY(run.out.isEmpty());
    }

    void longValues_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("value"); // the 100 KB value inside args
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("mentions");
        const QString x(100 * 1024, QLatin1Char('x'));
        QString host; // a well-formed name of 100 KB, so it gets as far as the resolver
        while (host.size() < 100 * 1024)
            host += QString(50, QLatin1Char('h')) + QLatin1Char('.');
        const QString server = QStringLiteral("redis://127.0.0.1:%1").arg(m_server.port());
        QTest::newRow("database") << QStringList{"--url", server + "/" + x, "ping"} << x << 2
                                  << "Invalid Redis URL";
        QTest::newRow("scheme") << QStringList{"--url", x + "://127.0.0.1", "ping"} << x << 2
                                << "Invalid Redis URL";
        QTest::newRow("bad host") << QStringList{"--url", "redis://" + x + ":6379", "ping"} << x
                                  << 2 << "Invalid Redis URL";
        QTest::newRow("host") << QStringList{"--url",
                                             "redis://" + host + ":"
                                                 + QString::number(m_server.port()),
                                             "--connect-timeout", "1000", "ping"}
                              << host << 1 << "Cannot connect to";
        QTest::newRow("user") << QStringList{
            "--url", QString(server).replace("redis://", "redis://" + x + ":pw@"),
            "ping"} << x << 1 << "Authentication as user";
        QTest::newRow("port") << QStringList{"--port", x, "ping"} << x << 2 << "--port";
        QTest::newRow("profile name")
            << QStringList{"--url", server, "--profile", x, "ping"} << x << 2 << "Profile xxx";
        QTest::newRow("command") << QStringList{"--url", server, x} << x << 2 << "Unknown command";
    }

    // A 100 KB value is echoed at most once, cut to 200 characters and its
    // length: stderr stays under 1 KB.
    void longValues()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, value);
        QFETCH(int, exitCode);
        QFETCH(QString, mentions);
        const CliRun run = cli(args);
        QVERIFY2(
            run.exitCode == exitCode,
            qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err.left(600))));
        QVERIFY2(
            run.err.size() < 1024,
            qPrintable(QStringLiteral("%1 bytes: %2").arg(run.err.size()).arg(run.err.left(600))));
        QVERIFY2(run.err.contains(mentions), qPrintable(run.err));
        // Echoed once, cut: 200 characters and the full length (of the value,
        // or of the URL or address it is part of), never more.
        QVERIFY2(!run.err.contains(value.left(EchoCutChars + 1)), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("\u2026 (")), qPrintable(run.err));
        // The value is a repetition of its first character (or of its first
        // "hhh...h." label): one run of it at least 40 characters long.
        const QString unit = value.startsWith(QLatin1Char('h'))
                                 ? value.section(QLatin1Char('.'), 0, 0) + QLatin1Char('.')
                                 : value.left(1);
        const QRegularExpression runs(
            QStringLiteral("(?:%1)+").arg(QRegularExpression::escape(unit)));
        int echoes = 0;
        for (auto it = runs.globalMatch(run.err); it.hasNext();)
            echoes += it.next().capturedLength() >= 40 ? 1 : 0;
        QVERIFY2(echoes == 1, qPrintable(run.err));
    }

    // TLS spoken to a plain port: the hint, within the connect timeout.
    void tlsToPlainPort()
    {
        qint64 ms = 0;
        const QString url = QStringLiteral("rediss://127.0.0.1:%1").arg(m_server.port());
        const CliRun run = cli({QStringLiteral("--url"), url, QStringLiteral("--connect-timeout"),
                                QStringLiteral("1000"), QStringLiteral("ping")},
                               &ms);
        verifySentence(run, 1,
                       QStringLiteral("is it a plain (non-TLS) port? Try redis:// instead of "
                                      "rediss://"));
        QVERIFY2(run.err.contains(QStringLiteral("127.0.0.1:%1").arg(m_server.port())),
                 qPrintable(run.err));
        QVERIFY2(ms < 4000, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
    }

    // And the reverse: plain RESP to a TLS port.
    void plainToTlsPort()
    {
        qint64 ms = 0;
        const QString url = QStringLiteral("redis://127.0.0.1:%1").arg(m_tlsServer->port());
        const CliRun run = cli({QStringLiteral("--url"), url, QStringLiteral("--connect-timeout"),
                                QStringLiteral("1000"), QStringLiteral("ping")},
                               &ms);
        verifySentence(run, 1, QStringLiteral("Try rediss:// instead of redis://"));
        QVERIFY2(ms < 4000, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
    }

    void tlsFiles_data()
    {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("mentions");
        for (const char *option : {"--cacert", "--cert", "--key"}) {
            const QString what = QLatin1String(option);
            const bool key = what == QLatin1String("--key");
            QTest::addRow("%s /nonexistent", option)
                << what << "/nonexistent" << what + " /nonexistent does not exist";
            QTest::addRow("%s /dev/null", option)
                << what << "/dev/null"
                << what + " /dev/null is not a regular file (it is a character device)";
            QTest::addRow("%s directory", option) << what << path("dir") << "(it is a directory)";
            QTest::addRow("%s fifo", option) << what << path("fifo") << "(it is a FIFO";
            QTest::addRow("%s empty", option) << what << path("empty.pem")
                                              << (key ? "is empty; expected a PEM private key"
                                                      : "is empty; expected a PEM certificate");
            QTest::addRow("%s not PEM", option)
                << what << path("garbage.pem")
                << (key ? "holds no PEM private key" : "holds no PEM certificate");
            QTest::addRow("%s 2 MiB", option) << what << path("big.json") << "is 2 MiB";
        }
    }

    // Checked before connecting: a usage error (exit 2) naming the file.
    void tlsFiles()
    {
        QFETCH(QString, option);
        QFETCH(QString, file);
        QFETCH(QString, mentions);
        QStringList args{QStringLiteral("--url"),
                         QStringLiteral("rediss://127.0.0.1:%1").arg(m_tlsServer->port())};
        // The other file of the pair, valid, so only the one under test is wrong.
        if (option == QLatin1String("--cert"))
            args << QStringLiteral("--key") << m_tlsServer->clientKeyFile();
        if (option == QLatin1String("--key"))
            args << QStringLiteral("--cert") << m_tlsServer->clientCertFile();
        args << option << file << QStringLiteral("ping");
        qint64 ms = 0;
        const CliRun run = cli(args, &ms);
        verifySentence(run, 2, mentions);
        QVERIFY2(ms < 5000, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
    }

    // The valid files still work (and --cacert of the wrong CA is not a usage
    // error: it is a TLS verification failure, exit 1).
    void tlsFilesValid()
    {
        const QString url = QStringLiteral("rediss://127.0.0.1:%1").arg(m_tlsServer->port());
        const CliRun ok
            = cli({QStringLiteral("--url"), url, QStringLiteral("--cacert"), m_tlsServer->caFile(),
                   QStringLiteral("--cert"), m_tlsServer->clientCertFile(), QStringLiteral("--key"),
                   m_tlsServer->clientKeyFile(), QStringLiteral("ping")});
        QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
        const CliRun other = cli({QStringLiteral("--url"), url, QStringLiteral("--cacert"),
                                  m_tlsServer->otherCaFile(), QStringLiteral("ping")});
        QCOMPARE(other.exitCode, 1);
    }
};

QTEST_GUILESS_MAIN(tst_Inputs)
#include "tst_inputs.moc"
