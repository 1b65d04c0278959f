// SPDX-License-Identifier: MIT
// Several deployments in one `gatehouse-cli serve`: two real redis-servers
// with different structures, one endpoint whose every sample says which
// deployment it is from (deployment="eu", deployment="us"), scraped by a
// real Prometheus (/usr/bin/prometheus); one deployment's outage leaves the
// other's figures moving; each deployment keeps its own history file.
// Every process is bounded in time and stopped by pid.
#include "prometheusserver.h"
#include "redisserver.h"

#include <redis/redisclient.h>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

class tst_ServeDeployments : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void everySampleNamesItsDeployment();
    void prometheusTellsThemApart();
    void oneOutageLeavesTheOtherMoving();
    void eachDeploymentKeepsItsHistory();
    void badDeploymentsRefused();

private:
    QByteArray scrape() { return test::httpRequest(m_net, "GET", m_metricsUrl).body; }
    // The value of the sample named line (name and labels, as written), or
    // NaN when the body has none.
    static double sampleOf(const QByteArray &body, const QByteArray &line);
    CliRun cli(const QStringList &args, int timeoutMs = 60000)
    {
        return test::runCli(QStringLiteral(GATEHOUSE_CLI), args, {}, timeoutMs);
    }
    // serve's stderr so far (kept, as it is read in pieces).
    QString serveErrors()
    {
        m_serveErr += QString::fromUtf8(m_serve.readAllStandardError());
        return m_serveErr;
    }

    RedisServer m_eu;
    RedisServer m_us;
    QTemporaryDir m_dir;
    QString m_profile;
    QProcess m_serve;
    QString m_serveErr;
    QUrl m_metricsUrl;
    test::PrometheusServer m_prometheus{QStringLiteral(GATEHOUSE_PROMETHEUS)};
    QNetworkAccessManager m_net;
};

double tst_ServeDeployments::sampleOf(const QByteArray &body, const QByteArray &line)
{
    for (const QByteArray &l : body.split('\n')) {
        if (l.startsWith(QByteArray(line + ' ')))
            return l.mid(line.size() + 1).toDouble();
    }
    return qQNaN();
}

void tst_ServeDeployments::initTestCase()
{
    QVERIFY2(m_eu.start(), qPrintable(m_eu.errorString()));
    QVERIFY2(m_us.start(), qPrintable(m_us.errorString()));
    QVERIFY(m_dir.isValid());
    // eu: three locks; us: one lock and a sliding-window limiter with 7 of
    // its 20 requests in the window.
    auto eu = test::connectedClient(m_eu);
    auto us = test::connectedClient(m_us);
    QVERIFY(eu && us);
    for (const QByteArray n : {"1", "2", "3"})
        QVERIFY(!call(*eu, {"SET", "lock:a:" + n, "tok-" + n, "PX", "600000"}).isError());
    QVERIFY(!call(*us, {"SET", "lock:b:1", "tok-b", "PX", "600000"}).isError());
    const qint64 now = call(*us, {"TIME"}).at(0).toInteger() * 1000;
    for (int i = 0; i < 7; ++i) {
        const QByteArray t = QByteArray::number(now - 30000 + i * 1000);
        QVERIFY(!call(*us, {"ZADD", "rl:b", t, t + "-" + QByteArray::number(i)}).isError());
    }
    m_profile = m_dir.filePath(QStringLiteral("profile.json"));
    QFile profile(m_profile);
    QVERIFY(profile.open(QIODevice::WriteOnly));
    profile.write(R"({"name": "deployments-test", "rules": [
        {"pattern": "sliding-window", "match": "rl:*", "limit": 20, "window": 60, "windowUnit": "s"},
        {"pattern": "lock", "match": "lock:*"}]})");
    profile.close();

    m_serve.setProgram(QStringLiteral(GATEHOUSE_CLI));
    m_serve.setArguments({QStringLiteral("--deployment"), QStringLiteral("eu=") + m_eu.url(),
                          QStringLiteral("--deployment"), QStringLiteral("us=") + m_us.url(),
                          QStringLiteral("--profile"), m_profile, QStringLiteral("--interval"),
                          QStringLiteral("500"), QStringLiteral("--history"),
                          QStringLiteral("--history-dir"),
                          m_dir.filePath(QStringLiteral("history")), QStringLiteral("serve"),
                          QStringLiteral("--metrics"), QStringLiteral("127.0.0.1:0"),
                          QStringLiteral("--seconds"), QStringLiteral("150")});
    m_serve.start();
    QVERIFY(m_serve.waitForStarted(10000));
    QTRY_VERIFY_WITH_TIMEOUT(m_serve.canReadLine() || m_serve.state() != QProcess::Running, 15000);
    const QString first = QString::fromUtf8(m_serve.readLine()).trimmed();
    QVERIFY2(first.startsWith(QLatin1String("Serving metrics at http://127.0.0.1:")),
             qPrintable(first + serveErrors()));
    m_metricsUrl = QUrl(first.section(QLatin1Char(' '), 3));
    // Both deployments read: each one's locks are counted.
    QTRY_VERIFY_WITH_TIMEOUT(
        sampleOf(scrape(),
                 R"(gatehouse_objects{deployment="us",section="lock",pattern="lock",state="ok"})")
            == 1.0,
        20000);
    QString error;
    QVERIFY2(m_prometheus.start({quint16(m_metricsUrl.port())}, m_dir.path(), &error),
             qPrintable(error));
}

void tst_ServeDeployments::cleanupTestCase()
{
    test::stopProcess(m_serve);
    m_prometheus.stop();
    m_eu.stop();
    m_us.stop();
    QCOMPARE(RedisServer::runningChildren(), 0);
}

// One valid exposition: each family's HELP and TYPE once, every sample of a
// deployment's figures labelled with it first, the process's own once and
// unlabelled; a key of one deployment never under the other's name.
void tst_ServeDeployments::everySampleNamesItsDeployment()
{
    const QByteArray body = scrape();
    QSet<QByteArray> typed;
    QSet<QByteArray> declared;
    for (const QByteArray &line : body.split('\n')) {
        if (line.startsWith("# TYPE ")) {
            const QByteArray name = line.split(' ').value(2);
            QVERIFY2(!typed.contains(name), name.constData());
            typed.insert(name);
            continue;
        }
        if (line.startsWith("# HELP ")) {
            const QByteArray name = line.split(' ').value(2);
            QVERIFY2(!declared.contains(name), name.constData());
            declared.insert(name);
            continue;
        }
        if (line.isEmpty())
            continue;
        qsizetype cut = line.indexOf('{');
        if (const qsizetype space = line.indexOf(' '); cut < 0 || (space >= 0 && space < cut))
            cut = space;
        const QByteArray name = line.left(cut);
        QVERIFY2(typed.contains(name), line.constData()); // a sample after its family's TYPE
        const bool process = name == "gatehouse_console_cpu_seconds_total"
                             || name == "gatehouse_console_resident_memory_bytes"
                             || name == "gatehouse_console_scrapes_total";
        if (process) {
            QVERIFY2(!line.contains("deployment="), line.constData());
            continue;
        }
        QVERIFY2(line.contains(R"({deployment="eu")") || line.contains(R"({deployment="us")"),
                 line.constData());
        if (line.contains("lock:a:"))
            QVERIFY2(line.contains(R"(deployment="eu")"), line.constData());
        if (line.contains("lock:b:") || line.contains("rl:b"))
            QVERIFY2(line.contains(R"(deployment="us")"), line.constData());
    }
    QCOMPARE(
        sampleOf(body,
                 R"(gatehouse_objects{deployment="eu",section="lock",pattern="lock",state="ok"})"),
        3.0);
    QCOMPARE(
        sampleOf(body,
                 R"(gatehouse_objects{deployment="us",section="lock",pattern="lock",state="ok"})"),
        1.0);
    QCOMPARE(
        sampleOf(
            body,
            R"(gatehouse_limiter_in_window{deployment="us",key="rl:b",pattern="sliding-window"})"),
        7.0);
    QVERIFY(!body.contains(R"(gatehouse_limiter_in_window{deployment="eu")"));
    // Each deployment's monitor has its own cost and its own reading age.
    for (const QByteArray d : {"eu", "us"}) {
        QVERIFY2(sampleOf(body, "gatehouse_console_snapshot_age_seconds{deployment=\"" + d + "\"}")
                     >= 0,
                 d.constData());
        QVERIFY2(sampleOf(body, "gatehouse_reading_age_seconds{deployment=\"" + d + "\"}") >= 0,
                 d.constData());
    }
    QVERIFY(sampleOf(body, "gatehouse_console_scrapes_total") >= 1);
}

// Prometheus reads the two apart: the locks summed by deployment, one
// process series.
void tst_ServeDeployments::prometheusTellsThemApart()
{
    QCOMPARE(m_prometheus.valueOf(
                 QStringLiteral("sum(gatehouse_objects{deployment=\"eu\",pattern=\"lock\"})")),
             3.0);
    QCOMPARE(m_prometheus.valueOf(
                 QStringLiteral("sum(gatehouse_objects{deployment=\"us\",pattern=\"lock\"})")),
             1.0);
    QCOMPARE(m_prometheus.valueOf(
                 QStringLiteral("gatehouse_limiter_in_window{deployment=\"us\",key=\"rl:b\"}")),
             7.0);
    QCOMPARE(m_prometheus.valueOf(QStringLiteral("count(gatehouse_console_scrapes_total)")), 1.0);
    QCOMPARE(m_prometheus.valueOf(
                 QStringLiteral("count(count by (deployment) (gatehouse_reading_age_seconds))")),
             2.0);
}

// us goes down: serve says so, naming it, and keeps serving; eu's lock
// whose TTL was cut is read while us's reading grows old; us comes back and
// is read again.
void tst_ServeDeployments::oneOutageLeavesTheOtherMoving()
{
    m_us.kill();
    QTRY_VERIFY_WITH_TIMEOUT(serveErrors().contains(QLatin1String("deployment us: ")), 15000);
    QVERIFY2(serveErrors().contains(QLatin1String("connection lost")), qPrintable(m_serveErr));
    QVERIFY(!m_serveErr.contains(QLatin1String("deployment eu: ")));
    QCOMPARE(m_serve.state(), QProcess::Running);
    auto eu = test::connectedClient(m_eu);
    QVERIFY(eu);
    // A lock's TTL cut to 100 s on eu is read (polling: no keyspace events).
    QVERIFY(!call(*eu, {"PEXPIRE", "lock:a:1", "100000"}).isError());
    QTRY_VERIFY_WITH_TIMEOUT(
        sampleOf(scrape(),
                 R"(gatehouse_lock_pttl_seconds{deployment="eu",key="lock:a:1",pattern="lock"})")
            <= 100.0,
        15000);
    // us's figures are its last reading, said to be older and older.
    const double age = sampleOf(scrape(), R"(gatehouse_reading_age_seconds{deployment="us"})");
    QTest::qWait(1500);
    const QByteArray later = scrape();
    QVERIFY2(sampleOf(later, R"(gatehouse_reading_age_seconds{deployment="us"})") >= age + 1.0,
             later.constData());
    QVERIFY(sampleOf(later, R"(gatehouse_reading_age_seconds{deployment="eu"})") < 5.0);

    QVERIFY2(m_us.start(), qPrintable(m_us.errorString())); // empty: it had no persistence
    QTRY_VERIFY_WITH_TIMEOUT(serveErrors().contains(QLatin1String("deployment us: reconnected")),
                             30000);
    // The restarted server holds nothing: the lock is no longer counted ok.
    QTRY_VERIFY_WITH_TIMEOUT(
        sampleOf(scrape(),
                 R"(gatehouse_objects{deployment="us",section="lock",pattern="lock",state="ok"})")
            != 1.0,
        20000);
}

// Each deployment's ticks go into its own history file, which `history
// --url` of that server reads back.
void tst_ServeDeployments::eachDeploymentKeepsItsHistory()
{
    const QString dir = m_dir.filePath(QStringLiteral("history"));
    const CliRun eu
        = cli({QStringLiteral("--url"), m_eu.url(), QStringLiteral("--history-dir"), dir,
               QStringLiteral("history"), QStringLiteral("lock:a:1"), QStringLiteral("--since"),
               QStringLiteral("10m"), QStringLiteral("--json")});
    QVERIFY2(eu.exitCode == 0, qPrintable(eu.err));
    const QJsonObject doc = QJsonDocument::fromJson(eu.out.toUtf8()).object();
    QCOMPARE(doc.value(QLatin1String("pattern")).toString(), QStringLiteral("lock"));
    QVERIFY(!doc.value(QLatin1String("samples")).toArray().isEmpty());
    // us's file knows its own keys, not eu's.
    const CliRun us
        = cli({QStringLiteral("--url"), m_us.url(), QStringLiteral("--history-dir"), dir,
               QStringLiteral("history"), QStringLiteral("lock:a:1"), QStringLiteral("--since"),
               QStringLiteral("10m"), QStringLiteral("--json")});
    QVERIFY2(us.exitCode != 0, qPrintable(us.out));
    const CliRun usOwn
        = cli({QStringLiteral("--url"), m_us.url(), QStringLiteral("--history-dir"), dir,
               QStringLiteral("history"), QStringLiteral("rl:b"), QStringLiteral("--since"),
               QStringLiteral("10m"), QStringLiteral("--json")});
    QVERIFY2(usOwn.exitCode == 0, qPrintable(usOwn.err));
}

// What cannot work is said before anything connects (exit 2), and a
// deployment that cannot be reached at the start ends serve (exit 1) with
// its name.
void tst_ServeDeployments::badDeploymentsRefused()
{
    const QString eu = QStringLiteral("eu=") + m_eu.url();
    const auto serve = [&](QStringList args) {
        args << QStringLiteral("serve") << QStringLiteral("--metrics")
             << QStringLiteral("127.0.0.1:0") << QStringLiteral("--seconds")
             << QStringLiteral("20");
        return cli(args, 30000);
    };
    struct Case
    {
        QStringList args;
        QString says;
    };
    const QList<Case> cases{
        {{QStringLiteral("--deployment"), eu, QStringLiteral("--deployment"), eu},
         QStringLiteral("names \"eu\" twice")},
        {{QStringLiteral("--deployment"), m_eu.url()}, QStringLiteral("is not NAME=URL")},
        {{QStringLiteral("--deployment"), QStringLiteral("e u=") + m_eu.url()},
         QStringLiteral("is not NAME=URL")},
        {{QStringLiteral("--url"), m_eu.url(), QStringLiteral("--deployment"), eu},
         QStringLiteral("--deployment carries its own URL")},
        {{QStringLiteral("--deployment"), QStringLiteral("eu=http://x")},
         QStringLiteral("http://x")},
    };
    for (const Case &c : cases) {
        const CliRun run = serve(c.args);
        QVERIFY2(run.exitCode == 2, qPrintable(c.args.join(QLatin1Char(' ')) + run.err));
        QVERIFY2(run.err.contains(c.says), qPrintable(run.err));
    }
    const CliRun ping = cli({QStringLiteral("--deployment"), eu, QStringLiteral("ping")});
    QCOMPARE(ping.exitCode, 2);
    QVERIFY2(ping.err.contains(QLatin1String("--deployment applies to serve only")),
             qPrintable(ping.err));

    // One deployment nobody listens for, of two: said once, naming it, and
    // tried again while the other is served (serve runs its 8 s, exit 0).
    const quint16 nobody = test::freeLoopbackPort();
    QProcess down;
    down.start(QStringLiteral(GATEHOUSE_CLI),
               {QStringLiteral("--deployment"), eu, QStringLiteral("--deployment"),
                QStringLiteral("gone=redis://127.0.0.1:%1").arg(nobody), QStringLiteral("serve"),
                QStringLiteral("--metrics"), QStringLiteral("127.0.0.1:0"),
                QStringLiteral("--seconds"), QStringLiteral("8")});
    QVERIFY(down.waitForStarted(10000));
    QVERIFY(down.waitForReadyRead(10000));
    const QString url = QString::fromUtf8(down.readLine()).trimmed().section(QLatin1Char(' '), -1);
    QVERIFY2(url.startsWith(QLatin1String("http://127.0.0.1:")), qPrintable(url));
    QByteArray served;
    QTRY_VERIFY_WITH_TIMEOUT((served = test::httpRequest(m_net, "GET", QUrl(url)).body)
                                 .contains(R"(gatehouse_lock_pttl_seconds{deployment="eu")"),
                             6000);
    QVERIFY2(!served.contains(R"(deployment="gone")"), served.constData());
    QVERIFY(down.waitForFinished(20000));
    const QString err = QString::fromUtf8(down.readAllStandardError());
    QCOMPARE(down.exitCode(), 0);
    QVERIFY2(err.contains(QLatin1String("gatehouse-cli: deployment gone: ")), qPrintable(err));
    QVERIFY2(err.contains(QLatin1String("Trying again every 5 s; its samples are absent until "
                                        "it is read")),
             qPrintable(err));
    QCOMPARE(err.count(QLatin1String("deployment gone: ")), 1); // said once, not each try
    // Alone, it ends serve: nothing would be served.
    const CliRun alone
        = serve({QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:%1").arg(nobody)});
    QCOMPARE(alone.exitCode, 1);
}

QTEST_GUILESS_MAIN(tst_ServeDeployments)
#include "tst_servedeployments.moc"
