// SPDX-License-Identifier: MIT
// gatehouse-cli watch --history against a real server with the simulator,
// then history KEY --json / --csv: the values the snapshots showed.
#include "redisserver.h"

#include <redis/redisclient.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

class tst_CliHistory : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    QTemporaryDir m_dir;

    QString historyDir() const { return m_dir.filePath(QStringLiteral("history")); }

    CliRun cli(QStringList args, int timeoutMs = 60000)
    {
        args.prepend(m_server.url());
        args.prepend(QStringLiteral("--url"));
        args << QStringLiteral("--history-dir") << historyDir();
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, {}, timeoutMs);
    }

private slots:
    void initTestCase() { QVERIFY2(m_server.start(), qPrintable(m_server.errorString())); }

    void cleanupTestCase()
    {
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void watchWritesWhatHistoryReads()
    {
        // Traffic while watch writes: the figures move from tick to tick.
        QProcess simulate;
        simulate.start(QStringLiteral(GATEHOUSE_CLI),
                       {QStringLiteral("--url"), m_server.url(), QStringLiteral("simulate"),
                        QStringLiteral("--seconds"), QStringLiteral("12")});
        QVERIFY(simulate.waitForStarted());
        QTest::qWait(1500); // the simulator's keys exist before the scan
        const CliRun watch = cli(
            {QStringLiteral("--profile"), QStringLiteral("demo"), QStringLiteral("watch"),
             QStringLiteral("--history"), QStringLiteral("--json"), QStringLiteral("--interval"),
             QStringLiteral("500"), QStringLiteral("--count"), QStringLiteral("8")});
        QVERIFY(simulate.waitForFinished(60000));
        QCOMPARE(watch.exitCode, 0);
        QVERIFY2(!watch.err.contains(QStringLiteral("history")), qPrintable(watch.err));

        // What each tick's snapshot showed of one limiter, by server time.
        const QString key = QStringLiteral("sim:rl:api:3");
        QHash<qint64, QJsonObject> shown;
        for (const QString &line : watch.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const QJsonObject s = QJsonDocument::fromJson(line.toUtf8()).object();
            const qint64 at = qint64(s.value(QLatin1String("server"))
                                         .toObject()
                                         .value(QLatin1String("timeMs"))
                                         .toDouble());
            for (const QJsonValue &v : s.value(QLatin1String("limiters")).toArray()) {
                if (v.toObject().value(QLatin1String("key")).toString() == key)
                    shown.insert(at, v.toObject());
            }
        }
        QVERIFY2(shown.size() >= 6, qPrintable(watch.out.left(2000)));
        bool moved = false;
        double first = -1;
        for (const QJsonObject &o : std::as_const(shown)) {
            const double v = o.value(QLatin1String("inWindow")).toDouble();
            moved |= first >= 0 && v != first;
            first = v;
        }
        QVERIFY(moved); // the comparison below is not of a constant

        const CliRun json = cli({QStringLiteral("history"), key, QStringLiteral("--since"),
                                 QStringLiteral("10m"), QStringLiteral("--json")});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(doc.value(QLatin1String("pattern")).toString(), QStringLiteral("sliding-window"));
        QHash<qint64, QJsonObject> kept;
        for (const QJsonValue &v : doc.value(QLatin1String("samples")).toArray())
            kept.insert(qint64(v.toObject().value(QLatin1String("atMs")).toDouble()), v.toObject());
        for (auto it = shown.cbegin(); it != shown.cend(); ++it) {
            QVERIFY2(kept.contains(it.key()), qPrintable(QString::number(it.key())));
            for (const char *figure : {"inWindow", "occupancy"})
                QCOMPARE(kept.value(it.key()).value(QLatin1String(figure)).toDouble(),
                         it.value().value(QLatin1String(figure)).toDouble());
        }

        // CSV: the same values, one row per tick.
        const CliRun csv = cli({QStringLiteral("history"), key, QStringLiteral("--since"),
                                QStringLiteral("10m"), QStringLiteral("--csv"),
                                QStringLiteral("--figure"), QStringLiteral("inWindow")});
        QCOMPARE(csv.exitCode, 0);
        const QStringList rows = csv.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.first(), QStringLiteral("time,atMs,resolution,inWindow"));
        int matched = 0;
        for (const QString &row : rows.mid(1)) {
            const QStringList cells = row.split(QLatin1Char(','));
            QCOMPARE(cells.size(), 4);
            const qint64 at = cells.at(1).toLongLong();
            if (!shown.contains(at))
                continue;
            QCOMPARE(cells.at(3).toDouble(),
                     shown.value(at).value(QLatin1String("inWindow")).toDouble());
            ++matched;
        }
        QCOMPARE(matched, shown.size());

        // A key never seen: a sentence, exit 3.
        const CliRun none = cli({QStringLiteral("history"), QStringLiteral("no:such:key")});
        QCOMPARE(none.exitCode, 3);
        QVERIFY2(none.err.contains(QStringLiteral("no history for no:such:key")),
                 qPrintable(none.err));
        // An unknown figure names the ones there are.
        const CliRun figure = cli(
            {QStringLiteral("history"), key, QStringLiteral("--figure"), QStringLiteral("nope")});
        QCOMPARE(figure.exitCode, 2);
        QVERIFY2(figure.err.contains(QStringLiteral("inWindow, occupancy, retryHorizonMs")),
                 qPrintable(figure.err));
    }

    // serve --metrics --history: the metrics process keeps the same history
    // as watch would (what it served is what history reads back).
    void serveWritesHistory()
    {
        // Autodetected: a lock by name, token and TTL.
        const auto client = gatehouse::test::connectedClient(m_server);
        QVERIFY(client);
        gatehouse::test::call(*client,
                              {"SET", "orders:lock:1", "f3a9c1d2e4b5a6978877", "PX", "600000"});
        const CliRun serve = cli({QStringLiteral("serve"), QStringLiteral("--metrics"),
                                  QStringLiteral("127.0.0.1:0"), QStringLiteral("--history"),
                                  QStringLiteral("--interval"), QStringLiteral("250"),
                                  QStringLiteral("--seconds"), QStringLiteral("4")});
        QVERIFY2(serve.exitCode == 0, qPrintable(serve.err));
        QVERIFY2(serve.out.startsWith(QLatin1String("Serving metrics at http://127.0.0.1:")),
                 qPrintable(serve.out));
        const CliRun json = cli(
            {QStringLiteral("history"), QStringLiteral("orders:lock:1"), QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject doc = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(doc.value(QLatin1String("pattern")).toString(), QStringLiteral("lock"));
        const QJsonArray samples = doc.value(QLatin1String("samples")).toArray();
        QVERIFY2(samples.size() >= 4, qPrintable(json.out.left(2000))); // a tick every 250 ms
        // The TTL counts down from tick to tick, below the 600 s it was set to.
        const double first = samples.first().toObject().value(QLatin1String("pttlMs")).toDouble();
        const double last = samples.last().toObject().value(QLatin1String("pttlMs")).toDouble();
        QVERIFY2(first > 590000 && first <= 600000 && last < first,
                 qPrintable(QStringLiteral("%1 .. %2").arg(first).arg(last)));
    }

    void noFileNoServerNeeded()
    {
        // Another connection (no server there): no history file, said so.
        QStringList args{QStringLiteral("--url"),         QStringLiteral("redis://127.0.0.1:1/3"),
                         QStringLiteral("history"),       QStringLiteral("rl:x"),
                         QStringLiteral("--history-dir"), historyDir()};
        const CliRun run = gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, {}, 30000);
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QStringLiteral("There is no history file"))
                     && run.err.contains(QStringLiteral("redis_127.0.0.1_1_db3.sqlite")),
                 qPrintable(run.err));
    }

    void badTimeIsAUsageError()
    {
        const CliRun run = cli({QStringLiteral("history"), QStringLiteral("rl:x"),
                                QStringLiteral("--since"), QStringLiteral("yesterday")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("is not a time")), qPrintable(run.err));
    }

    // Horizons and cap are settable; a bad one is a usage error before any
    // connection, and they need --history.
    void historyLimitsAreChecked()
    {
        const CliRun bad = cli({QStringLiteral("watch"), QStringLiteral("--history"),
                                QStringLiteral("--history-cap"), QStringLiteral("huge")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("--history-cap \"huge\" is not a size")),
                 qPrintable(bad.err));
        const CliRun alone = cli(
            {QStringLiteral("watch"), QStringLiteral("--history-keep"), QStringLiteral("7d")});
        QCOMPARE(alone.exitCode, 2);
        QVERIFY2(alone.err.contains(QStringLiteral("apply with --history")), qPrintable(alone.err));
        const CliRun good = cli({QStringLiteral("watch"), QStringLiteral("--history"),
                                 QStringLiteral("--history-full"), QStringLiteral("2h"),
                                 QStringLiteral("--history-keep"), QStringLiteral("7d"),
                                 QStringLiteral("--history-cap"), QStringLiteral("50MB"),
                                 QStringLiteral("--count"), QStringLiteral("2")});
        QVERIFY2(good.exitCode == 0, qPrintable(good.err));
    }
};

QTEST_GUILESS_MAIN(tst_CliHistory)
#include "tst_clihistory.moc"
