// SPDX-License-Identifier: MIT
// The console without --profile keeps each deployment's verdicts (and alert
// rules) in its own file and honours them at the next start: the real
// `gatehouse` binary (offscreen) against a real server, what it shows read
// from its own Prometheus endpoint. A family rejected in an earlier run is not
// shown; another is, as a control that discovery ran; a damaged file is said
// and the console autodetects without it.

#include "loopback.h"
#include "redisserver.h"

#include <monitor/profile.h>
#include <redis/redisclient.h>
#include <redis/redisendpoint.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

class tst_ConnectionProfile : public QObject
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

    // Runs the console on m_redis with XDG_CONFIG_HOME at m_dir, until the
    // control family shows on its metrics (discovery ran); the last scrape.
    QByteArray consoleShows(QString *stderrText)
    {
        const quint16 port = freePort();
        QProcess gui;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath(QStringLiteral("config")));
        gui.setProcessEnvironment(env);
        gui.start(QStringLiteral(GATEHOUSE_GUI),
                  {QStringLiteral("--url"), m_redis.url(), QStringLiteral("--metrics"),
                   QStringLiteral("127.0.0.1:%1").arg(port)});
        if (!gui.waitForStarted(10000))
            return {};
        const QUrl url(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
        QByteArray body;
        QTest::qWaitFor(
            [&] {
                body = scrape(url);
                return body.contains("key=\"lock:invoice:1\"");
            },
            30000);
        gui.terminate();
        if (!gui.waitForFinished(10000)) {
            gui.kill();
            gui.waitForFinished(5000);
        }
        *stderrText = QString::fromUtf8(gui.readAllStandardError());
        return body;
    }

    QString ownFile() const
    {
        RedisEndpoint ep;
        ep.host = QStringLiteral("127.0.0.1");
        ep.port = m_redis.port();
        // The console's path under this test's XDG_CONFIG_HOME: same name.
        return m_dir.filePath(QStringLiteral("config/Gatehouse/gatehouse/profiles/"))
               + QFileInfo(Profile::connectionFile(ep)).fileName();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        QVERIFY(m_dir.isValid());
        auto client = gatehouse::test::connectedClient(m_redis);
        QVERIFY(client);
        // Two families of locks: random tokens, ten minutes to live.
        for (int i = 1; i <= 4; ++i) {
            for (const char *family : {"lock:order:", "lock:invoice:"}) {
                const QByteArray token = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
                QCOMPARE(
                    call(*client, {"SET", family + QByteArray::number(i), token, "PX", "600000"})
                        .bytes(),
                    QByteArray("OK"));
            }
        }
    }

    void cleanupTestCase() { m_redis.stop(); }

    void withoutAFileBothAreShown()
    {
        QFile::remove(ownFile());
        QString err;
        const QByteArray shown = consoleShows(&err);
        QVERIFY2(shown.contains("key=\"lock:invoice:1\""), shown.left(2000).constData());
        QVERIFY2(shown.contains("key=\"lock:order:1\""), shown.left(2000).constData());
    }

    void rejectedFamilyStaysHidden()
    {
        QVERIFY(QDir().mkpath(QFileInfo(ownFile()).path()));
        QFile f(ownFile());
        QVERIFY(f.open(QIODevice::WriteOnly));
        // As the Unconfirmed page's Reject writes it.
        f.write(R"({"name": "autodetected", "autodetect": true, "rules": [],
                    "rejected": ["lock:order:*"]})");
        f.close();
        QString err;
        const QByteArray shown = consoleShows(&err);
        QVERIFY2(shown.contains("key=\"lock:invoice:1\""), shown.left(2000).constData());
        QVERIFY2(!shown.contains("key=\"lock:order:"), shown.left(2000).constData());
        QVERIFY2(err.contains(QDir::toNativeSeparators(ownFile())), qPrintable(err));
    }

    void damagedFileIsSaidAndIgnored()
    {
        QFile f(ownFile());
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("{\"rules\": [");
        f.close();
        QString err;
        const QByteArray shown = consoleShows(&err);
        QVERIFY2(err.contains(QLatin1String("could not be read")), qPrintable(err));
        QVERIFY2(shown.contains("key=\"lock:order:1\""), shown.left(2000).constData());
    }

private:
    RedisServer m_redis;
    QTemporaryDir m_dir;
    QNetworkAccessManager m_net;
};

QTEST_MAIN(tst_ConnectionProfile)
#include "tst_connectionprofile.moc"
