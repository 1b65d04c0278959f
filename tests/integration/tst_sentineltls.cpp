// SPDX-License-Identifier: MIT
// Sentinel over TLS (rediss-sentinel://): a master, a replica and three
// sentinels that all listen on TLS only, replicate and gossip over TLS, with
// certificates of one test CA. The CLI reaches the master through the
// sentinels with --cacert, its snapshot has every planted lock on the master,
// `watch` follows a SENTINEL FAILOVER, and a CA that did not sign the
// sentinels' certificates is one sentence and a non-zero exit within the
// connect timeout, not a hang.
#include "redissentinel.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::CliRun;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;

namespace {

constexpr int s_locks = 10;

QJsonObject lastObject(const QByteArray &lines)
{
    return QJsonDocument::fromJson(lines.trimmed().split('\n').last()).object();
}

int plantedLocks(const QJsonObject &snapshot)
{
    int count = 0;
    for (const QJsonValue &v : snapshot.value(QLatin1String("locks")).toArray()) {
        if (v.toObject()
                .value(QLatin1String("key"))
                .toString()
                .startsWith(QLatin1String("sim:lock:tls:")))
            ++count;
    }
    return count;
}

QJsonObject server(const QJsonObject &snapshot)
{
    return snapshot.value(QLatin1String("server")).toObject();
}

QString masterOf(const QJsonObject &snapshot)
{
    for (const QJsonValue &v : server(snapshot).value(QLatin1String("nodes")).toArray()) {
        if (v.toObject().value(QLatin1String("role")).toString() == QLatin1String("master"))
            return v.toObject().value(QLatin1String("address")).toString();
    }
    return QString();
}

} // namespace

class tst_SentinelTls : public QObject
{
    Q_OBJECT

private:
    RedisSentinel m_sentinel{1, QStringLiteral("gatehouse-tls"), true};

    QStringList urlArgs(const QString &ca) const
    {
        return {QStringLiteral("--url"), m_sentinel.url(), QStringLiteral("--cacert"), ca};
    }

    CliRun cli(const QStringList &args, int timeoutMs = 60000)
    {
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                       urlArgs(m_sentinel.caFile()) + args, {}, timeoutMs);
    }

private slots:
    void initTestCase()
    {
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(m_sentinel.start(), qPrintable(m_sentinel.errorString()));
        qInfo("TLS master, replica and three sentinels up in %lld ms", clock.elapsed());
        QVERIFY(m_sentinel.url().startsWith(QLatin1String("rediss-sentinel://")));
        const int master = m_sentinel.currentMaster();
        QVERIFY2(master >= 0, qPrintable(m_sentinel.errorString()));
        // Planted with redis-cli over TLS, and on the replica before any failover.
        for (int i = 0; i < s_locks; ++i) {
            QCOMPARE(
                m_sentinel.cli(m_sentinel.node(master).port(),
                               {QStringLiteral("SET"), QStringLiteral("sim:lock:tls:%1").arg(i),
                                QStringLiteral("a1b2c3d4e5f60718"), QStringLiteral("PX"),
                                QStringLiteral("600000")}),
                QByteArray("OK"));
        }
        QCOMPARE(
            m_sentinel.cli(m_sentinel.node(master).port(),
                           {QStringLiteral("WAIT"), QStringLiteral("1"), QStringLiteral("5000")}),
            QByteArray("1"));
    }

    void cleanupTestCase()
    {
        m_sentinel.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // The sentinels really speak only TLS: plain RESP to one is not answered.
    void sentinelsAreTlsOnly()
    {
        const CliRun run = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            {QStringLiteral("--url"),
             QStringLiteral("redis://%1").arg(m_sentinel.sentinelAddress(0)),
             QStringLiteral("--connect-timeout"), QStringLiteral("2000"), QStringLiteral("ping")},
            {}, 30000);
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(QStringLiteral("rediss://")), qPrintable(run.err));
    }

    // ping through the TLS sentinels: the master, its replica, and what a
    // failover would lose.
    void ping()
    {
        const CliRun run = cli({QStringLiteral("ping")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        const int master = m_sentinel.currentMaster();
        QVERIFY2(
            run.out.contains(QStringLiteral("mode: sentinel (master \"%1\" at %2")
                                 .arg(m_sentinel.masterName(), m_sentinel.nodeAddress(master))),
            qPrintable(run.out));
        QVERIFY2(run.out.contains(m_sentinel.nodeAddress(1 - master) + QStringLiteral("  replica")),
                 qPrintable(run.out));
        // What a failover would lose, read over TLS from the master.
        QVERIFY2(run.out.contains(
                     QStringLiteral("durability of %1: replica %2 is ")
                         .arg(m_sentinel.nodeAddress(master), m_sentinel.nodeAddress(1 - master))),
                 qPrintable(run.out));
    }

    // snapshot --json: mode sentinel, master and replica, every planted lock
    // read from the master over TLS.
    void snapshot()
    {
        const CliRun run = cli({QStringLiteral("snapshot"), QStringLiteral("--json"),
                                QStringLiteral("--profile"), QStringLiteral("demo")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject o = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QCOMPARE(server(o).value(QLatin1String("mode")).toString(), QStringLiteral("sentinel"));
        const int master = m_sentinel.currentMaster();
        QCOMPARE(masterOf(o), m_sentinel.nodeAddress(master));
        QCOMPARE(server(o).value(QLatin1String("nodes")).toArray().size(), 2);
        QCOMPARE(plantedLocks(o), s_locks);
        for (const QJsonValue &v : o.value(QLatin1String("locks")).toArray())
            QCOMPARE(v.toObject()
                         .value(QLatin1String("node"))
                         .toObject()
                         .value(QLatin1String("address"))
                         .toString(),
                     m_sentinel.nodeAddress(master));
    }

    // A CA that did not sign the sentinels' certificates: one sentence naming
    // the sentinel and TLS verification, a non-zero exit, well within the
    // time a hang would take.
    void wrongCa()
    {
        QElapsedTimer clock;
        clock.start();
        const CliRun run = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            urlArgs(m_sentinel.otherCaFile())
                + QStringList{QStringLiteral("--connect-timeout"), QStringLiteral("3000"),
                              QStringLiteral("ping")},
            {}, 60000);
        qInfo("wrong CA, after %lld ms: %s", clock.elapsed(), qPrintable(run.err.trimmed()));
        QVERIFY2(run.exitCode == 1, // a connection failure, not a usage error
                 qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        QVERIFY2(clock.elapsed() < 30000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(run.err.contains(QStringLiteral("TLS verification")), qPrintable(run.err));
        QVERIFY2(run.err.contains(m_sentinel.sentinelAddress(0)), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("--cacert")), qPrintable(run.err));
        QCOMPARE(run.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY(run.out.isEmpty());
    }

    // SENTINEL FAILOVER under watch: watch moves to the new master over TLS
    // and has every lock there, once.
    void watchThroughFailover()
    {
        QProcess watch;
        watch.start(QStringLiteral(GATEHOUSE_CLI),
                    urlArgs(m_sentinel.caFile())
                        + QStringList{QStringLiteral("watch"), QStringLiteral("--json"),
                                      QStringLiteral("--profile"), QStringLiteral("demo"),
                                      QStringLiteral("--interval"), QStringLiteral("200")});
        QVERIFY(watch.waitForStarted(10000));
        QByteArray lines;
        const auto readLines = [&] {
            lines += watch.readAllStandardOutput();
            return lines.count('\n');
        };
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] { return readLines() >= 2 && plantedLocks(lastObject(lines)) == s_locks; },
                     30000),
                 qPrintable(QString::fromUtf8(lines.right(2000) + watch.readAllStandardError())));
        const int old = m_sentinel.currentMaster();
        QCOMPARE(masterOf(lastObject(lines)), m_sentinel.nodeAddress(old));
        const int master = m_sentinel.failover();
        QVERIFY2(master >= 0 && master != old, qPrintable(m_sentinel.errorString()));
        const qsizetype before = lines.size();
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         readLines();
                         const QJsonObject last = lastObject(lines);
                         return masterOf(last) == m_sentinel.nodeAddress(master)
                                && server(last).value(QLatin1String("connection")).toString()
                                       == QLatin1String("ready")
                                && plantedLocks(last) == s_locks;
                     },
                     30000),
                 qPrintable(QString::fromUtf8(lines.right(3000) + watch.readAllStandardError())));
        QCOMPARE(watch.state(), QProcess::Running);
        watch.terminate();
        QVERIFY(watch.waitForFinished(10000));
        for (const QByteArray &line : lines.mid(before).trimmed().split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (!o.isEmpty())
                QVERIFY(plantedLocks(o) <= s_locks); // never one twice
        }
        // The locks are really on the new master (read with redis-cli over TLS).
        QCOMPARE(m_sentinel.cli(m_sentinel.node(master).port(),
                                {QStringLiteral("EXISTS"), QStringLiteral("sim:lock:tls:0")}),
                 QByteArray("1"));
    }
};

QTEST_GUILESS_MAIN(tst_SentinelTls)
#include "tst_sentineltls.moc"
