// SPDX-License-Identifier: MIT
// `gatehouse-cli ping` says what a crash or a failover would lose now, in the
// sentence the console's Nodes page shows (and `ping --json` has it as a
// field, with the figures behind it), against real servers: a standalone
// server with AOF everysec, with RDB save rules, with no persistence; a master
// with AOF always and a replica (REPLICAOF); a Sentinel set; and a six-node
// Cluster whose masters persist differently.
#include "rediscluster.h"
#include "redissentinel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>

using namespace gatehouse;
using gatehouse::test::CliRun;
using gatehouse::test::RedisCluster;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;

namespace {

CliRun ping(const QString &url, bool json)
{
    QStringList args{QStringLiteral("--url"), url, QStringLiteral("ping")};
    if (json)
        args << QStringLiteral("--json");
    return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args);
}

// The durability lines of ping's text output: "durability: ..." (standalone)
// or "durability of ADDRESS: ...".
QStringList durabilityLines(const QString &out)
{
    QStringList lines;
    for (const QString &line : out.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("durability")))
            lines << line;
    }
    return lines;
}

// ping --json's node object for address.
QJsonObject nodeOf(const QJsonObject &o, const QString &address)
{
    for (const QJsonValue &v : o.value(QLatin1String("nodes")).toArray()) {
        if (v.toObject().value(QLatin1String("address")).toString() == address)
            return v.toObject();
    }
    return {};
}

QString sentenceOf(const QJsonObject &o, const QString &address)
{
    for (const QJsonValue &v : o.value(QLatin1String("durability")).toArray()) {
        if (v.toObject().value(QLatin1String("address")).toString() == address)
            return v.toObject().value(QLatin1String("sentence")).toString();
    }
    return QString();
}

// "since the last RDB save 0 ms ago" -> "since the last RDB save <age> ago"
QString withoutSaveAge(QString sentence)
{
    static const QRegularExpression age(QStringLiteral("RDB save [0-9.,]+ [a-z]+ ago"));
    return sentence.replace(age, QStringLiteral("RDB save <age> ago"));
}

QByteArray redisCli(quint16 port, const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(GATEHOUSE_REDIS_CLI),
            QStringList{QStringLiteral("-p"), QString::number(port)} + args);
    p.waitForFinished(10000);
    return p.readAllStandardOutput().trimmed();
}

} // namespace

class tst_CliDurability : public QObject
{
    Q_OBJECT

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void standalone_data()
    {
        QTest::addColumn<QStringList>("config");
        QTest::addColumn<QString>("sentence");
        QTest::addColumn<QString>("appendfsync");
        QTest::newRow("AOF everysec")
            << QStringList{QStringLiteral("appendonly yes"), QStringLiteral("appendfsync everysec")}
            << QStringLiteral("no replica: a failover is not possible; AOF everysec: a crash loses "
                              "up to 1 s")
            << QStringLiteral("everysec");
        QTest::newRow("RDB save rules")
            << QStringList{QStringLiteral("save \"3600 1\"")}
            << QStringLiteral("no replica: a failover is not possible; no AOF: a crash loses the 3 "
                              "change(s) since the last RDB save")
            << QStringLiteral("everysec");
        QTest::newRow("no persistence")
            << QStringList{} // the fixture's default: save "", appendonly no
            << QStringLiteral("no replica: a failover is not possible; no persistence (no AOF, no "
                              "RDB save rules): a restart loses everything")
            << QStringLiteral("everysec");
    }

    void standalone()
    {
        QFETCH(QStringList, config);
        QFETCH(QString, sentence);
        QFETCH(QString, appendfsync);
        RedisServer::Options options;
        options.config = config;
        RedisServer server(options);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(redisCli(server.port(), {QStringLiteral("SET"), QStringLiteral("k%1").arg(i),
                                              QStringLiteral("v")}),
                     QByteArray("OK"));

        const CliRun text = ping(server.url(), false);
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        const QStringList lines = durabilityLines(text.out);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().startsWith(QStringLiteral("durability: ") + sentence),
                 qPrintable(lines.first()));

        const CliRun json = ping(server.url(), true);
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(json.out));
        QCOMPARE(o.value(QLatin1String("pong")).toString(), QStringLiteral("PONG"));
        QCOMPARE(o.value(QLatin1String("mode")).toString(), QStringLiteral("standalone"));
        const QString address = QStringLiteral("127.0.0.1:%1").arg(server.port());
        QCOMPARE(o.value(QLatin1String("address")).toString(), address);
        QVERIFY(o.value(QLatin1String("version")).toString().startsWith(QLatin1String("7.")));
        // The same sentence as the text, and the figures behind it. The two runs read the
        // server a moment apart, so the age of the last RDB save may differ between them.
        QCOMPARE(withoutSaveAge(sentenceOf(o, address)),
                 withoutSaveAge(lines.first().mid(QStringLiteral("durability: ").size())));
        const QJsonObject d = nodeOf(o, address).value(QLatin1String("durability")).toObject();
        QCOMPARE(d.value(QLatin1String("sentence")).toString(), sentenceOf(o, address));
        QCOMPARE(d.value(QLatin1String("appendonly")).toBool(),
                 config.contains(QStringLiteral("appendonly yes")));
        QCOMPARE(d.value(QLatin1String("appendfsync")).toString(), appendfsync);
        QCOMPARE(d.value(QLatin1String("replicas")).toArray().size(), 0);
    }

    // A master with AOF always and a replica that REPLICAOF made: the
    // replica named, and the master's persistence.
    void replicated()
    {
        RedisServer::Options masterOptions;
        masterOptions.config << QStringLiteral("appendonly yes")
                             << QStringLiteral("appendfsync always")
                             << QStringLiteral("repl-diskless-sync-delay 0");
        RedisServer master(masterOptions);
        QVERIFY2(master.start(), qPrintable(master.errorString()));
        RedisServer replica;
        QVERIFY2(replica.start(), qPrintable(replica.errorString()));
        QCOMPARE(redisCli(replica.port(), {QStringLiteral("REPLICAOF"), QStringLiteral("127.0.0.1"),
                                           QString::number(master.port())}),
                 QByteArray("OK"));
        QCOMPARE(redisCli(master.port(),
                          {QStringLiteral("SET"), QStringLiteral("k"), QStringLiteral("v")}),
                 QByteArray("OK"));
        QCOMPARE(redisCli(master.port(),
                          {QStringLiteral("WAIT"), QStringLiteral("1"), QStringLiteral("10000")}),
                 QByteArray("1"));
        const QString replicaAddress = QStringLiteral("127.0.0.1:%1").arg(replica.port());

        const CliRun text = ping(master.url(), false);
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        const QStringList lines = durabilityLines(text.out);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().startsWith(
                     QStringLiteral("durability: replica %1 is ").arg(replicaAddress)),
                 qPrintable(lines.first()));
        QVERIFY2(lines.first().endsWith(
                     QStringLiteral("; AOF always: a crash loses no acknowledged write")),
                 qPrintable(lines.first()));

        const CliRun json = ping(master.url(), true);
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const QString address = QStringLiteral("127.0.0.1:%1").arg(master.port());
        const QJsonObject d = nodeOf(o, address).value(QLatin1String("durability")).toObject();
        QCOMPARE(d.value(QLatin1String("appendfsync")).toString(), QStringLiteral("always"));
        const QJsonArray replicas = d.value(QLatin1String("replicas")).toArray();
        QCOMPARE(replicas.size(), 1);
        QCOMPARE(replicas.at(0).toObject().value(QLatin1String("address")).toString(),
                 replicaAddress);
        QCOMPARE(replicas.at(0).toObject().value(QLatin1String("state")).toString(),
                 QStringLiteral("online"));
        QVERIFY(sentenceOf(o, address)
                    .startsWith(QStringLiteral("replica %1 is ").arg(replicaAddress)));
    }

    // Through the sentinels: the master's sentence names its replica.
    void sentinel()
    {
        RedisSentinel set(1, QStringLiteral("durability"));
        QVERIFY2(set.start(), qPrintable(set.errorString()));
        const int master = set.currentMaster();
        QVERIFY(master >= 0);
        const QString masterAddress = set.nodeAddress(master);
        const QString replicaAddress = set.nodeAddress(1 - master);

        const CliRun text = ping(set.url(), false);
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        const QStringList lines = durabilityLines(text.out);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().startsWith(QStringLiteral("durability of %1: replica %2 is ")
                                              .arg(masterAddress, replicaAddress)),
                 qPrintable(lines.first()));
        QVERIFY2(lines.first().endsWith(QStringLiteral("; no persistence (no AOF, no RDB save "
                                                       "rules): a restart loses everything")),
                 qPrintable(lines.first()));

        const CliRun json = ping(set.url(), true);
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(o.value(QLatin1String("mode")).toString(), QStringLiteral("sentinel"));
        QCOMPARE(o.value(QLatin1String("address")).toString(), masterAddress);
        QCOMPARE(o.value(QLatin1String("durability")).toArray().size(), 1);
        QVERIFY(sentenceOf(o, masterAddress)
                    .startsWith(QStringLiteral("replica %1 is ").arg(replicaAddress)));
        // The replica is listed as a node, with no durability of its own.
        const QJsonObject replicaNode = nodeOf(o, replicaAddress);
        QCOMPARE(replicaNode.value(QLatin1String("role")).toString(), QStringLiteral("replica"));
        QCOMPARE(replicaNode.value(QLatin1String("masterAddress")).toString(), masterAddress);
        QVERIFY(!replicaNode.contains(QLatin1String("durability")));

        // The replica named directly: a "replica", as INFO's "slave" is
        // called everywhere else (the snapshot's nodes, the metrics' labels).
        const CliRun direct = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI),
            {QStringLiteral("--url"), QStringLiteral("redis://") + replicaAddress,
             QStringLiteral("snapshot"), QStringLiteral("--json")});
        QVERIFY2(direct.exitCode == 0, qPrintable(direct.err));
        const QJsonArray nodes = QJsonDocument::fromJson(direct.out.toUtf8())
                                     .object()
                                     .value(QLatin1String("server"))
                                     .toObject()
                                     .value(QLatin1String("nodes"))
                                     .toArray();
        QVERIFY(!nodes.isEmpty());
        QCOMPARE(nodes.first().toObject().value(QLatin1String("role")).toString(),
                 QStringLiteral("replica"));
    }

    // A Cluster: one sentence per master, each naming its own replica; the
    // master given AOF says so, the others do not persist.
    void cluster()
    {
        RedisCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        const QList<int> masters = cluster.masters();
        QCOMPARE(masters.size(), 3);
        const int aofMaster = masters.first();
        QCOMPARE(cluster
                     .cli(aofMaster, {QStringLiteral("CONFIG"), QStringLiteral("SET"),
                                      QStringLiteral("appendonly"), QStringLiteral("yes")})
                     .trimmed(),
                 QByteArray("OK"));

        const CliRun text = ping(cluster.url(masters.last()), false);
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        const QStringList lines = durabilityLines(text.out);
        QCOMPARE(lines.size(), 3);
        for (int m : masters) {
            const QString prefix
                = QStringLiteral("durability of %1: replica ").arg(cluster.address(m));
            const auto line = std::find_if(lines.begin(), lines.end(),
                                           [&](const QString &l) { return l.startsWith(prefix); });
            QVERIFY2(line != lines.end(), qPrintable(prefix + QLatin1Char('\n') + text.out));
            if (m == aofMaster)
                QVERIFY2(line->endsWith(QStringLiteral("; AOF everysec: a crash loses up to 1 s")),
                         qPrintable(*line));
            else
                QVERIFY2(line->endsWith(QStringLiteral("a restart loses everything")),
                         qPrintable(*line));
        }

        const CliRun json = ping(cluster.url(masters.last()), true);
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject o = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(o.value(QLatin1String("mode")).toString(), QStringLiteral("cluster"));
        QCOMPARE(o.value(QLatin1String("nodes")).toArray().size(), cluster.size());
        QCOMPARE(o.value(QLatin1String("durability")).toArray().size(), 3);
        const QJsonObject d
            = nodeOf(o, cluster.address(aofMaster)).value(QLatin1String("durability")).toObject();
        QVERIFY(d.value(QLatin1String("appendonly")).toBool());
        QCOMPARE(d.value(QLatin1String("replicas")).toArray().size(), 1);
    }
};

QTEST_GUILESS_MAIN(tst_CliDurability)
#include "tst_clidurability.moc"
