// SPDX-License-Identifier: MIT
// Alerts against a real redis-server: a limiter driven over its threshold
// by real writes fires a rule once, stays fired, and resolves when its
// window drains; gatehouse-cli watch --alerts prints the transitions and its
// exit status follows --fail-on-alert (also when interrupted).
#include <alerts/alertengine.h>
#include <history/historystore.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <limits>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

// al:rl:* drain in two seconds (the engine test); cl:rl:* hold their
// entries for ten minutes (the CLI runs).
const QByteArray s_rules
    = R"([{"pattern": "sliding-window", "match": "al:rl:*", "limit": 10, "window": 2000},
          {"pattern": "sliding-window", "match": "cl:rl:*", "limit": 10, "window": 600000}])";

} // namespace

class tst_Alerts : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    QString writeProfile(const QString &name, const QByteArray &alerts = {})
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write("{\"name\": \"alerts-test\", \"rules\": " + s_rules
                + (alerts.isEmpty() ? QByteArray() : ", \"alerts\": " + alerts) + "}");
        return path;
    }

    CliRun cli(const QStringList &args)
    {
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                       QStringList{QStringLiteral("--url"), m_server.url()} + args,
                                       {}, 60000);
    }

    // A limiter at 100 % for the next ten minutes: ten requests now.
    void plantFull(const QByteArray &key)
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (int i = 0; i < 10; ++i)
            call(*m_client,
                 {"ZADD", key, QByteArray::number(now - i), "r" + QByteArray::number(i)});
    }

    QStringList watchArgs(const QString &profile, const QStringList &extra)
    {
        return QStringList{QStringLiteral("--profile"), profile, QStringLiteral("watch"),
                           QStringLiteral("--interval"), QStringLiteral("200")}
               + extra;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void init() { QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK")); }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void limiterFiresOnceAndResolves()
    {
        QString error;
        const auto profile
            = Profile::fromJson("{\"rules\": " + s_rules + "}", QStringLiteral("test"), &error);
        QVERIFY2(profile, qPrintable(error));
        const auto rule = AlertRule::parseExpression(
            QStringLiteral("occupancy >= 80% for 600ms on limiter:al:rl:*"), &error);
        QVERIFY2(rule, qPrintable(error));

        Monitor::Options options;
        options.profile = profile;
        options.useEvents = false;
        options.intervalMs = 200;
        Monitor monitor(m_client.get(), options);
        AlertEngine engine;
        engine.setRules({*rule});
        connect(&monitor, &Monitor::tickFinished, &engine, &AlertEngine::evaluate);
        QSignalSpy transitions(&engine, &AlertEngine::transition);

        // Requests at 10 a second into a 2 s window of limit 10: over 80 %
        // after about 0.8 s, held there as long as the writes go on.
        call(*m_client,
             {"ZADD", "al:rl:api", QByteArray::number(QDateTime::currentMSecsSinceEpoch()), "r0"});
        QSignalSpy discovered(&monitor, &Monitor::discoveryFinished);
        monitor.start();
        QVERIFY(discovered.wait(10000));
        int sent = 1;
        QTimer traffic;
        traffic.setInterval(100);
        connect(&traffic, &QTimer::timeout, this, [&] {
            m_client->command({"ZADD", "al:rl:api",
                               QByteArray::number(QDateTime::currentMSecsSinceEpoch()),
                               "r" + QByteArray::number(sent++)},
                              this, [](const RedisValue &) {});
        });
        traffic.start();
        QTRY_COMPARE_WITH_TIMEOUT(transitions.size(), 1, 15000);
        const auto fired = transitions.first().first().value<AlertEvent>();
        QCOMPARE(fired.state, AlertEvent::State::Fired);
        QCOMPARE(fired.key, QByteArray("al:rl:api"));
        QVERIFY2(fired.value >= 0.8, qPrintable(fired.sentence()));
        QVERIFY2(fired.atMs - fired.sinceMs >= 600, qPrintable(fired.sentence()));
        QCOMPARE(engine.firingCount(), 1);
        // Still over its threshold for three more seconds: no second firing.
        QTest::qWait(3000);
        QCOMPARE(transitions.size(), 1);
        QCOMPARE(engine.firingCount(), 1);
        // The traffic stops; the window drains within 2 s and it resolves, once.
        traffic.stop();
        QTRY_COMPARE_WITH_TIMEOUT(transitions.size(), 2, 15000);
        const auto resolved = transitions.last().first().value<AlertEvent>();
        QCOMPARE(resolved.state, AlertEvent::State::Resolved);
        QVERIFY2(resolved.value < 0.8, qPrintable(resolved.sentence()));
        QCOMPARE(engine.firingCount(), 0);
        QTest::qWait(1000);
        QCOMPARE(transitions.size(), 2);
    }

    void cliExitFollowsFailOnAlert()
    {
        plantFull("cl:rl:full");
        call(*m_client,
             {"ZADD", "cl:rl:calm", QByteArray::number(QDateTime::currentMSecsSinceEpoch()), "r"});
        const QString profile = writeProfile(QStringLiteral("plain.json"));
        const QString full = QStringLiteral("occupancy >= 80% on limiter:cl:rl:*");

        // Without --fail-on-alert: the firing is printed, the exit is 0.
        CliRun run = cli(watchArgs(profile, {QStringLiteral("--alert"), full,
                                             QStringLiteral("--count"), QStringLiteral("4")}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.count(QStringLiteral("FIRING")), 1);
        QVERIFY2(
            run.out.contains(QStringLiteral("FIRING limiter cl:rl:full: Occupancy 100 % >= 80 %")),
            qPrintable(run.out));
        QVERIFY2(!run.out.contains(QStringLiteral("cl:rl:calm")), qPrintable(run.out));

        // With it: 4 once an alert fired.
        run = cli(watchArgs(profile, {QStringLiteral("--alert"), full, QStringLiteral("--count"),
                                      QStringLiteral("4"), QStringLiteral("--fail-on-alert")}));
        QVERIFY2(run.exitCode == 4, qPrintable(run.err + run.out));

        // With it and nothing firing: 0, and nothing printed.
        run = cli(watchArgs(profile, {QStringLiteral("--alert"),
                                      QStringLiteral("occupancy >= 80% on limiter:cl:rl:calm"),
                                      QStringLiteral("--count"), QStringLiteral("4"),
                                      QStringLiteral("--fail-on-alert")}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out, QString());

        // The profile's own rules, as JSON lines.
        const QString withAlerts
            = writeProfile(QStringLiteral("alerts.json"),
                           R"([{"name": "full limiter", "target": "limiter", "figure": "occupancy",
                 "op": ">=", "threshold": "90%", "severity": "critical"}])");
        run = cli(watchArgs(withAlerts, {QStringLiteral("--alerts"), QStringLiteral("--json"),
                                         QStringLiteral("--count"), QStringLiteral("3"),
                                         QStringLiteral("--fail-on-alert")}));
        QVERIFY2(run.exitCode == 4, qPrintable(run.err + run.out));
        const QStringList lines = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1);
        const QJsonObject line = QJsonDocument::fromJson(lines.first().toUtf8()).object();
        QCOMPARE(line.value(QLatin1String("state")).toString(), QStringLiteral("firing"));
        QCOMPARE(line.value(QLatin1String("rule")).toString(), QStringLiteral("full limiter"));
        QCOMPARE(line.value(QLatin1String("severity")).toString(), QStringLiteral("critical"));
        QCOMPARE(line.value(QLatin1String("key")).toString(), QStringLiteral("cl:rl:full"));
        QCOMPARE(line.value(QLatin1String("value")).toDouble(), 1.0);
        QCOMPARE(line.value(QLatin1String("threshold")).toDouble(), 0.9);
    }

    // A lock already held when watching starts: since when is unknown, but
    // it has been held at least since first seen, so "held for > 1 s" fires
    // once that long has passed; "held for < 1 h" is not decided by it (it may
    // have been held for days), and a lock taken while watching is exact.
    void heldForFiresOnLockHeldBeforeStart()
    {
        call(*m_client, {"SET", "cl:lock:old", "token-old", "PX", "600000"});
        const QString profile = m_dir.filePath(QStringLiteral("locks.json"));
        QFile f(profile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name": "locks", "rules": [{"pattern": "lock", "match": "cl:lock:*"}]})");
        f.close();
        const QStringList watch{QStringLiteral("--profile"), profile,
                                QStringLiteral("watch"),     QStringLiteral("--interval"),
                                QStringLiteral("250"),       QStringLiteral("--count"),
                                QStringLiteral("10")};
        CliRun run = cli(
            watch
            + QStringList{QStringLiteral("--alert"), QStringLiteral("heldForMs > 1s on lock")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.count(QStringLiteral("FIRING")), 1);
        // What is known is a lower bound, and it is said as one.
        QVERIFY2(run.out.contains(QStringLiteral("FIRING lock cl:lock:old: Held for at least ")),
                 qPrintable(run.out));

        // A below rule: "held for less than 1 h" is not decided by a bound
        // of a few seconds (the lock may have been held for days): no firing.
        run = cli(watch
                  + QStringList{QStringLiteral("--alert"), QStringLiteral("heldForMs < 1h on lock"),
                                QStringLiteral("--fail-on-alert")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(run.out, QString());
    }

    // Run until interrupted (cron's timeout, Ctrl-C): the verdict is the exit.
    // watch --alerts --history: the firing is in the connection's history
    // file beside the figures, as the console's Alerts page records it.
    void cliRecordsFiringsInHistory()
    {
        plantFull("cl:rl:full");
        const QString profile = writeProfile(QStringLiteral("history.json"));
        const QString dir = m_dir.filePath(QStringLiteral("history"));
        const CliRun run = cli(watchArgs(
            profile,
            {QStringLiteral("--alert"), QStringLiteral("occupancy >= 80% on limiter:cl:rl:*"),
             QStringLiteral("--count"), QStringLiteral("4"), QStringLiteral("--history"),
             QStringLiteral("--history-dir"), dir}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.count(QStringLiteral("FIRING")), 1);
        QString error;
        const auto events = HistoryStore::readEvents(
            HistoryStore::fileFor(m_server.endpoint(), dir), 0, std::numeric_limits<qint64>::max(),
            "cl:rl:full", 100, &error);
        QVERIFY2(events, qPrintable(error));
        QCOMPARE(events->size(), 1);
        QCOMPARE(events->first().kind, QStringLiteral("alert.firing"));
        QVERIFY2(events->first().text.contains(QLatin1String("cl:rl:full")),
                 qPrintable(events->first().text));
        // And `history KEY` shows it beside the figures.
        const QStringList read{QStringLiteral("history"), QStringLiteral("cl:rl:full"),
                               QStringLiteral("--history-dir"), dir};
        const CliRun json = cli(read + QStringList{QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonArray shown = QJsonDocument::fromJson(json.out.toUtf8())
                                     .object()
                                     .value(QLatin1String("events"))
                                     .toArray();
        QCOMPARE(shown.size(), 1);
        QCOMPARE(shown.first().toObject().value(QLatin1String("kind")).toString(),
                 QStringLiteral("alert.firing"));
        const CliRun text = cli(read);
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        QVERIFY2(text.out.contains(QLatin1String("alert.firing: FIRING limiter cl:rl:full")),
                 qPrintable(text.out));
    }

    void cliInterruptedAfterFiring()
    {
        plantFull("cl:rl:full");
        QProcess p;
        p.start(QStringLiteral(GATEHOUSE_CLI),
                QStringList{QStringLiteral("--url"), m_server.url()}
                    + watchArgs(writeProfile(QStringLiteral("plain.json")),
                                {QStringLiteral("--alert"),
                                 QStringLiteral("occupancy >= 80% on limiter"),
                                 QStringLiteral("--fail-on-alert")}));
        QVERIFY(p.waitForStarted(10000));
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += p.readAllStandardOutput()).contains("FIRING"), 20000);
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 4);
    }

    void cliUsageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mention");
        QTest::newRow("no rules") << QStringList{QStringLiteral("watch"),
                                                 QStringLiteral("--alerts"),
                                                 QStringLiteral("--no-default-alerts")}
                                  << QStringLiteral("no rules");
        QTest::newRow("bad expression")
            << QStringList{QStringLiteral("watch"), QStringLiteral("--alert"),
                           QStringLiteral("occupancy 80")}
            << QStringLiteral("FIGURE OP VALUE");
        QTest::newRow("not watch")
            << QStringList{QStringLiteral("snapshot"), QStringLiteral("--alert"),
                           QStringLiteral("stuck > 0")}
            << QStringLiteral("watch only");
    }
    void cliUsageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mention);
        const CliRun run = cli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(mention), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(tst_Alerts)
#include "tst_alerts.moc"
