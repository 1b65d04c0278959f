// SPDX-License-Identifier: MIT
// Which server it is and what it can do, from the INFO server section as the
// servers send it: Redis 7.0 (Debian's, the one the suite runs), 7.4 and 8.0,
// and Valkey 7.2, 8.0 and 9.0 (which keep redis_version at 7.2.4, name
// themselves in server_name and valkey_version, and from 8.0 say
// server_mode instead of redis_mode). The INFO lines below are those
// servers' own field names and values for the fields read.
#include <redis/serveridentity.h>
#include <redis/serverinfo.h>

#include <QFile>
#include <QTest>

using namespace gatehouse;
using Cap = ServerIdentity::Capability;

namespace {

QByteArray info(const QList<QByteArray> &lines)
{
    QByteArray text = "# Server\r\n";
    for (const QByteArray &l : lines)
        text += l + "\r\n";
    return text + "\r\n# Clients\r\nconnected_clients:1\r\n";
}

} // namespace

class tst_ServerIdentity : public QObject
{
    Q_OBJECT

private slots:
    void identity_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("display");
        QTest::addColumn<QString>("compat");
        QTest::addColumn<QString>("mode");
        QTest::newRow("redis 7.0 standalone")
            << info({"redis_version:7.0.15", "redis_git_sha1:00000000", "redis_mode:standalone",
                     "os:Linux 6.1.0 x86_64", "run_id:4f1c0a"})
            << "Redis 7.0.15"
            << "7.0.15"
            << "standalone";
        QTest::newRow("redis 7.4 cluster")
            << info({"redis_version:7.4.1", "redis_mode:cluster"}) << "Redis 7.4.1"
            << "7.4.1"
            << "cluster";
        QTest::newRow("redis 8.0 milestone")
            << info({"redis_version:7.9.227", "redis_mode:standalone"}) << "Redis 7.9.227"
            << "7.9.227"
            << "standalone";
        QTest::newRow("valkey 7.2") << info({"redis_version:7.2.4", "server_name:valkey",
                                             "valkey_version:7.2.7", "redis_mode:standalone"})
                                    << "Valkey 7.2.7"
                                    << "7.2.4"
                                    << "standalone";
        QTest::newRow("valkey 8.0 standalone")
            << info({"redis_version:7.2.4", "server_name:valkey", "valkey_version:8.0.1",
                     "server_mode:standalone"})
            << "Valkey 8.0.1"
            << "7.2.4"
            << "standalone";
        QTest::newRow("valkey 8.0 cluster") << info({"redis_version:7.2.4", "server_name:valkey",
                                                     "valkey_version:8.0.1", "server_mode:cluster"})
                                            << "Valkey 8.0.1"
                                            << "7.2.4"
                                            << "cluster";
        QTest::newRow("valkey 9.0 sentinel")
            << info({"redis_version:7.2.4", "server_name:valkey", "valkey_version:9.0.0",
                     "server_mode:sentinel"})
            << "Valkey 9.0.0"
            << "7.2.4"
            << "sentinel";
        QTest::newRow("no INFO fields") << QByteArray() << "Redis (version unknown)"
                                        << ""
                                        << "standalone";
    }

    void identity()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, display);
        QFETCH(QString, compat);
        QFETCH(QString, mode);
        const ServerIdentity id = ServerIdentity::fromInfo(parseInfo(text));
        QCOMPARE(id.displayName(), display);
        QCOMPARE(id.compatVersion, compat);
        QCOMPARE(id.mode, mode);
    }

    // INFO server and HELLO 2 as the servers sent them (redis-cli, recorded
    // from binaries built from their release sources): the name, version and
    // mode read from INFO, the capabilities decided from them, and the version
    // and mode HELLO gives agree. HELLO's server name is its own column: Valkey
    // 7.2 still answers "redis" there while INFO says server_name:valkey.
    void recorded_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("display");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("fieldExpiry");
        QTest::addColumn<bool>("getSetEx");
        QTest::addColumn<QString>("helloServer");
        QTest::newRow("redis 7.0.15") << "redis-7.0.15"
                                      << "Redis 7.0.15"
                                      << "standalone" << false << false << "redis";
        QTest::newRow("redis 7.4.1") << "redis-7.4.1"
                                     << "Redis 7.4.1"
                                     << "standalone" << true << false << "redis";
        // Redis 8.0's first milestone calls itself 7.9.224: per-field expiry,
        // and not yet HGETEX/HSETEX.
        QTest::newRow("redis 8.0-m01") << "redis-8.0-m01"
                                       << "Redis 7.9.224"
                                       << "standalone" << true << false << "redis";
        // Valkey 7.2 keeps redis_version:7.2.4 and redis_mode, names itself in
        // server_name and valkey_version, and in HELLO is server "redis" with
        // version 7.2.7.
        QTest::newRow("valkey 7.2.7") << "valkey-7.2.7"
                                      << "Valkey 7.2.7"
                                      << "standalone" << false << false << "redis";
        QTest::newRow("valkey 7.2.7 cluster") << "valkey-7.2.7-cluster"
                                              << "Valkey 7.2.7"
                                              << "cluster" << false << false << "redis";
        // Valkey 8 keeps redis_version:7.2.4, names its mode server_mode, and
        // is server "valkey" in HELLO.
        QTest::newRow("valkey 8.0.1") << "valkey-8.0.1"
                                      << "Valkey 8.0.1"
                                      << "standalone" << false << false << "valkey";
        QTest::newRow("valkey 8.0.1 cluster") << "valkey-8.0.1-cluster"
                                              << "Valkey 8.0.1"
                                              << "cluster" << false << false << "valkey";
    }

    void recorded()
    {
        QFETCH(QString, name);
        QFETCH(QString, display);
        QFETCH(QString, mode);
        QFETCH(bool, fieldExpiry);
        QFETCH(bool, getSetEx);
        QFETCH(QString, helloServer);
        const QString dir = QStringLiteral(GATEHOUSE_TEST_DATA "/servers/");
        QFile infoFile(dir + name + QStringLiteral(".info"));
        QFile helloFile(dir + name + QStringLiteral(".hello"));
        QVERIFY(infoFile.open(QIODevice::ReadOnly));
        QVERIFY(helloFile.open(QIODevice::ReadOnly));
        const ServerIdentity id = ServerIdentity::fromInfo(parseInfo(infoFile.readAll()));
        QCOMPARE(id.displayName(), display);
        QCOMPARE(id.mode, mode);
        QCOMPARE(id.has(Cap::HashFieldExpiry), fieldExpiry);
        QCOMPARE(id.has(Cap::HashGetSetEx), getSetEx);
        // HELLO: server, <name>, version, <version>, ... one element a line.
        const QList<QByteArray> hello = helloFile.readAll().split('\n');
        QCOMPARE(QString::fromUtf8(hello.value(hello.indexOf("server") + 1)), helloServer);
        QCOMPARE(QString::fromUtf8(hello.value(hello.indexOf("version") + 1)), id.version);
        QCOMPARE(QString::fromUtf8(hello.value(hello.indexOf("mode") + 1)), id.mode);
    }

    void capabilities()
    {
        const auto of = [](const QList<QByteArray> &lines) {
            return ServerIdentity::fromInfo(parseInfo(info(lines)));
        };
        const ServerIdentity redis70 = of({"redis_version:7.0.15"});
        const ServerIdentity redis74 = of({"redis_version:7.4.1"});
        const ServerIdentity redis80 = of({"redis_version:8.0.0"});
        const ServerIdentity redis62 = of({"redis_version:6.2.14"});
        const ServerIdentity valkey8
            = of({"redis_version:7.2.4", "server_name:valkey", "valkey_version:8.0.1"});
        const ServerIdentity valkey81
            = of({"redis_version:7.2.4", "server_name:valkey", "valkey_version:8.1.0"});
        const ServerIdentity valkey9
            = of({"redis_version:7.2.4", "server_name:valkey", "valkey_version:9.0.0"});

        QVERIFY(redis62.has(Cap::LMove));
        QVERIFY(!redis62.has(Cap::Functions));
        QVERIFY(redis70.has(Cap::ClusterShards) && redis70.has(Cap::AclDryRun)
                && redis70.has(Cap::StreamEntriesRead));
        // Per-field expiry: Redis 7.4 and Valkey 9, not Redis 7.0 or Valkey 8
        // (whose redis_version 7.2.4 must not be read as Redis 7.2).
        QVERIFY(!redis70.has(Cap::HashFieldExpiry));
        QVERIFY(redis74.has(Cap::HashFieldExpiry));
        QVERIFY(!redis74.has(Cap::HashGetSetEx));
        QVERIFY(redis80.has(Cap::HashGetSetEx));
        QVERIFY(!valkey8.has(Cap::HashFieldExpiry));
        QVERIFY(valkey9.has(Cap::HashFieldExpiry) && valkey9.has(Cap::HashGetSetEx));
        QVERIFY(valkey8.has(Cap::ClusterShards) && valkey8.has(Cap::AclDryRun));
        // Compare-and-set: Valkey only.
        QVERIFY(!valkey8.has(Cap::SetIfEq));
        QVERIFY(valkey81.has(Cap::SetIfEq) && !valkey81.has(Cap::DelIfEq));
        QVERIFY(valkey9.has(Cap::DelIfEq));
        QVERIFY(!redis80.has(Cap::SetIfEq) && !redis80.has(Cap::DelIfEq));
        // Nothing known: nothing assumed.
        QVERIFY(!ServerIdentity::fromInfo({}).has(Cap::LMove));
    }
};

QTEST_GUILESS_MAIN(tst_ServerIdentity)
#include "tst_serveridentity.moc"
