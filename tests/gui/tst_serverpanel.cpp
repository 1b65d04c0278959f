// SPDX-License-Identifier: MIT
// The Overview's server panel against a real redis-server: every figure is
// the one INFO gives (version, role, memory limit and policy, clients,
// evictions, hit rate, persistence, replicas), read asynchronously.
#include <deployment/consolereads.h>
#include <redis/redisclient.h>
#include <redis/serverinfo.h>
#include <serverpanel.h>

#include "redisserver.h"

#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

class tst_ServerPanel : public QObject
{
    Q_OBJECT

private slots:
    void figuresMatchInfo()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        call(*client, {"CONFIG", "SET", "maxmemory", "104857600"}); // 100 MiB
        call(*client, {"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"});
        call(*client, {"SET", "present", "1"});
        call(*client, {"GET", "present"}); // a hit
        call(*client, {"GET", "absent"});  // a miss
        call(*client, {"GET", "absent2"}); // a miss

        RedisClient panelClient(server.endpoint());
        QSignalSpy ready(&panelClient, &RedisClient::ready);
        panelClient.open();
        QVERIFY(ready.wait(5000));
        ConsoleReads reads(&panelClient);
        ServerPanel panel(&reads);
        QSignalSpy updated(&panel, &ServerPanel::updated);
        panel.show(); // reads at once when shown
        QVERIFY(updated.wait(5000));

        const auto info = parseInfo(call(*client, {"INFO"}).bytes());
        QCOMPARE(panel.value(QStringLiteral("Version")),
                 QString::fromLatin1(info.value("redis_version")));
        QCOMPARE(panel.value(QStringLiteral("Role")), QStringLiteral("master"));
        QCOMPARE(panel.value(QStringLiteral("Policy")), QStringLiteral("allkeys-lru"));
        QVERIFY2(panel.value(QStringLiteral("Memory")).endsWith(QLatin1String("limit 100.0 MiB")),
                 qPrintable(panel.value(QStringLiteral("Memory"))));
        QCOMPARE(panel.figures().usedMemoryBytes > 0, true);
        QVERIFY(panel.figures().peakMemoryBytes >= panel.figures().usedMemoryBytes / 2);
        // This test's connection and the panel's.
        QCOMPARE(panel.value(QStringLiteral("Clients")),
                 QString::fromLatin1(info.value("connected_clients")));
        QCOMPARE(panel.value(QStringLiteral("Evictions")), QStringLiteral("0"));
        QCOMPARE(panel.value(QStringLiteral("Hit rate")), QStringLiteral("33.3 %"));
        QCOMPARE(panel.value(QStringLiteral("AOF")), QStringLiteral("off"));
        QVERIFY2(panel.value(QStringLiteral("RDB")).startsWith(QLatin1String("ok")),
                 qPrintable(panel.value(QStringLiteral("RDB"))));
        QCOMPARE(panel.value(QStringLiteral("Replicas")), QStringLiteral("0"));
        QVERIFY(panel.value(QStringLiteral("Uptime")).endsWith(QLatin1String(" s")));

        // A change on the server shows at the next read.
        call(*client, {"CONFIG", "SET", "maxmemory-policy", "volatile-ttl"});
        updated.clear();
        panel.readNow();
        QVERIFY(updated.wait(5000));
        QCOMPARE(panel.value(QStringLiteral("Policy")), QStringLiteral("volatile-ttl"));

        // INFO refused (an ACL without it): said, not shown as zeros.
        call(*client, {"ACL", "SETUSER", "noinfo", "on", ">pw", "~*", "+@all", "-info"});
        RedisEndpoint limited = server.endpoint();
        limited.user = QStringLiteral("noinfo");
        limited.password = QStringLiteral("pw");
        RedisClient limitedClient(limited);
        QSignalSpy limitedReady(&limitedClient, &RedisClient::ready);
        limitedClient.open();
        QVERIFY(limitedReady.wait(5000));
        ConsoleReads limitedReads(&limitedClient);
        ServerPanel refused(&limitedReads);
        QSignalSpy refusedUpdated(&refused, &ServerPanel::updated);
        refused.show();
        QVERIFY(refusedUpdated.wait(5000));
        QVERIFY2(refused.value(QStringLiteral("Version")).startsWith(QLatin1String("unknown")),
                 qPrintable(refused.value(QStringLiteral("Version"))));
        QCOMPARE(refused.value(QStringLiteral("Clients")), QStringLiteral("?"));
    }

    void humanUnits()
    {
        QCOMPARE(ServerPanel::bytes(512), QStringLiteral("512 bytes"));
        QCOMPARE(ServerPanel::bytes(1536), QStringLiteral("1.5 KiB"));
        QCOMPARE(ServerPanel::bytes(3LL * 1024 * 1024 * 1024), QStringLiteral("3.0 GiB"));
        QCOMPARE(ServerPanel::duration(42), QStringLiteral("42 s"));
        QCOMPARE(ServerPanel::duration(600), QStringLiteral("10 min"));
        QCOMPARE(ServerPanel::duration(3 * 3600 + 120), QStringLiteral("3 h 2 min"));
        QCOMPARE(ServerPanel::duration(3 * 86400 + 5 * 3600), QStringLiteral("3 d 5 h"));
    }

    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }
};

QTEST_MAIN(tst_ServerPanel)
#include "tst_serverpanel.moc"
