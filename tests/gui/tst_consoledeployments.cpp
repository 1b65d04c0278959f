// SPDX-License-Identifier: MIT
// The console opened on several deployments from its command line: the real
// `gatehouse` binary (offscreen) with --deployment eu=URL --deployment
// prod-us=URL against two real servers, what each window shows read from the
// console's own Prometheus endpoint. Every sample of an object names its
// deployment, each object only its own, and each family is declared once;
// bad --deployment values are refused with a sentence and exit 2 before any
// window opens.

#include "loopback.h"
#include "redisserver.h"

#include <redis/redisclient.h>

#include <QNetworkAccessManager>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

class tst_ConsoleDeployments : public QObject
{
    Q_OBJECT

private:
    static quint16 freePort() { return gatehouse::test::freeLoopbackPort(); }

    // The body of a GET that answered 200; empty otherwise.
    QByteArray scrape(const QUrl &url)
    {
        const gatehouse::test::HttpReply reply
            = gatehouse::test::httpRequest(m_net, QByteArrayLiteral("GET"), url);
        return reply.status == 200 ? reply.body : QByteArray();
    }

    // Scrapes url until a body matches pattern or ms have passed; the last
    // body, and whether it matched.
    bool scrapeUntil(const QUrl &url, const QRegularExpression &pattern, int ms, QByteArray *body)
    {
        QTest::qWaitFor(
            [&] {
                *body = scrape(url);
                return pattern.match(QString::fromUtf8(*body)).hasMatch();
            },
            ms);
        return pattern.match(QString::fromUtf8(*body)).hasMatch();
    }

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_dir.filePath(QStringLiteral("data")));
        return env;
    }

    static void stop(QProcess &gui)
    {
        gui.terminate();
        if (!gui.waitForFinished(10000)) {
            gui.kill();
            gui.waitForFinished(5000);
        }
    }

    static void lock(RedisServer &server, const QByteArray &key)
    {
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        const QByteArray token = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
        QCOMPARE(call(*client, {"SET", key, token, "PX", "600000"}).bytes(), QByteArray("OK"));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_eu.start(), qPrintable(m_eu.errorString()));
        QVERIFY2(m_us.start(), qPrintable(m_us.errorString()));
        lock(m_eu, "lock:eu:1");
        lock(m_eu, "lock:eu:2");
        lock(m_us, "lock:us:1");
    }

    void cleanupTestCase()
    {
        m_eu.stop();
        m_us.stop();
    }

    void eachDeploymentIsLabelled()
    {
        const quint16 port = freePort();
        QVERIFY(port);
        QProcess gui;
        gui.setProcessEnvironment(environment());
        gui.start(QStringLiteral(GATEHOUSE_GUI),
                  {QStringLiteral("--deployment"), QStringLiteral("eu=") + m_eu.url(),
                   QStringLiteral("--deployment"), QStringLiteral("prod-us=") + m_us.url(),
                   QStringLiteral("--metrics"), QStringLiteral("127.0.0.1:%1").arg(port)});
        QVERIFY(gui.waitForStarted(10000));
        const QUrl url(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
        QByteArray body;
        QTest::qWaitFor(
            [&] {
                body = scrape(url);
                // Both locks read, and each monitor's first tick ended.
                return body.contains("key=\"lock:eu:2\"") && body.contains("key=\"lock:us:1\"")
                       && body.count("gatehouse_console_tick_duration_seconds{") == 2;
            },
            30000);
        stop(gui);
        QVERIFY2(body.contains("key=\"lock:eu:2\"") && body.contains("key=\"lock:us:1\""),
                 body.left(3000).constData());

        // Every sample of an object names the deployment it is in.
        int eu = 0;
        int us = 0;
        for (const QByteArray &line : body.split('\n')) {
            if (line.startsWith('#') || !line.contains("key=\""))
                continue;
            if (line.contains("key=\"lock:eu:")) {
                QVERIFY2(line.contains("{deployment=\"eu\","), line.constData());
                ++eu;
            } else if (line.contains("key=\"lock:us:")) {
                QVERIFY2(line.contains("{deployment=\"prod-us\","), line.constData());
                ++us;
            }
        }
        QVERIFY(eu >= 2);
        QVERIFY(us >= 1);
        // Each window's monitor cost is its own sample; the process's once.
        QVERIFY2(
            body.contains("gatehouse_console_tick_duration_seconds{deployment=\"eu\"}")
                && body.contains("gatehouse_console_tick_duration_seconds{deployment=\"prod-us\"}"),
            body.constData());
        QVERIFY2(QRegularExpression(QStringLiteral("\\ngatehouse_console_scrapes_total \\d"))
                     .match(QString::fromUtf8(body))
                     .hasMatch(),
                 body.constData());
        // One HELP per family across both deployments.
        QSet<QByteArray> helps;
        for (const QByteArray &line : body.split('\n')) {
            if (line.startsWith("# HELP ")) {
                const QByteArray family = line.split(' ').value(2);
                QVERIFY2(!helps.contains(family), family.constData());
                helps.insert(family);
            }
        }
    }

    // A server that stops answering: the window's objects turn stale, and
    // the console's endpoint serves them stale too (never the last reading
    // as current), then ok again once the server answers.
    void overdueTickIsServedStale()
    {
        const quint16 port = freePort();
        QVERIFY(port);
        QProcess gui;
        gui.setProcessEnvironment(environment());
        gui.start(QStringLiteral(GATEHOUSE_GUI),
                  {QStringLiteral("--url"), m_eu.url(), QStringLiteral("--metrics"),
                   QStringLiteral("127.0.0.1:%1").arg(port)});
        QVERIFY(gui.waitForStarted(10000));
        const QUrl url(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
        static const QRegularExpression stale(QStringLiteral(
            R"(\ngatehouse_objects\{[^}]*pattern="lock"[^}]*state="stale"[^}]*\} [1-9])"));
        static const QRegularExpression ok(QStringLiteral(
            R"(\ngatehouse_objects\{[^}]*pattern="lock"[^}]*state="ok"[^}]*\} 2\b)"));
        QByteArray body;
        QVERIFY2(scrapeUntil(url, ok, 30000, &body), body.left(3000).constData());
        QVERIFY2(!stale.match(QString::fromUtf8(body)).hasMatch(), body.left(3000).constData());
        // The server answers no one for 6 s: the tick in flight is overdue.
        auto admin = gatehouse::test::connectedClient(m_eu);
        QVERIFY(admin);
        QCOMPARE(call(*admin, {"CLIENT", "PAUSE", "6000", "ALL"}).bytes(), QByteArray("OK"));
        const bool servedStale = scrapeUntil(url, stale, 5500, &body);
        call(*admin, {"CLIENT", "UNPAUSE"});
        // Read again once the server answers: ok again.
        const bool okAgain = scrapeUntil(url, ok, 15000, &body);
        stop(gui);
        QVERIFY2(servedStale, body.left(3000).constData());
        QVERIFY2(okAgain, body.left(3000).constData());
    }

    void badDeploymentsAreRefused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("said");
        const QString eu = QStringLiteral("eu=redis://127.0.0.1:1");
        QTest::newRow("no name") << QStringList{QStringLiteral("--deployment"),
                                                QStringLiteral("redis://127.0.0.1:1")}
                                 << QStringLiteral("is not NAME=URL");
        QTest::newRow("twice") << QStringList{QStringLiteral("--deployment"), eu,
                                              QStringLiteral("--deployment"), eu}
                               << QStringLiteral("names \"eu\" twice");
        QTest::newRow("with --url")
            << QStringList{QStringLiteral("--deployment"), eu, QStringLiteral("--url"),
                           QStringLiteral("redis://127.0.0.1:2")}
            << QStringLiteral("--deployment carries its own URL");
        QTest::newRow("with --environment")
            << QStringList{QStringLiteral("--deployment"), eu, QStringLiteral("--environment"),
                           QStringLiteral("production")}
            << QStringLiteral("--environment cannot be combined with --deployment");
        QTest::newRow("bad URL") << QStringList{QStringLiteral("--deployment"),
                                                QStringLiteral("eu=http://127.0.0.1:1")}
                                 << QStringLiteral("http://127.0.0.1:1");
        // An option the console does not have: a usage error, as the others.
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("--bogus")} << QStringLiteral("Unknown option 'bogus'");
    }
    void badDeploymentsAreRefused()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, said);
        QProcess gui;
        gui.setProcessEnvironment(environment());
        gui.start(QStringLiteral(GATEHOUSE_GUI), args);
        QVERIFY(gui.waitForStarted(10000));
        if (!gui.waitForFinished(15000))
            stop(gui);
        const QString err = QString::fromUtf8(gui.readAllStandardError());
        QCOMPARE(gui.exitStatus(), QProcess::NormalExit);
        QCOMPARE(gui.exitCode(), 2);
        QVERIFY2(err.contains(said), qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("gatehouse: ")), qPrintable(err));
    }

private:
    RedisServer m_eu;
    RedisServer m_us;
    QTemporaryDir m_dir;
    QNetworkAccessManager m_net;
};

QTEST_MAIN(tst_ConsoleDeployments)
#include "tst_consoledeployments.moc"
