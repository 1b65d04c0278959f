// SPDX-License-Identifier: MIT
// What a failover or a crash would lose, read from a real master and its
// real replica: no replica, a replica in sync, a replica stopped (SIGSTOP)
// while writes go on (seconds behind, and min-replicas-to-write refusing
// writes, which the test checks is true), AOF everysec, and a server with no
// persistence at all; in snapshot --json and in the monitor's snapshots.
#include <monitor/monitor.h>
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>
#include <QTimer>

#include <signal.h>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

RedisServer::Options masterOptions()
{
    RedisServer::Options o;
    o.config = {QStringLiteral("appendonly yes"), QStringLiteral("appendfsync everysec")};
    return o;
}

} // namespace

class tst_Durability : public QObject
{
    Q_OBJECT

private:
    RedisServer m_master{masterOptions()};
    std::unique_ptr<RedisServer> m_replica;
    std::unique_ptr<RedisClient> m_client;

    QJsonObject durabilityJson()
    {
        const CliRun run = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            {QStringLiteral("--url"), m_master.url(), QStringLiteral("snapshot"),
             QStringLiteral("--json"), QStringLiteral("--profile"), QStringLiteral("demo")});
        if (run.exitCode != 0)
            qWarning("snapshot failed: %s", qPrintable(run.err));
        const QJsonObject o = QJsonDocument::fromJson(run.out.toUtf8()).object();
        return o.value(QLatin1String("server"))
            .toObject()
            .value(QLatin1String("nodes"))
            .toArray()
            .at(0)
            .toObject()
            .value(QLatin1String("durability"))
            .toObject();
    }

    QString replicaAddress() const { return QStringLiteral("127.0.0.1:%1").arg(m_replica->port()); }

    // The replica streams and has acknowledged everything (master's view).
    bool replicaInSync()
    {
        const QByteArray info = call(*m_client, {"INFO", "replication"}).bytes();
        static const QRegularExpression offset(QStringLiteral("master_repl_offset:(\\d+)"));
        const QString text = QString::fromUtf8(info);
        const QString master = offset.match(text).captured(1);
        return text.contains(QStringLiteral("state=online,offset=%1,").arg(master));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_master.start(), qPrintable(m_master.errorString()));
        m_client = gatehouse::test::connectedClient(m_master);
        QVERIFY(m_client);
    }

    void cleanupTestCase()
    {
        if (m_replica && m_replica->pid() > 0)
            ::kill(pid_t(m_replica->pid()), SIGCONT);
        m_client.reset();
        m_replica.reset();
        m_master.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // A lone master with AOF everysec: no failover possible, a crash loses
    // up to a second.
    void noReplica()
    {
        const QJsonObject d = durabilityJson();
        QVERIFY2(d.value(QLatin1String("known")).toBool(), qPrintable(QJsonDocument(d).toJson()));
        QCOMPARE(d.value(QLatin1String("appendonly")).toBool(), true);
        QCOMPARE(d.value(QLatin1String("appendfsync")).toString(), QStringLiteral("everysec"));
        QCOMPARE(d.value(QLatin1String("replicas")).toArray().size(), 0);
        QCOMPARE(d.value(QLatin1String("replicasInSync")).toInt(), 0);
        QCOMPARE(d.value(QLatin1String("minReplicasToWrite")).toInt(-1), 0);
        QCOMPARE(d.value(QLatin1String("rdbLastSaveStatus")).toString(), QStringLiteral("ok"));
        QCOMPARE(d.value(QLatin1String("sentence")).toString(),
                 QStringLiteral("no replica: a failover is not possible; AOF everysec: a crash "
                                "loses up to 1 s"));
    }

    // A replica that has synced: named, in sync, nothing to lose to a failover.
    void replicaInSyncNamed()
    {
        RedisServer::Options o;
        o.config = {QStringLiteral("replicaof 127.0.0.1 %1").arg(m_master.port())};
        m_replica = std::make_unique<RedisServer>(o);
        QVERIFY2(m_replica->start(), qPrintable(m_replica->errorString()));
        QVERIFY(gatehouse::test::waitUntil([this] { return replicaInSync(); }, 20000));

        const QJsonObject d = durabilityJson();
        const QJsonArray replicas = d.value(QLatin1String("replicas")).toArray();
        QCOMPARE(replicas.size(), 1);
        const QJsonObject r = replicas.at(0).toObject();
        QCOMPARE(r.value(QLatin1String("address")).toString(), replicaAddress());
        QCOMPARE(r.value(QLatin1String("state")).toString(), QStringLiteral("online"));
        QCOMPARE(d.value(QLatin1String("replicasInSync")).toInt(), 1);
        QVERIFY2(d.value(QLatin1String("sentence"))
                     .toString()
                     .startsWith(QStringLiteral("replica %1 is in sync: a failover now loses at "
                                                "most the writes in flight; AOF everysec")
                                     .arg(replicaAddress())),
                 qPrintable(d.value(QLatin1String("sentence")).toString()));
    }

    // The replica stopped while writes go on: the monitor's sentence says how
    // far behind it is, growing; with min-replicas-to-write 1 it says the
    // master refuses writes, and the master does; once the replica runs
    // again it is back in sync.
    void replicaBehind()
    {
        QVERIFY(m_replica);
        Monitor::Options options;
        QString error;
        options.profile = Profile::load(QStringLiteral("demo"), &error);
        options.intervalMs = 500;
        auto monitor = std::make_unique<Monitor>(m_client.get(), options);
        monitor->start();
        const auto sentence = [&] {
            return monitor->snapshot().server.nodes.value(0).durability.sentence(0);
        };
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] { return sentence().contains(QLatin1String("is in sync")); }, 10000),
                 qPrintable(sentence()));

        QVERIFY(::kill(pid_t(m_replica->pid()), SIGSTOP) == 0);
        // About 100 kB/s of writes from another client.
        auto writer = gatehouse::test::connectedClient(m_master);
        QVERIFY(writer);
        QTimer writes;
        writes.setInterval(20);
        const QByteArray value(2000, 'x');
        int n = 0;
        connect(&writes, &QTimer::timeout, this, [&] {
            writer->command({"SET", "durability:w:" + QByteArray::number(n++ % 100), value}, this,
                            [](const RedisValue &) {});
        });
        writes.start();
        static const QRegularExpression behind(
            QStringLiteral("^replica 127\\.0\\.0\\.1:\\d+ is ([0-9.]+) s behind: a failover now "
                           "loses up to \\1 s of writes; AOF everysec: a crash loses up to 1 s$"));
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         const auto m = behind.match(sentence());
                         return m.hasMatch() && m.captured(1).toDouble() >= 2.0;
                     },
                     20000),
                 qPrintable(sentence()));
        const Durability d = monitor->snapshot().server.nodes.value(0).durability;
        QCOMPARE(d.replicas.size(), 1);
        QVERIFY(d.replicas.at(0).behindBytes > 0);
        QVERIFY(d.replicas.at(0).behindMs >= 2000);
        QVERIFY(d.writeBytesPerS > 0);
        QCOMPARE(d.replicasInSync(), 0);
        writes.stop();
        monitor.reset();

        // min-replicas-to-write 1 with the only replica silent: the sentence
        // says the master refuses writes, and it does.
        QCOMPARE(call(*m_client, {"CONFIG", "SET", "min-replicas-to-write", "1"}),
                 RedisValue::status("OK"));
        QCOMPARE(call(*m_client, {"CONFIG", "SET", "min-replicas-max-lag", "1"}),
                 RedisValue::status("OK"));
        monitor = std::make_unique<Monitor>(m_client.get(), options);
        monitor->start();
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         return sentence().contains(QLatin1String(
                             "(min-replicas-to-write 1 with 0 good replica(s): the master "
                             "refuses writes)"));
                     },
                     10000),
                 qPrintable(sentence()));
        QCOMPARE(call(*m_client, {"SET", "durability:refused", "1"}).errorCode(),
                 QByteArray("NOREPLICAS"));

        QVERIFY(::kill(pid_t(m_replica->pid()), SIGCONT) == 0);
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         const Durability now
                             = monitor->snapshot().server.nodes.value(0).durability;
                         return now.goodReplicas == 1
                                && sentence().startsWith(
                                    QStringLiteral("replica %1 is in sync").arg(replicaAddress()));
                     },
                     20000),
                 qPrintable(sentence()));
        QCOMPARE(call(*m_client, {"SET", "durability:accepted", "1"}), RedisValue::status("OK"));
        monitor.reset();
        QCOMPARE(call(*m_client, {"CONFIG", "SET", "min-replicas-to-write", "0"}),
                 RedisValue::status("OK"));
    }

    // No AOF: RDB changes since the last save; no save rules either: a
    // restart loses everything.
    void withoutAof()
    {
        QCOMPARE(call(*m_client, {"CONFIG", "SET", "appendonly", "no"}), RedisValue::status("OK"));
        QCOMPARE(call(*m_client, {"CONFIG", "SET", "save", "3600 1"}), RedisValue::status("OK"));
        QCOMPARE(call(*m_client, {"SAVE"}), RedisValue::status("OK"));
        for (int i = 0; i < 3; ++i)
            call(*m_client, {"SET", "durability:c:" + QByteArray::number(i), "1"});
        QJsonObject d = durabilityJson();
        QCOMPARE(d.value(QLatin1String("appendonly")).toBool(true), false);
        QCOMPARE(d.value(QLatin1String("rdbSaveRules")).toString(), QStringLiteral("3600 1"));
        QVERIFY2(d.value(QLatin1String("sentence"))
                     .toString()
                     .contains(QRegularExpression(QStringLiteral(
                         "; no AOF: a crash loses the 3 change\\(s\\) since the last RDB save "
                         "[0-9.]+ (ms|s) ago$"))),
                 qPrintable(d.value(QLatin1String("sentence")).toString()));

        QCOMPARE(call(*m_client, {"CONFIG", "SET", "save", ""}), RedisValue::status("OK"));
        d = durabilityJson();
        QVERIFY2(d.value(QLatin1String("sentence"))
                     .toString()
                     .endsWith(QStringLiteral("; no persistence (no AOF, no RDB save rules): a "
                                              "restart loses everything")),
                 qPrintable(d.value(QLatin1String("sentence")).toString()));
    }
};

QTEST_GUILESS_MAIN(tst_Durability)
#include "tst_durability.moc"
